//! The report of a run: what it printed and whether it met its expectations.

use std::time::Duration;

use crate::{
    rss::RssSeries,
    run::{FailureCount, RunConfig, Tally},
    stats::{Flatness, LatencySummary},
};

/// What a run measured.
pub struct Report {
    pub url: String,
    pub connections: usize,
    pub elapsed: Duration,
    pub ok: u64,
    pub methods: Vec<(&'static str, LatencySummary)>,
    pub failures: Vec<((String, String), FailureCount)>,
    pub kept: u64,
    pub ids_out: Option<String>,
    pub memory: Vec<(RssSeries, Flatness)>,
    pub flat_tolerance: f64,
}

/// What the caller requires of a run; anything else is a violation.
pub struct Expectations {
    /// Failures allowed beyond those matching `--allow-error`.
    pub max_failures: u64,
    /// At least one failure must happen (the run covers an outage).
    pub expect_failures: bool,
    /// Every sampled server's memory must be flat.
    pub expect_flat_memory: bool,
}

pub fn build(
    config: &RunConfig,
    tally: Tally,
    elapsed: Duration,
    kept: u64,
    memory: Vec<RssSeries>,
) -> Report {
    let tolerance = 0.10;
    Report {
        url: format!("http://{}{}", config.endpoint.authority, config.endpoint.path),
        connections: config.connections,
        elapsed,
        ok: tally.ok,
        methods: tally
            .latencies
            .into_iter()
            .filter_map(|(method, samples)| Some((method, LatencySummary::of(samples)?)))
            .collect(),
        failures: tally.failures.into_iter().collect(),
        kept,
        ids_out: config.ids_out.as_ref().map(|p| p.display().to_string()),
        memory: memory
            .into_iter()
            .map(|series| {
                let verdict = crate::stats::flatness(&series.samples, tolerance);
                (series, verdict)
            })
            .collect(),
        flat_tolerance: tolerance,
    }
}

impl Report {
    pub fn failed(&self) -> u64 {
        self.failures.iter().map(|(_, c)| c.count).sum()
    }

    /// Failures neither allowed by `--allow-error` nor forbidden outright.
    pub fn unexpected(&self) -> u64 {
        self.failures.iter().map(|(_, c)| c.count - c.allowed - c.forbidden).sum()
    }

    pub fn forbidden(&self) -> u64 {
        self.failures.iter().map(|(_, c)| c.forbidden).sum()
    }

