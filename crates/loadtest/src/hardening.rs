//! The hardening scenarios, each bounded in requests and seconds, on loopback:
//!
//! - `throttle`: behind a trusted proxy (this driver sends `X-Forwarded-For` as one would),
//!   one client sends bad keys while two others send valid ones (one of them from the
//!   same reported address); every valid request must be served.
//! - `slow-url`: calls whose `image_url` points at a server that never answers (one this
//!   driver runs) must not delay another caller's photo by more than a second.
//! - `resource-reads`: N `resources/read` of a large image-directory file at once, while
//!   `tools/list` is probed; the server's peak memory and the probe's p99.
//! - `never-read`: N clients ask for a large resource and never read; the time until the
//!   server has closed them all, and its memory before and after.

use std::{
    collections::HashSet,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use serde_json::json;
use tokio::{
    io::AsyncWriteExt,
    net::{TcpListener, TcpStream},
};

use crate::{
    client::{Connection, Endpoint, PROTOCOL_VERSION, meta, tool_params},
    stats::LatencySummary,
};

/// What the scenarios share.
pub struct Target {
    pub endpoint: Arc<Endpoint>,
    pub api_key: Option<Arc<str>>,
    pub timeout: Duration,
    pub server_pid: Option<u32>,
}

impl Target {
    fn connection(&self) -> Connection {
        Connection::new(self.endpoint.clone(), self.api_key.clone(), self.timeout)
    }
}

/// A scenario's verdict: the figures it printed and the expectations it broke.
pub type Broken = Vec<String>;

/// `throttle`: `seconds` of one client sending a bad key every 100 ms and two sending
/// valid keys every 50 ms, all through "the proxy" (this driver, on loopback).
pub async fn throttle(target: &Target, seconds: f64) -> Broken {
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let list = json!({ "_meta": meta(&json!({})) }).to_string();
    let attacker = {
        let mut bad = Connection::new(target.endpoint.clone(), None, target.timeout)
            .with_header("x-forwarded-for", "198.51.100.1, 203.0.113.7")
            .with_header("authorization", "Bearer mrtd_not-a-valid-key");
        let list = list.clone();
        tokio::spawn(async move {
            let mut statuses = std::collections::BTreeMap::<String, u64>::new();
            while Instant::now() < deadline {
                let kind = match bad.request("tools/list", None, &list).await {
                    Ok(_) => "served".to_owned(),
                    Err(failure) => failure.kind,
                };
                *statuses.entry(kind).or_insert(0) += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            statuses
        })
    };
    let valid: Vec<_> = ["203.0.113.8", "203.0.113.7"]
        .into_iter()
        .map(|address| {
            let mut good = target.connection().with_header("x-forwarded-for", address);
            let list = list.clone();
            tokio::spawn(async move {
                let (mut served, mut failed) = (0u64, 0u64);
                while Instant::now() < deadline {
                    match good.request("tools/list", None, &list).await {
                        Ok(_) => served += 1,
                        Err(_) => failed += 1,
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                (served, failed)
            })
        })
        .collect();
    let statuses = attacker.await.unwrap_or_default();
    let (mut served, mut failed) = (0, 0);
    for client in valid {
        let (s, f) = client.await.unwrap_or((0, 1));
        served += s;
        failed += f;
    }
    let bad: Vec<String> = statuses.iter().map(|(kind, n)| format!("{kind} {n}")).collect();
    println!(
        "throttle: {seconds} s behind a trusted proxy: bad keys from 203.0.113.7 answered {}; \
         valid keys from 203.0.113.7 and .8: {served} served, {failed} failed",
        bad.join(", ")
    );
    println!("RESULT scenario=throttle valid_served={served} valid_failed={failed}");
    let mut broken = Vec::new();
    if failed > 0 || served == 0 {
        broken.push(format!("{failed} valid requests failed behind the proxy ({served} served)"));
    }
    if !statuses.contains_key("http 429") {
        broken.push("the client sending bad keys was never throttled".to_owned());
    }
    broken
}

/// `slow-url`: `stalls` calls whose `image_url` never answers, then another caller's photo.
pub async fn slow_url(target: &Target, photo: &[u8], stalls: usize) -> Broken {
    use base64::Engine as _;
    let listener = match TcpListener::bind("127.0.0.1:0").await {
        Ok(listener) => listener,
        Err(error) => return vec![format!("no loopback port for the stalling server: {error}")],
    };
    let Ok(stalling) = listener.local_addr() else {
        return vec!["the stalling server has no address".to_owned()];
    };
    let (accepted_tx, mut accepted) = tokio::sync::mpsc::unbounded_channel();
    let stall = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
            let _ = accepted_tx.send(());
        }
    });
    let encoded = base64::engine::general_purpose::STANDARD.encode(photo);
    let params =
        tool_params("scan_document", json!({ "image_base64": encoded }), &json!({})).to_string();
    let mut caller = target.connection();
    let started = Instant::now();
    if let Err(failure) = caller.call_tool("scan_document", &params).await {
        stall.abort();
        return vec![format!("the photo alone failed: {} {}", failure.kind, failure.message)];
    }
    let alone = started.elapsed();
    let url = format!("http://{stalling}/slow.jpg");
    let slow: Vec<_> = (0..stalls)
        .map(|_| {
            let mut connection = target.connection();
            let params =
                tool_params("scan_document", json!({ "image_url": url }), &json!({})).to_string();
            tokio::spawn(async move {
                let _ = connection.call_tool("scan_document", &params).await;
            })
        })
        .collect();
    let mut reached = 0;
    while reached < stalls {
        match tokio::time::timeout(Duration::from_secs(10), accepted.recv()).await {
            Ok(Some(())) => reached += 1,
            _ => break,
        }
    }
    let started = Instant::now();
    let outcome = caller.call_tool("scan_document", &params).await;
    let during = started.elapsed();
    for call in slow {
        call.abort();
    }
    stall.abort();
    println!(
        "slow-url: another caller's photo took {:.0} ms with {reached} of {stalls} image_url \
         fetches stalled ({:.0} ms alone)",
        during.as_secs_f64() * 1000.0,
        alone.as_secs_f64() * 1000.0
    );
    println!(
        "RESULT scenario=slow_url delay_ms={:.0}",
        (during.saturating_sub(alone)).as_secs_f64() * 1000.0
    );
    let mut broken = Vec::new();
    if let Err(failure) = outcome {
        broken.push(format!("the photo failed beside stalled fetches: {}", failure.kind));
    }
    if reached < stalls {
        broken.push(format!("only {reached} of {stalls} fetches reached the stalling server"));
    }
    if during > alone + Duration::from_secs(1) {
        broken.push(format!("the photo was delayed {:?} by stalled fetches", during - alone));
    }
    broken
}

/// The raw bytes of one `resources/read` of `uri`.
fn resource_read(endpoint: &Endpoint, api_key: Option<&str>, uri: &str) -> Vec<u8> {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "resources/read",
        "params": { "uri": uri, "_meta": meta(&json!({})) } })
    .to_string();
    let key = api_key.map(|key| format!("X-Api-Key: {key}\r\n")).unwrap_or_default();
    format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: \
         application/json, text/event-stream\r\nMcp-Protocol-Version: {PROTOCOL_VERSION}\r\n\
         Mcp-Method: resources/read\r\nMcp-Name: {uri}\r\n{key}Content-Length: {}\r\n\r\n{body}",
        endpoint.path,
        endpoint.authority,
        body.len()
    )
    .into_bytes()
}

