//! The web routes as `mrtd serve` wires them, through the real binary: the discovery
//! document at `GET /`, the page, the REST API next to the MCP endpoint.

use crate::support;

use support::{MRZ_LINE1, MRZ_LINE2, PASSPORT_NUMBER, ServerProcess, transport::request};

#[test]
fn get_root_answers_the_discovery_document_to_programs_and_the_page_to_browsers() {
    let server = ServerProcess::http(&[]);
    let addr = server.addr.expect("an HTTP server");
    let reply = request(addr, "GET", "/", &[("Accept", "application/json")], "");
    assert_eq!(reply.status, 200);
    assert!(reply.header("content-type").is_some_and(|t| t.starts_with("application/json")));
    let document = reply.json();
    assert_eq!(document["name"], "mrtd");
    assert_eq!(document["endpoint"], "/mcp");
    assert_eq!(document["stateless"], true);
    assert!(
        document["protocolVersions"].as_array().is_some_and(|v| v.contains(&"2026-07-28".into()))
    );

    let page = request(addr, "GET", "/", &[("Accept", "text/html")], "");
    assert_eq!(page.status, 200);
    assert!(page.header("content-type").is_some_and(|t| t.starts_with("text/html")));
    assert!(page.body.contains("<html") || page.body.contains("<!doctype html"), "{}", page.body);
}

#[test]
fn post_v1_parse_reads_typed_lines() {
    let server = ServerProcess::http(&[]);
    let addr = server.addr.expect("an HTTP server");
    let body = serde_json::json!({ "lines": [MRZ_LINE1, MRZ_LINE2] }).to_string();
    let reply = request(addr, "POST", "/v1/parse", &[("Content-Type", "application/json")], &body);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let reading = reply.json();
    assert_eq!(reading["fields"]["document_number"], PASSPORT_NUMBER);
    assert_eq!(reading["valid"], true);

    let garbage = serde_json::json!({ "lines": ["hello", "world"] }).to_string();
    let refused =
        request(addr, "POST", "/v1/parse", &[("Content-Type", "application/json")], &garbage);
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert_eq!(refused.json()["error"]["code"], "not_mrz");
}

#[test]
fn the_rest_api_needs_a_key_when_the_server_does() {
    let server = ServerProcess::http(&["--auth", "api-key"]);
    let addr = server.addr.expect("an HTTP server");
    let body = serde_json::json!({ "lines": [MRZ_LINE1, MRZ_LINE2] }).to_string();
    let reply = request(addr, "POST", "/v1/parse", &[("Content-Type", "application/json")], &body);
    assert_eq!(reply.status, 401, "{}", reply.body);
    // The discovery document stays public.
    let root = request(addr, "GET", "/", &[("Accept", "application/json")], "");
    assert_eq!(root.status, 200);
}

#[test]
fn pages_on_allowed_origins_may_call_the_rest_api_and_others_may_not() {
    let server = ServerProcess::http(&["--allowed-origin", "https://app.example"]);
    let addr = server.addr.expect("an HTTP server");
    let preflight = |origin: &str| {
        request(
            addr,
            "OPTIONS",
            "/v1/scans",
            &[
                ("Origin", origin),
                ("Access-Control-Request-Method", "POST"),
                ("Access-Control-Request-Headers", "content-type"),
            ],
            "",
        )
    };
    let allowed = preflight("https://app.example");
    assert!(allowed.status < 300, "{}: {}", allowed.status, allowed.body);
    assert_eq!(allowed.header("access-control-allow-origin"), Some("https://app.example"));
    let methods = allowed.header("access-control-allow-methods").unwrap_or("").to_ascii_uppercase();
    assert!(methods.contains("POST"), "{methods}");
    let refused = preflight("https://evil.example");
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(refused.header("access-control-allow-origin").is_none());

    let listed = request(addr, "GET", "/v1/scans", &[("Origin", "https://app.example")], "");
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert_eq!(listed.header("access-control-allow-origin"), Some("https://app.example"));
    let foreign = request(addr, "GET", "/v1/scans", &[("Origin", "https://evil.example")], "");
    assert_eq!(foreign.status, 403);
}
