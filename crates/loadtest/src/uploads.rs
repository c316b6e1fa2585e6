//! Large uploads at once: N connections each send a `scan_document` call of S MiB at the
//! same moment, round after round, while one more connection asks `tools/list` every few
//! milliseconds. Reports how each upload was answered, the `tools/list` latency meanwhile,
//! and the server's peak resident memory (`VmHWM`).
//!
//! The image is base64 of bytes that are no image, so an upload that gets through costs
//! the server its whole body and a failed decode: what a hostile client can make it hold.

use std::{
    collections::BTreeMap,
    sync::Arc,
    time::{Duration, Instant},
};

use bytes::Bytes;
use serde_json::json;

use crate::{
    client::{Connection, Endpoint, tool_params},
    stats::LatencySummary,
};

/// What an upload run does.
pub struct UploadConfig {
    pub endpoint: Arc<Endpoint>,
    pub api_key: Option<Arc<str>>,
    /// Uploads sent at once.
    pub uploads: usize,
    /// Size of each request body in MiB.
    pub mib: usize,
    /// How many times all uploads are sent together.
    pub rounds: usize,
    /// Time between two `tools/list` probes.
    pub probe_interval: Duration,
    /// Any one request's time limit.
    pub timeout: Duration,
    /// The server process, for its peak memory.
    pub server_pid: Option<u32>,
}

/// What an upload run saw.
pub struct UploadReport {
    /// How the uploads were answered: `tool error` (read and refused as no image),
    /// `http 503` (refused for the memory budget) and any failure kind.
    pub outcomes: BTreeMap<String, u64>,
    /// `tools/list` latency during the uploads, in microseconds.
    pub list: Option<LatencySummary>,
    /// `tools/list` probes that failed.
    pub list_failures: u64,
    /// The server's peak resident memory in KiB, when its pid was given.
    pub peak_rss_kib: Option<u64>,
}

/// The answers an upload may get from a server that defends itself.
pub const HANDLED: [&str; 2] = ["tool error", "http 503"];

/// The request body of one upload with JSON-RPC id 1: base64 filling `mib` MiB.
fn upload_body(mib: usize) -> Bytes {
    let envelope = tool_params("scan_document", json!({ "image_base64": "" }), &json!({}));
    let template =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{envelope}}}"#);
    let filler = (mib * 1024 * 1024).saturating_sub(template.len()) / 4 * 4;
    let mut text = String::with_capacity(template.len() + filler);
    let (before, after) = template.split_once(r#""image_base64":"""#).expect("the placeholder");
    text.push_str(before);
    text.push_str(r#""image_base64":""#);
    text.extend(std::iter::repeat_n('A', filler));
    text.push('"');
    text.push_str(after);
    Bytes::from(text)
}

pub async fn run(config: UploadConfig) -> UploadReport {
    let body = upload_body(config.mib);
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let prober = {
        let (endpoint, api_key, done) =
            (config.endpoint.clone(), config.api_key.clone(), done.clone());
        let (interval, timeout) = (config.probe_interval, config.timeout);
        tokio::spawn(async move {
            let mut connection = Connection::new(endpoint, api_key, timeout);
            let params = json!({ "_meta": crate::client::meta(&json!({})) }).to_string();
            let (mut samples, mut failures) = (Vec::new(), 0u64);
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let started = Instant::now();
                match connection.request("tools/list", None, &params).await {
                    Ok(_) => samples.push(started.elapsed().as_micros() as u64),
                    Err(_) => failures += 1,
                }
                tokio::time::sleep(interval).await;
            }
            (samples, failures)
        })
    };
    let mut outcomes = BTreeMap::new();
    for _ in 0..config.rounds.max(1) {
        let senders: Vec<_> = (0..config.uploads.max(1))
            .map(|_| {
                let (endpoint, api_key, body) =
                    (config.endpoint.clone(), config.api_key.clone(), body.clone());
                let timeout = config.timeout;
                tokio::spawn(async move {
                    let mut connection = Connection::new(endpoint, api_key, timeout);
                    match connection
                        .request_prepared("tools/call", Some("scan_document"), body, 1)
                        .await
                    {
                        Ok(result) if result["isError"] == true => "tool error".to_owned(),
                        Ok(_) => "read".to_owned(),
                        Err(failure) => failure.kind,
                    }
                })
            })
            .collect();
        for sender in senders {
            let kind = sender.await.unwrap_or_else(|_| "panic".to_owned());
            *outcomes.entry(kind).or_insert(0) += 1;
        }
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let (samples, list_failures) = prober.await.unwrap_or_default();
    let peak_rss_kib = config.server_pid.and_then(peak_rss_kib);
    UploadReport { outcomes, list: LatencySummary::of(samples), list_failures, peak_rss_kib }
}

/// `VmHWM` of a process in KiB.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

impl UploadReport {
    pub fn print(&self, config_uploads: usize, mib: usize) {
        println!("uploads: {config_uploads} at once, {mib} MiB each");
        for (kind, count) in &self.outcomes {
            println!("  {kind}: {count}");
        }
        match &self.list {
            Some(list) => println!(
                "tools/list meanwhile: {} calls, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms, {} failed",
                list.count,
                list.p50 as f64 / 1000.0,
                list.p99 as f64 / 1000.0,
                list.max as f64 / 1000.0,
                self.list_failures
            ),
            None => println!("tools/list meanwhile: no answer ({} failed)", self.list_failures),
        }
        if let Some(kib) = self.peak_rss_kib {
            println!("server peak RSS: {:.0} MiB", kib as f64 / 1024.0);
        }
    }

    /// The expectations this run broke, as sentences.
    pub fn violations(
        &self,
        max_peak_rss_mib: Option<u64>,
        max_list_p99_ms: Option<f64>,
    ) -> Vec<String> {
        let mut broken = Vec::new();
        for (kind, count) in &self.outcomes {
            if !HANDLED.contains(&kind.as_str()) {
                broken.push(format!("{count} uploads were answered {kind:?}"));
            }
        }
        if self.list_failures > 0 {
            broken.push(format!("{} tools/list calls failed", self.list_failures));
        }
        if let (Some(limit), Some(kib)) = (max_peak_rss_mib, self.peak_rss_kib)
            && kib / 1024 > limit
        {
            broken.push(format!("peak RSS {} MiB is over {limit} MiB", kib / 1024));
        }
        if let Some(limit) = max_list_p99_ms {
            match &self.list {
                Some(list) if list.p99 as f64 / 1000.0 > limit => broken.push(format!(
                    "tools/list p99 {:.1} ms is over {limit} ms",
                    list.p99 as f64 / 1000.0
                )),
                None => broken.push("tools/list was never answered".to_owned()),
                _ => {}
            }
        }
        broken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upload_body_is_a_tool_call_of_the_size_asked() {
        let body = upload_body(1);
        assert!(body.len() <= 1024 * 1024 && body.len() > 1024 * 1024 - 8, "{}", body.len());
        let message: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(message["id"], 1);
        assert_eq!(message["params"]["name"], "scan_document");
        assert!(message["params"]["arguments"]["image_base64"].as_str().unwrap().len() > 1000);
    }
}
