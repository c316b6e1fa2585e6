//! Samples a server's resident memory (`VmRSS` in `/proc/PID/status`) and CPU time
//! (`/proc/PID/stat`) during a run.

use std::time::{Duration, Instant};

use tokio::{sync::watch, task::JoinHandle};

/// The `VmRSS` figure of a `/proc/PID/status` text, in KiB.
pub fn parse_vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let mut words = line["VmRSS:".len()..].split_whitespace();
    let value: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") | None => Some(value),
        Some(_) => None,
    }
}

/// The resident memory of process `pid` in KiB, or `None` when it cannot be read (the
/// process has exited, or this is not Linux).
pub fn read_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_vm_rss(&status)
}

/// Clock ticks per second of the CPU times in `/proc/PID/stat`: `USER_HZ`, which Linux fixes
/// at 100 on every architecture it exposes to user space.
const TICKS_PER_SECOND: f64 = 100.0;

/// User plus system CPU time of a `/proc/PID/stat` text, in clock ticks.
pub fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    // The command name may hold spaces and parentheses; the fields after its last ')' are
    // fixed: state is the first of them, utime the 12th and stime the 13th.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let user: u64 = fields.get(11)?.parse().ok()?;
    let system: u64 = fields.get(12)?.parse().ok()?;
    Some(user + system)
}

fn read_cpu_ticks(pid: u32) -> Option<u64> {
    parse_cpu_ticks(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Memory samples of one process.
#[derive(Debug, Clone)]
pub struct RssSeries {
    pub pid: u32,
    /// KiB, one per interval while the process could be read.
    pub samples: Vec<u64>,
    /// Intervals in which the process could not be read.
    pub missed: usize,
    /// CPU ticks and time of the first and the latest reading.
    cpu: Option<((u64, Instant), (u64, Instant))>,
}

impl RssSeries {
    /// A series of memory samples without CPU readings.
    #[cfg(test)]
    pub fn from_samples(pid: u32, samples: Vec<u64>) -> RssSeries {
        RssSeries { pid, samples, missed: 0, cpu: None }
    }

    /// Average CPU cores the process kept busy while sampled (1.0: one core all the time).
    pub fn cores_busy(&self) -> Option<f64> {
        let ((first, since), (last, until)) = self.cpu?;
        let seconds = until.duration_since(since).as_secs_f64();
        (seconds > 0.0).then(|| (last.saturating_sub(first)) as f64 / TICKS_PER_SECOND / seconds)
    }
}

/// Samples `pids` every `interval` until `stop` turns true; the task returns the series.
pub fn spawn_sampler(
    pids: Vec<u32>,
    interval: Duration,
    mut stop: watch::Receiver<bool>,
) -> JoinHandle<Vec<RssSeries>> {
    tokio::spawn(async move {
        let mut series: Vec<RssSeries> = pids
            .iter()
            .map(|&pid| {
                let cpu = read_cpu_ticks(pid).map(|ticks| {
                    let now = Instant::now();
                    ((ticks, now), (ticks, now))
                });
                RssSeries { pid, samples: Vec::new(), missed: 0, cpu }
            })
            .collect();
        let mut ticker = tokio::time::interval(interval);
        loop {
            tokio::select! {
                _ = ticker.tick() => {}
                _ = stop.changed() => break,
            }
            if *stop.borrow() {
                break;
            }
            for one in &mut series {
                match read_rss_kib(one.pid) {
                    Some(kib) => one.samples.push(kib),
                    None => one.missed += 1,
                }
                if let (Some((_, latest)), Some(ticks)) = (&mut one.cpu, read_cpu_ticks(one.pid)) {
                    *latest = (ticks, Instant::now());
                }
            }
        }
        series
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vm_rss_is_read_from_a_status_text() {
        let status = "Name:\tmrtd\nVmPeak:\t  200000 kB\nVmRSS:\t   51234 kB\nThreads:\t9\n";
        assert_eq!(parse_vm_rss(status), Some(51234));
        assert_eq!(parse_vm_rss("Name:\tkthreadd\nThreads:\t1\n"), None);
        assert_eq!(parse_vm_rss("VmRSS:\t12 MB\n"), None);
    }

    #[test]
    fn cpu_ticks_are_read_past_a_command_name_with_spaces() {
        let stat = "4242 (mrtd (serve) x) S 1 4242 4242 0 -1 4194560 2000 0 0 0 730 45 0 0 20 0 9";
        assert_eq!(parse_cpu_ticks(stat), Some(775));
        assert_eq!(parse_cpu_ticks("4242 (short) S 1"), None);
        assert_eq!(parse_cpu_ticks("no parenthesis"), None);
    }

    #[test]
    fn this_process_has_resident_memory() {
        if cfg!(target_os = "linux") {
            let kib = read_rss_kib(std::process::id()).expect("our own VmRSS");
            assert!(kib > 0);
        }
        assert_eq!(read_rss_kib(u32::MAX), None, "no such process");
    }
}