/// `resource-reads`: `reads` reads of `uri` at once, `tools/list` probed every 20 ms.
pub async fn resource_reads(
    target: &Target,
    uri: &str,
    reads: usize,
    max_peak_rss_mib: Option<u64>,
    max_list_p99_ms: Option<f64>,
) -> Broken {
    let done = Arc::new(AtomicBool::new(false));
    let prober = {
        let (mut connection, done) = (target.connection(), done.clone());
        tokio::spawn(async move {
            let params = json!({ "_meta": meta(&json!({})) }).to_string();
            let (mut samples, mut failures) = (Vec::new(), 0u64);
            while !done.load(Ordering::Relaxed) {
                let started = Instant::now();
                match connection.request("tools/list", None, &params).await {
                    Ok(_) => samples.push(started.elapsed().as_micros() as u64),
                    Err(_) => failures += 1,
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            (samples, failures)
        })
    };
    let started = Instant::now();
    let readers: Vec<_> = (0..reads)
        .map(|_| {
            let mut connection = target.connection();
            let params = json!({ "uri": uri, "_meta": meta(&json!({})) }).to_string();
            let uri = uri.to_owned();
            tokio::spawn(async move {
                match connection.request("resources/read", Some(&uri), &params).await {
                    Ok(result) => {
                        let blob = result["contents"][0]["blob"].as_str().map_or(0, str::len);
                        if blob > 0 { "served".to_owned() } else { "empty".to_owned() }
                    }
                    Err(failure) => failure.kind,
                }
            })
        })
        .collect();
    let mut outcomes = std::collections::BTreeMap::<String, u64>::new();
    for reader in readers {
        *outcomes.entry(reader.await.unwrap_or_else(|_| "panic".to_owned())).or_insert(0) += 1;
    }
    let took = started.elapsed();
    done.store(true, Ordering::Relaxed);
    let (samples, list_failures) = prober.await.unwrap_or_default();
    let list = LatencySummary::of(samples);
    let peak = target.server_pid.and_then(peak_rss_kib).map(|kib| kib / 1024);
    let answered: Vec<String> = outcomes.iter().map(|(kind, n)| format!("{kind} {n}")).collect();
    println!(
        "resource-reads: {reads} reads of {uri} at once in {:.1} s: {}",
        took.as_secs_f64(),
        answered.join(", ")
    );
    if let Some(list) = &list {
        println!(
            "tools/list meanwhile: {} calls, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms, {list_failures} failed",
            list.count,
            list.p50 as f64 / 1000.0,
            list.p99 as f64 / 1000.0,
            list.max as f64 / 1000.0
        );
    }
    if let Some(peak) = peak {
        println!("server peak RSS: {peak} MiB");
    }
    let p99_ms = list.as_ref().map(|l| l.p99 as f64 / 1000.0);
    println!(
        "RESULT scenario=resource_reads peak_rss_mib={} list_p99_ms={}",
        peak.map_or("n/a".to_owned(), |p| p.to_string()),
        p99_ms.map_or("n/a".to_owned(), |p| format!("{p:.1}"))
    );
    let mut broken = Vec::new();
    if outcomes.get("served").copied().unwrap_or(0) == 0 {
        broken.push("no read was served".to_owned());
    }
    if list_failures > 0 {
        broken.push(format!("{list_failures} tools/list calls failed"));
    }
    if let (Some(limit), Some(peak)) = (max_peak_rss_mib, peak)
        && peak > limit
    {
        broken.push(format!("peak RSS {peak} MiB is over {limit} MiB"));
    }
    if let (Some(limit), Some(p99)) = (max_list_p99_ms, p99_ms)
        && p99 > limit
    {
        broken.push(format!("tools/list p99 {p99:.1} ms is over {limit} ms"));
    }
    broken
}

/// `never-read`: `clients` connections that ask for `uri` and never read the answer; the
/// server must close them all within `limit` and, once it has, hold at most `max_kept_mib`
/// more than before.
pub async fn never_read(
    target: &Target,
    uri: &str,
    clients: usize,
    limit: Duration,
    max_kept_mib: Option<u64>,
) -> Broken {
    let request = resource_read(&target.endpoint, target.api_key.as_deref(), uri);
    let Some(pid) = target.server_pid else {
        return vec!["never-read needs --server-pid".to_owned()];
    };
    let before = crate::rss::read_rss_kib(pid);
    let started = Instant::now();
    let mut streams = Vec::new();
    let mut ports = HashSet::new();
    for _ in 0..clients {
        match TcpStream::connect(target.endpoint.authority.as_str()).await {
            Ok(mut stream) => {
                let _ = stream.write_all(&request).await;
                ports.extend(stream.local_addr().map(|address| address.port()));
                streams.push(stream);
            }
            Err(error) => return vec![format!("connect: {error}")],
        }
    }
    // The server's ends of these very connections are counted, not all its sockets: a
    // connection of an earlier scenario that closes meanwhile must not hide or fake these.
    let mut peak = 0;
    let mut seen = false;
    let closed = loop {
        let open = server_ends(pid, &ports);
        peak = peak.max(crate::rss::read_rss_kib(pid).unwrap_or(0));
        seen |= open > 0;
        if seen && open == 0 {
            break Some(started.elapsed());
        }
        if started.elapsed() > limit + Duration::from_secs(30) {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    drop(streams);
    let after = crate::rss::read_rss_kib(pid);
    let mib = |kib: Option<u64>| kib.map_or("n/a".to_owned(), |k| (k / 1024).to_string());
    match closed {
        Some(closed) => println!(
            "never-read: {clients} clients that never read {uri} closed after {:.1} s; server \
             memory {} MiB before, peak {} MiB, {} MiB after",
            closed.as_secs_f64(),
            mib(before),
            peak / 1024,
            mib(after)
        ),
        None => println!("never-read: {clients} clients still open after {limit:?} + 30 s"),
    }
    println!(
        "RESULT scenario=never_read closed_s={}",
        closed.map_or("n/a".to_owned(), |c| format!("{:.1}", c.as_secs_f64()))
    );
    let mut broken = match closed {
        Some(closed) if closed <= limit => Vec::new(),
        Some(closed) => vec![format!("the clients were closed after {closed:?}, over {limit:?}")],
        None => vec!["the clients that never read were not closed".to_owned()],
    };
    if let (Some(max_kept), Some(before), Some(after)) = (max_kept_mib, before, after)
        && after.saturating_sub(before) / 1024 > max_kept
    {
        broken.push(format!(
            "the server kept {} MiB more once the clients were closed, over {max_kept} MiB",
            after.saturating_sub(before) / 1024
        ));
    }
    broken
}

/// How many of the sockets process `pid` holds open are connected to one of `ports` on this
/// host (the server's ends of the driver's connections from those ports), from `/proc`.
fn server_ends(pid: u32, ports: &HashSet<u16>) -> usize {
    let held: HashSet<u64> = std::fs::read_dir(format!("/proc/{pid}/fd")).map_or_else(
        |_| HashSet::new(),
        |entries| {
            entries
                .flatten()
                .filter_map(|entry| std::fs::read_link(entry.path()).ok())
                .filter_map(|target| {
                    let target = target.to_string_lossy().into_owned();
                    target.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok()
                })
                .collect()
        },
    );
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|table| std::fs::read_to_string(table).ok())
        .flat_map(|text| {
            text.lines().skip(1).map(|line| connection_of(line, ports, &held)).collect::<Vec<_>>()
        })
        .filter(|&connected| connected)
        .count()
}

/// Whether a line of `/proc/net/tcp` is a socket in `held` whose peer port is in `ports`.
fn connection_of(line: &str, ports: &HashSet<u16>, held: &HashSet<u64>) -> bool {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let (Some(remote), Some(inode)) = (fields.get(2), fields.get(9)) else {
        return false;
    };
    let port = remote.rsplit(':').next().and_then(|port| u16::from_str_radix(port, 16).ok());
    port.is_some_and(|port| ports.contains(&port))
        && inode.parse::<u64>().is_ok_and(|inode| held.contains(&inode))
}

/// `VmHWM` of a process in KiB.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proc_net_tcp_line_is_a_held_connection_from_a_port_of_ours() {
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
        let line = "  3: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 4242 1";
        let ports: HashSet<u16> = [0xC350].into();
        assert!(connection_of(line, &ports, &[4242].into()));
        assert!(!connection_of(line, &ports, &[4243].into()), "another process's socket");
        assert!(!connection_of(line, &[0x1F90].into(), &[4242].into()), "our own end");
        assert!(!connection_of("  sl  local_address", &ports, &[4242].into()));
    }

    #[test]
    fn a_raw_resource_read_is_one_well_formed_request() {
        let endpoint = Endpoint::parse("http://127.0.0.1:8080/mcp").unwrap();
        let bytes = resource_read(&endpoint, Some("mrtd_k"), "mrtd://images/a.jpg");
        let text = String::from_utf8(bytes).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"), "{head}");
        assert!(head.contains("X-Api-Key: mrtd_k\r\n"));
        assert!(head.ends_with(&format!("Content-Length: {}", body.len())), "{head}");
        let message: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(message["params"]["uri"], "mrtd://images/a.jpg");
    }
}
