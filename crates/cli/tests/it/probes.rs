//! Health probes and metrics as `mrtd serve` wires them, through the real binary.

use crate::support;

use support::{ServerProcess, transport::request};

#[test]
fn probes_answer_and_metrics_count_requests() {
    let server = ServerProcess::http(&[]);
    let addr = server.addr.expect("an HTTP server");
    for path in ["/healthz", "/livez", "/readyz"] {
        let reply = request(addr, "GET", path, &[], "");
        assert_eq!(reply.status, 200, "{path}: {}", reply.body);
    }
    let parse = serde_json::json!({ "lines": [support::MRZ_LINE1, support::MRZ_LINE2] });
    let parsed = request(
        addr,
        "POST",
        "/v1/parse",
        &[("Content-Type", "application/json")],
        &parse.to_string(),
    );
    assert_eq!(parsed.status, 200);
    let metrics = request(addr, "GET", "/metrics", &[], "");
    assert_eq!(metrics.status, 200);
    let counted = metrics
        .body
        .lines()
        .find(|l| l.starts_with("mrtd_http_requests_total") && l.contains("/v1/parse"))
        .unwrap_or_else(|| panic!("no request counter for /v1/parse:\n{}", metrics.body));
    assert!(counted.ends_with(" 1"), "{counted}");
}

#[test]
fn metrics_need_credentials_when_the_server_does_and_probes_do_not() {
    let server = ServerProcess::http(&["--auth", "api-key"]);
    let addr = server.addr.expect("an HTTP server");
    assert_eq!(request(addr, "GET", "/metrics", &[], "").status, 401);
    assert_eq!(request(addr, "GET", "/healthz", &[], "").status, 200);
    assert_eq!(request(addr, "GET", "/readyz", &[], "").status, 200);
}
