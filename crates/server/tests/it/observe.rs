//! The observability routes and middleware in front of a real `McpEndpoint`: request
//! metrics labelled by JSON-RPC method, health and readiness probes, `/metrics` behind the
//! auth guard, and the trace context of a tool call's span.
//!
//! The Prometheus recorder is global to the process, so every assertion looks for series
//! with labels only its own test produces, and counts only grow.

use crate::auth_common as common;

use std::{
    io::Write,
    sync::{Arc, Mutex},
    time::Duration,
};

use axum::{Router, body::Body};
use common::{Handler, mcp_request, send};
use http::{Request, StatusCode};
use http_body_util::BodyExt;
use mrtd_server::{
    HttpConfig,
    auth::{AuthGuard, AuthMode, AuthSettings, api_key::StaticApiKeys},
    observe::{Observability, Readiness, RequestSpan, tool_call_span},
};
use serde_json::{Value, json};
use tower::ServiceExt;

/// The whole front as `mrtd serve` wires it: probes and `/metrics` inside the guard,
/// the tracking layer outermost.
fn front(mode: AuthMode, readiness: Readiness) -> (Observability, Router) {
    let http = HttpConfig::default();
    let obs = Observability::install(&http).expect("the recorder installs (or is shared)");
    let mut settings = AuthSettings::new(mode);
    settings.rate_limit = None;
    let guard = AuthGuard::new(settings, &http);
    let routes = obs.routes(readiness);
    let router = {
        let endpoint = mrtd_server::McpEndpoint::new(|| Ok(Handler::default()), &http);
        mrtd_server::http::router(endpoint, &http, routes)
    };
    (obs.clone(), obs.track(guard.protect(router)))
}

