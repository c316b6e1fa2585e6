//! Metrics, probes and trace context through the real `mrtd serve`: what a scan records in
//! `/metrics`, the health probes, and a caller's `traceparent` in the JSON logs.

use crate::support;

use std::{
    net::SocketAddr,
    process::{Child, Stdio},
    sync::{Arc, Mutex},
    time::Duration,
};

use serde_json::{Value, json};
use support::{PASSPORT, image_base64, transport};

const MODERN: &str = "2026-07-28";
const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/// `mrtd serve` with JSON logs; every stderr line is kept for inspection.
struct Server {
    child: Child,
    addr: SocketAddr,
    logs: Arc<Mutex<Vec<String>>>,
    _data_dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Server {
    start_logging(&["--log-format", "json"], Some("warn,mrtd_server=info,mrtd_mcp=debug"))
}

/// `mrtd serve` with extra arguments and `RUST_LOG` (unset with `None`), its log kept.
fn start_logging(args: &[&str], rust_log: Option<&str>) -> Server {
    let data_dir = tempfile::tempdir().unwrap();
    let mut command = support::serve_command(data_dir.path());
    command.args(args).args(["--listen", "127.0.0.1:0"]).env_remove("RUST_LOG");
    if let Some(filter) = rust_log {
        command.env("RUST_LOG", filter);
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mrtd serve starts");
    let stderr = child.stderr.take().unwrap();
    let logs = Arc::new(Mutex::new(Vec::new()));
    let kept = logs.clone();
    let addr = support::announced_address(stderr, move |line| kept.lock().unwrap().push(line));
    Server { child, addr, logs, _data_dir: data_dir }
}

fn call(addr: SocketAddr, id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "traceparent": TRACEPARENT,
        "tracestate": "vendor=opaque",
    });
    let mut headers =
        vec![("MCP-Protocol-Version", MODERN.to_owned()), ("Mcp-Method", method.to_owned())];
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        headers.push(("Mcp-Name", name.to_owned()));
    }
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    let reply = transport::post(addr, &headers, &body);
    assert_eq!(reply.status, 200, "{method}");
    reply.messages.into_iter().find(|m| m["id"] == json!(id)).expect("a reply")
}

/// The value of the series `name{labels}` (labels exactly as the exporter prints them).
fn metric(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find(|line| line.starts_with(series) && line[series.len()..].starts_with(' '))
        .and_then(|line| line.rsplit(' ').next())
        .and_then(|value| value.parse().ok())
}

