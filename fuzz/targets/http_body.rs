//! Fuzzes what the HTTP front does with a request body: any bytes POSTed to the MCP
//! endpoint get a well-formed answer (never a 5xx, always a JSON-RPC body when an error).
//!
//! The first byte picks the request's headers (protocol revision, `Accept`,
//! `Content-Type`); the rest is the body.

#![no_main]

use std::sync::OnceLock;

use axum::body::Body;
use http::{Method, Request};
use http_body_util::BodyExt;
use libfuzzer_sys::fuzz_target;
use mrtd_server::{HttpConfig, McpEndpoint};
use serde_json::Value;

/// A handler with rmcp's default answers: enough to reach every parsing path.
#[derive(Clone)]
struct Handler;

impl rmcp::ServerHandler for Handler {}

struct Fixture {
    runtime: tokio::runtime::Runtime,
    endpoint: McpEndpoint,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let runtime =
            tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        let config = HttpConfig { max_body_bytes: 64 * 1024, ..HttpConfig::default() };
        let endpoint = runtime.block_on(async { McpEndpoint::new(|| Ok(Handler), &config) });
        Fixture { runtime, endpoint }
    })
}

const VERSIONS: [Option<&str>; 4] =
    [None, Some("2025-03-26"), Some("2025-06-18"), Some("2026-07-28")];
const ACCEPTS: [Option<&str>; 4] = [
    None,
    Some("application/json, text/event-stream"),
    Some("application/json"),
    Some("text/html"),
];
const CONTENT_TYPES: [&str; 4] =
    ["application/json", "application/json; charset=utf-8", "text/plain", "APPLICATION/JSON"];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else { return };

    let mut request = Request::builder()
        .method(Method::POST)
        .uri("/mcp")
        .header("host", "127.0.0.1")
        .header("content-type", CONTENT_TYPES[usize::from(selector >> 4) % 4]);
    if let Some(version) = VERSIONS[usize::from(selector) % 4] {
        request = request.header("mcp-protocol-version", version);
    }
    if let Some(accept) = ACCEPTS[usize::from(selector >> 2) % 4] {
        request = request.header("accept", accept);
    }
    let request = request.body(Body::from(body.to_vec())).expect("a request");
    let fixture = fixture();
    let (status, content_type, bytes) = fixture.runtime.block_on(async {
        let response = fixture.endpoint.handle(request).await;
        let status = response.status();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let bytes = response.into_body().collect().await.map(|c| c.to_bytes()).unwrap_or_default();
        (status, content_type, bytes)
    });
    assert!(!status.is_server_error(), "status {status} for {:?}", String::from_utf8_lossy(body));
    if status.is_client_error() {
        assert!(content_type.starts_with("application/json"), "{status} as {content_type}");
        let error: Value = serde_json::from_slice(&bytes).expect("a JSON error body");
        assert!(error["error"]["code"].is_i64(), "{error}");
    }
});
