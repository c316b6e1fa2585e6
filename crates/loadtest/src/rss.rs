//! Samples a server's resident memory (`VmRSS` in `/proc/PID/status`) during a run.

use std::time::Duration;

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

/// Memory samples of one process.
#[derive(Debug, Clone)]
pub struct RssSeries {
    pub pid: u32,
    /// KiB, one per interval while the process could be read.
    pub samples: Vec<u64>,
    /// Intervals in which the process could not be read.
    pub missed: usize,
}

/// Samples `pids` every `interval` until `stop` turns true; the task returns the series.
pub fn spawn_sampler(
    pids: Vec<u32>,
    interval: Duration,
    mut stop: watch::Receiver<bool>,
) -> JoinHandle<Vec<RssSeries>> {
    tokio::spawn(async move {
        let mut series: Vec<RssSeries> =
            pids.iter().map(|&pid| RssSeries { pid, samples: Vec::new(), missed: 0 }).collect();
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
    fn this_process_has_resident_memory() {
        if cfg!(target_os = "linux") {
            let kib = read_rss_kib(std::process::id()).expect("our own VmRSS");
            assert!(kib > 0);
        }
        assert_eq!(read_rss_kib(u32::MAX), None, "no such process");
    }
}