#[test]
fn metrics_probes_and_trace_context_end_to_end() {
    let server = start();
    let addr = server.addr;

    for path in ["/healthz", "/livez"] {
        let reply = transport::request(addr, "GET", path, &[], "");
        assert_eq!(reply.status, 200, "{path}");
        assert_eq!(reply.json()["status"], "ok");
    }
    let ready = transport::request(addr, "GET", "/readyz", &[], "");
    assert_eq!(ready.status, 200, "{}", ready.body);
    assert_eq!(ready.json(), json!({ "status": "ready", "checks": { "store": "ok" } }));

    call(addr, 1, "tools/list", json!({}));
    let scan = call(
        addr,
        2,
        "tools/call",
        json!({ "name": "scan_document", "arguments": { "image_base64": image_base64(PASSPORT) } }),
    );
    assert_eq!(scan["result"]["structuredContent"]["status"], "read", "{scan}");
    let unknown = call(addr, 3, "tools/call", json!({ "name": "no_such_tool", "arguments": {} }));
    assert!(unknown.get("error").is_some(), "{unknown}");

    let reply = transport::request(addr, "GET", "/metrics", &[], "");
    assert_eq!(reply.status, 200);
    assert!(reply.header("content-type").unwrap_or("").starts_with("text/plain"));
    let text = reply.body;
    let value = |series: &str| metric(&text, series).unwrap_or_else(|| panic!("{series}:\n{text}"));
    assert_eq!(
        value(r#"mrtd_http_requests_total{route="/mcp",method="tools/list",status="200"}"#),
        1.0
    );
    assert_eq!(
        value(r#"mrtd_http_requests_total{route="/mcp",method="tools/call",status="200"}"#),
        2.0
    );
    assert_eq!(
        value(r#"mrtd_http_requests_total{route="/readyz",method="GET",status="200"}"#),
        1.0
    );
    assert!(
        value(r#"mrtd_http_request_duration_seconds_count{route="/mcp",method="tools/call"}"#)
            >= 2.0
    );
    assert_eq!(value(r#"mrtd_recognition_duration_seconds_count{outcome="read"}"#), 1.0);
    assert!(value(r#"mrtd_recognition_duration_seconds_sum{outcome="read"}"#) > 0.0);
    assert_eq!(value("mrtd_recognition_queue_depth"), 0.0, "nothing waits after the scan");
    assert_eq!(value("mrtd_recognitions_running"), 0.0);
    assert_eq!(value(r#"mrtd_tool_calls_total{tool="scan_document",outcome="ok"}"#), 1.0);
    assert_eq!(value(r#"mrtd_tool_calls_total{tool="unknown",outcome="protocol_error"}"#), 1.0);
    assert!(!text.contains("no_such_tool"), "client text never becomes a label");
    // The process and the build: resident memory and CPU time read at the scrape, the version.
    assert!(value("process_resident_memory_bytes") > 1_000_000.0, "{text}");
    assert!(metric(&text, "process_cpu_seconds_total").is_some(), "{text}");
    assert!(value("process_threads") >= 1.0);
    let version = format!(r#"mrtd_build_info{{version="{}"}}"#, env!("CARGO_PKG_VERSION"));
    assert_eq!(value(&version), 1.0);
    // The scrape itself is counted once it has been answered.
    let again = transport::request(addr, "GET", "/metrics", &[], "").body;
    assert_eq!(
        metric(&again, r#"mrtd_http_requests_total{route="/metrics",method="GET",status="200"}"#),
        Some(1.0)
    );

    // The scan's log line carries the caller's trace, inside the HTTP request's span. The
    // server's stderr is read by another thread: wait for the line rather than race it.
    let scan_log = |logs: &[String]| {
        logs.iter()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|line| line["fields"]["message"] == "tool call finished")
            .find(|line| line["span"]["tool"] == "scan_document")
    };
    let waited = std::time::Instant::now();
    let (logs, scan_line) = loop {
        let logs = server.logs.lock().unwrap().clone();
        if let Some(line) = scan_log(&logs) {
            break (logs, line);
        }
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(20),
            "no log of the scan's tool call in:\n{}",
            logs.join("\n")
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(scan_line["span"]["trace_id"], "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(scan_line["span"]["parent_span_id"], "00f067aa0ba902b7");
    assert_eq!(scan_line["span"]["tracestate"], "vendor=opaque");
    assert_eq!(scan_line["spans"][0]["name"], "request", "{scan_line}");
    assert_eq!(scan_line["fields"]["outcome"], "ok");
    let log_text = logs.join("\n");
    assert!(!log_text.contains("L898902C3"), "document fields never reach the logs");
}

#[test]
fn the_default_log_has_one_access_line_per_request_and_no_protocol_chatter() {
    let server = start_logging(&[], None);
    let addr = server.addr;
    call(addr, 1, "tools/list", json!({}));
    let scan =
        json!({ "name": "scan_document", "arguments": { "image_base64": image_base64(PASSPORT) } });
    call(addr, 2, "tools/call", scan);
    let probe = transport::request(addr, "GET", "/healthz", &[], "");
    assert_eq!(probe.status, 200);
    let rest = transport::request(addr, "GET", "/v1/scans/scn_unknown", &[], "");
    assert_eq!(rest.status, 404);
    // The lines are written as the requests finish; give the reader thread a moment.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let access = |logs: &[String]| logs.iter().filter(|l| l.contains("mrtd::access")).count();
    while access(&server.logs.lock().unwrap()) < 3 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let logs = server.logs.lock().unwrap().clone();
    let lines: Vec<&String> = logs.iter().filter(|l| l.contains("mrtd::access")).collect();
    // One per request but the health probe, which is logged at debug.
    assert_eq!(lines.len(), 3, "one access line per request: {logs:#?}");
    assert!(!lines.iter().any(|l| l.contains("/healthz")), "{lines:#?}");
    assert!(
        lines.iter().any(
            |l| l.contains("rpc.method=\"tools/call\"") && l.contains("tool=\"scan_document\"")
        ),
        "the access line names the tool called: {lines:#?}"
    );
    for line in &lines {
        // Each field once, the latency in tenths of a millisecond.
        for field in ["http.route=", "http.status=", "latency_ms=", "principal="] {
            assert_eq!(line.matches(field).count(), 1, "{field} in {line}");
        }
        let latency = line.split("latency_ms=").nth(1).expect("a latency");
        let latency = latency.split(|c: char| c != '.' && !c.is_ascii_digit()).next().unwrap();
        assert!(latency.split('.').nth(1).is_none_or(|tenths| tenths.len() <= 1), "{line}");
    }
    assert!(lines.iter().any(|l| l.contains("/v1/scans/{id}") && l.contains("404")), "{lines:#?}");
    assert!(lines.iter().any(|l| l.contains("principal=\"local\"")), "{lines:#?}");
    // The settings it runs with, once, at start, without the database's URL.
    let effective: Vec<&String> =
        logs.iter().filter(|l| l.contains("effective configuration")).collect();
    assert_eq!(effective.len(), 1, "{logs:#?}");
    for field in ["store=\"sqlite\"", "auth=", "max_decoded_megapixels=", "response_timeout_secs="]
    {
        assert!(effective[0].contains(field), "{field} in {}", effective[0]);
    }
    assert!(!effective[0].contains("sqlite:"), "no database URL: {}", effective[0]);
    for line in &logs {
        assert!(!line.contains("rmcp"), "the protocol library stays quiet by default: {line}");
        for document_data in ["ERIKSSON", "L898902C3", "scn_unknown"] {
            assert!(!line.contains(document_data), "{document_data} in the log: {line}");
        }
        assert!(!line.contains('\u{1b}'), "no colour codes when stderr is no terminal: {line}");
    }
}