async fn get(app: &Router, path: &str, headers: &[(&str, &str)]) -> (StatusCode, String) {
    let mut builder = Request::get(path).header("host", "127.0.0.1:8080");
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    let response = app.clone().oneshot(builder.body(Body::empty()).unwrap()).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

/// The value of the series whose line starts with `prefix` (name and labels, in the
/// exporter's order), if present.
fn series(text: &str, prefix: &str) -> Option<f64> {
    text.lines()
        .find(|line| line.starts_with(prefix))
        .and_then(|line| line.rsplit(' ').next().and_then(|value| value.parse().ok()))
}

#[tokio::test]
async fn requests_are_counted_by_json_rpc_method_and_status() {
    let (obs, app) = front(AuthMode::None, Readiness::new());
    let reply = send(&app, mcp_request("tools/list", json!({}), None)).await;
    assert_eq!(reply.status, StatusCode::OK);
    let reply = send(&app, common::tool_call("whoami", json!({}), None)).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    let mut unknown = mcp_request("made/up", json!({}), None);
    *unknown.body_mut() = Body::from(r#"{"jsonrpc":"2.0","id":1,"method":"made/up"}"#);
    send(&app, unknown).await;
    let mut broken = mcp_request("tools/list", json!({}), None);
    *broken.body_mut() = Body::from("{not json");
    assert_eq!(send(&app, broken).await.status, StatusCode::BAD_REQUEST);

    let text = obs.render();
    let count = |labels: &str| series(&text, &format!("mrtd_http_requests_total{{{labels}}}"));
    assert!(count(r#"route="/mcp",method="tools/list",status="200""#) >= Some(1.0), "{text}");
    assert!(count(r#"route="/mcp",method="tools/call",status="200""#) >= Some(1.0));
    assert!(text.contains(r#"route="/mcp",method="other""#), "{text}");
    assert!(count(r#"route="/mcp",method="invalid",status="400""#) >= Some(1.0), "{text}");
    assert!(!text.contains("made/up"), "client text never becomes a label");
    assert!(
        text.contains(r#"mrtd_http_request_duration_seconds_bucket{route="/mcp",method="tools/list",le="0.005"}"#),
        "latency histogram with fixed buckets: {text}"
    );
}

#[tokio::test]
async fn batches_and_requests_refused_unread_get_their_own_labels() {
    let key = "mrtd_observe_label_key";
    let mode = AuthMode::ApiKey(Arc::new(StaticApiKeys::from_secrets([("labels", key)])));
    let (obs, app) = front(mode, Readiness::new());
    // Refused for its credentials before the body is read: whatever the body says.
    let refused = send(&app, mcp_request("tools/list", json!({}), None)).await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    // Refused for its declared length before a byte of it is read.
    let mut too_long = mcp_request("tools/list", json!({}), None);
    too_long.headers_mut().insert("x-api-key", key.parse().unwrap());
    too_long.headers_mut().insert("content-length", (64u64 << 30).into());
    assert_eq!(send(&app, too_long).await.status, StatusCode::PAYLOAD_TOO_LARGE);
    // A batch is refused when authentication is on, once it has been read.
    let mut batch = mcp_request("tools/list", json!({}), None);
    batch.headers_mut().insert("x-api-key", key.parse().unwrap());
    *batch.body_mut() = Body::from(r#"[{"jsonrpc":"2.0","id":1,"method":"made/up/batch"}]"#);
    assert_eq!(send(&app, batch).await.status, StatusCode::BAD_REQUEST);
    // Read, with credentials: labelled by its method.
    let mut ping = mcp_request("ping", json!({}), None);
    ping.headers_mut().insert("x-api-key", key.parse().unwrap());
    let ping = send(&app, ping).await.status.as_u16();

    let text = obs.render();
    let count = |labels: &str| series(&text, &format!("mrtd_http_requests_total{{{labels}}}"));
    assert!(count(r#"route="/mcp",method="unread",status="401""#) >= Some(1.0), "{text}");
    assert!(count(r#"route="/mcp",method="unread",status="413""#) >= Some(1.0), "{text}");
    assert!(count(r#"route="/mcp",method="batch",status="400""#) >= Some(1.0), "{text}");
    let read = format!(r#"route="/mcp",method="ping",status="{ping}""#);
    assert!(count(&read) >= Some(1.0), "{text}");
    assert!(!text.contains("made/up"), "client text never becomes a label");
}

#[tokio::test]
async fn unmatched_paths_share_one_label() {
    let (obs, app) = front(AuthMode::None, Readiness::new());
    let (status, _) = get(&app, "/no/such/path/12345", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let text = obs.render();
    assert!(text.contains(r#"route="unmatched",method="GET",status="404""#), "{text}");
    assert!(!text.contains("12345"));
}

#[tokio::test]
async fn liveness_answers_and_metrics_are_prometheus_text() {
    let (_, app) = front(AuthMode::None, Readiness::new());
    for path in ["/healthz", "/livez"] {
        let (status, body) = get(&app, path, &[]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(serde_json::from_str::<Value>(&body).unwrap(), json!({ "status": "ok" }));
    }
    let response = app
        .clone()
        .oneshot(Request::get("/metrics").header("host", "localhost").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(content_type.starts_with("text/plain; version=0.0.4"), "{content_type}");
    let text =
        String::from_utf8(response.into_body().collect().await.unwrap().to_bytes().into()).unwrap();
    assert!(text.contains("# TYPE mrtd_http_requests_total counter"), "{text}");
}

#[tokio::test]
async fn readiness_follows_its_checks_without_leaking_errors() {
    let healthy = Readiness::new().check("store", || async { Ok::<(), std::io::Error>(()) });
    let (_, app) = front(AuthMode::None, healthy);
    let (status, body) = get(&app, "/readyz", &[]).await;
    assert_eq!(status, StatusCode::OK);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body, json!({ "status": "ready", "checks": { "store": "ok" } }));

    let failing = Readiness::new()
        .check("store", || async { Err::<(), _>("connection refused by 10.1.2.3:5432") })
        .check("cache", || async { Ok::<(), std::io::Error>(()) });
    let (obs, app) = front(AuthMode::None, failing);
    let (status, body) = get(&app, "/readyz", &[]).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(!body.contains("10.1.2.3"), "backend detail stays in the logs: {body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["status"], "not ready");
    assert_eq!(body["reason"], "store check failed");
    assert_eq!(body["checks"], json!({ "store": "failed", "cache": "ok" }));
    assert!(series(&obs.render(), r#"mrtd_readiness_failures_total{check="store"}"#) >= Some(1.0));
}

#[tokio::test(start_paused = true)]
async fn a_hanging_check_times_out() {
    let hanging = Readiness::new().check("slow", || async {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Ok::<(), std::io::Error>(())
    });
    let (_, app) = front(AuthMode::None, hanging);
    let (status, body) = get(&app, "/readyz", &[]).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(body.contains("slow check timed out"), "{body}");
}

#[tokio::test]
async fn metrics_need_credentials_when_auth_is_on_but_probes_do_not() {
    let key = "mrtd_observe_test_key";
    let mode = AuthMode::ApiKey(Arc::new(StaticApiKeys::from_secrets([("scraper", key)])));
    let (_, app) = front(mode, Readiness::new());
    assert_eq!(get(&app, "/metrics", &[]).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(get(&app, "/metrics", &[("x-api-key", key)]).await.0, StatusCode::OK);
    for path in ["/healthz", "/livez", "/readyz"] {
        assert_eq!(get(&app, path, &[]).await.0, StatusCode::OK, "{path}");
    }
}

/// A writer the JSON log formatter writes into, for inspecting span fields.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The span fields of one event logged inside `tool_call_span(...)`.
fn tool_span_fields(traceparent: Option<&str>, tracestate: Option<&str>) -> Value {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .json()
        .with_current_span(true)
        .with_span_list(true)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let request = tracing::info_span!("request");
        let span =
            tool_call_span("scan_document", traceparent, tracestate, Some(&RequestSpan(request)));
        span.in_scope(|| tracing::info!("inside"));
    });
    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let line: Value = serde_json::from_str(text.lines().next().expect("one event")).unwrap();
    let spans = line["spans"].as_array().unwrap().clone();
    assert_eq!(spans[0]["name"], "request", "the tool call is a child of the request: {line}");
    line["span"].clone()
}

#[test]
fn tool_call_spans_continue_a_valid_trace_only() {
    let good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let fields = tool_span_fields(Some(good), Some("vendor=abc,other=1"));
    assert_eq!(fields["name"], "tool_call");
    assert_eq!(fields["tool"], "scan_document");
    assert_eq!(fields["trace_id"], "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(fields["parent_span_id"], "00f067aa0ba902b7");
    assert_eq!(fields["trace_sampled"], true);
    assert_eq!(fields["tracestate"], "vendor=abc,other=1");

    let uppercase = "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01";
    for bad in [uppercase, "garbage", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"] {
        let fields = tool_span_fields(Some(bad), Some("vendor=abc"));
        assert_eq!(fields.get("trace_id"), None, "{bad}");
        assert_eq!(fields.get("tracestate"), None, "no tracestate without a traceparent");
    }
    let fields = tool_span_fields(Some(good), Some("Bad Key=1"));
    assert_eq!(fields["trace_id"], "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(fields.get("tracestate"), None, "an invalid tracestate alone is dropped");
}