    fn per_second(&self, count: u64) -> f64 {
        count as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    fn scans(&self) -> u64 {
        self.methods
            .iter()
            .find(|(method, _)| *method == "scan_document")
            .map_or(0, |(_, s)| s.count as u64)
    }

    /// The expectations this run broke, as sentences.
    pub fn violations(&self, expect: &Expectations) -> Vec<String> {
        let mut broken = Vec::new();
        if self.unexpected() > expect.max_failures {
            broken.push(format!(
                "{} requests failed unexpectedly (at most {} allowed)",
                self.unexpected(),
                expect.max_failures
            ));
        }
        if self.forbidden() > 0 {
            broken.push(format!("{} failures showed forbidden text", self.forbidden()));
        }
        if expect.expect_failures && self.failed() == 0 {
            broken.push("no request failed, but the run was expected to see failures".into());
        }
        if expect.expect_flat_memory {
            if self.memory.is_empty() {
                broken.push("memory flatness was expected but no --server-pid was given".into());
            }
            for (series, verdict) in &self.memory {
                match verdict {
                    Flatness::Measured { flat: true, .. } => {}
                    Flatness::Measured { second_quarter, last_quarter, change_percent, .. } => {
                        broken.push(format!(
                            "server {} memory is not flat: the last-quarter median ({:.1} MiB) is \
                             {change_percent:+.1} % from the second-quarter median ({:.1} MiB)",
                            series.pid,
                            mib(*last_quarter),
                            mib(*second_quarter),
                        ));
                    }
                    Flatness::TooFewSamples(n) => broken.push(format!(
                        "server {} memory cannot be judged from {n} samples",
                        series.pid
                    )),
                }
            }
        }
        broken
    }

    /// Prints the report; `judge_memory` says whether the memory verdict is a requirement of
    /// this run or only information.
    pub fn print(&self, judge_memory: bool) {
        let seconds = self.elapsed.as_secs_f64();
        println!("target: {} with {} connections for {seconds:.1} s", self.url, self.connections);
        let total = self.ok + self.failed();
        println!(
            "requests: {total} ({:.1}/s), {} ok, {} failed ({} allowed, {} unexpected, {} forbidden)",
            self.per_second(total),
            self.ok,
            self.failed(),
            self.failures.iter().map(|(_, c)| c.allowed).sum::<u64>(),
            self.unexpected(),
            self.forbidden(),
        );
        println!(
            "{:<14} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "method", "ok", "per s", "p50 ms", "p90 ms", "p99 ms", "max ms"
        );
        for (method, s) in &self.methods {
            println!(
                "{method:<14} {:>8} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
                s.count,
                self.per_second(s.count as u64),
                ms(s.p50),
                ms(s.p90),
                ms(s.p99),
                ms(s.max)
            );
        }
        for ((method, kind), count) in &self.failures {
            println!(
                "failed: {method} {kind} x{} ({} allowed, {} forbidden), e.g. \"{}\"",
                count.count, count.allowed, count.forbidden, count.sample
            );
        }
        if let Some(path) = &self.ids_out {
            println!(
                "scans kept (retain_hours > 0): {} acknowledged ids written to {path}",
                self.kept
            );
        }
        for (series, verdict) in &self.memory {
            print_memory(series, verdict, self.flat_tolerance, judge_memory);
        }
        let flat = if self.memory.is_empty() {
            "n/a"
        } else if self.memory.iter().all(|(_, v)| v.is_flat()) {
            "yes"
        } else {
            "no"
        };
        println!(
            "RESULT requests={total} ok={} failed={} unexpected={} rps={:.2} scan_rps={:.2} \
             scans_kept={} memory_flat={flat}",
            self.ok,
            self.failed(),
            self.unexpected(),
            self.per_second(total),
            self.per_second(self.scans()),
            self.kept,
        );
    }
}

fn ms(micros: u64) -> f64 {
    micros as f64 / 1000.0
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn print_memory(series: &RssSeries, verdict: &Flatness, tolerance: f64, judged: bool) {
    let samples = &series.samples;
    let (Some(first), Some(max)) = (samples.first(), samples.iter().max()) else {
        println!("server memory (pid {}): no samples ({} missed)", series.pid, series.missed);
        return;
    };
    // Ten evenly spaced points show the shape of the curve without flooding the output.
    let points: Vec<String> = (0..10.min(samples.len()))
        .map(|i| format!("{:.0}", mib(samples[i * samples.len() / 10.min(samples.len())])))
        .collect();
    if let Some(cores) = series.cores_busy() {
        println!("server CPU (pid {}): {cores:.2} cores busy on average", series.pid);
    }
    println!(
        "server memory (VmRSS, pid {}): {} samples, start {:.1} MiB, max {:.1} MiB, last {:.1} MiB; \
         over time (MiB): {}",
        series.pid,
        samples.len(),
        mib(*first),
        mib(*max),
        mib(*samples.last().unwrap_or(first)),
        points.join(" ")
    );
    // A short run that does not require flat memory reports the trend without a verdict,
    // since a warm-up that lasts past its first quarter would read as growth.
    let label = if judged { "memory verdict" } else { "memory trend (not judged)" };
    match verdict {
        Flatness::TooFewSamples(n) => {
            println!("{label}: too few samples ({n}) to judge");
        }
        Flatness::Measured {
            second_quarter,
            third_quarter,
            last_quarter,
            change_percent,
            flat,
        } => {
            println!(
                "{label}: {} (last-quarter median {:.1} MiB vs second-quarter median {:.1} MiB, \
                 {change_percent:+.1} %, limit +{:.0} %; third-quarter median {:.1} MiB)",
                if *flat { "FLAT" } else { "GROWING" },
                mib(*last_quarter),
                mib(*second_quarter),
                tolerance * 100.0,
                mib(*third_quarter),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::flatness;

    fn report(failures: Vec<FailureCount>, memory: Vec<u64>) -> Report {
        let series = RssSeries::from_samples(7, memory);
        let verdict = flatness(&series.samples, 0.10);
        Report {
            url: "http://127.0.0.1:1/mcp".into(),
            connections: 1,
            elapsed: Duration::from_secs(10),
            ok: 100,
            methods: Vec::new(),
            failures: failures
                .into_iter()
                .enumerate()
                .map(|(i, count)| (("get_scan".to_owned(), format!("kind {i}")), count))
                .collect(),
            kept: 0,
            ids_out: None,
            memory: vec![(series, verdict)],
            flat_tolerance: 0.10,
        }
    }

    fn failures(count: u64, allowed: u64, forbidden: u64) -> FailureCount {
        FailureCount { count, allowed, forbidden, sample: "e.g.".into() }
    }

    const STRICT: Expectations =
        Expectations { max_failures: 0, expect_failures: false, expect_flat_memory: true };

    #[test]
    fn a_clean_run_with_flat_memory_breaks_nothing() {
        assert!(report(Vec::new(), vec![100; 20]).violations(&STRICT).is_empty());
    }

    #[test]
    fn only_failures_outside_the_allowed_texts_count() {
        let run = report(vec![failures(5, 5, 0), failures(3, 1, 0)], vec![100; 20]);
        assert_eq!(run.failed(), 8);
        assert_eq!(run.unexpected(), 2);
        assert_eq!(run.violations(&STRICT).len(), 1);
        let lenient = Expectations { max_failures: 2, ..STRICT };
        assert!(run.violations(&lenient).is_empty());
    }

    #[test]
    fn forbidden_text_missing_failures_and_growing_memory_are_violations() {
        let leaked = report(vec![failures(2, 0, 1)], vec![100; 20]);
        let lenient = Expectations { max_failures: u64::MAX, ..STRICT };
        assert_eq!(leaked.violations(&lenient).len(), 1, "a forbidden text always breaks a run");

        let outage = Expectations { expect_failures: true, ..STRICT };
        let quiet = report(Vec::new(), vec![100; 20]);
        assert_eq!(quiet.violations(&outage).len(), 1, "an outage that nobody saw");

        let growing = report(Vec::new(), (0..40).map(|i| 100 + 10 * i).collect());
        let broken = growing.violations(&STRICT);
        assert_eq!(broken.len(), 1);
        assert!(broken[0].contains("not flat"), "{broken:?}");
        let relaxed = Expectations { expect_flat_memory: false, ..STRICT };
        assert!(growing.violations(&relaxed).is_empty());
    }
}
