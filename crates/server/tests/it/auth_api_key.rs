//! API keys, the no-auth mode, the REST side of the guard, and the limits.

use crate::auth_common as common;

use std::sync::Arc;

use axum::{Extension, Router, body::Body, routing::get};
use common::*;
use http::{Request, StatusCode};
use mrtd_server::{
    HttpConfig,
    auth::{
        AuthGuard, AuthMode, AuthSettings, Principal, RateLimit, api_key::StaticApiKeys,
        generate_api_key,
    },
};
use serde_json::json;

/// The MCP endpoint plus a REST route and a public route, all behind the guard.
fn server(mut settings: AuthSettings) -> Router {
    settings.access = access_rules();
    let http = HttpConfig::default();
    let guard = AuthGuard::new(settings, &http);
    app(Handler::default(), &http, |router| {
        let router = router
            .route(
                "/v1/scans",
                get(|Extension(p): Extension<Principal>| async move { p.0 })
                    .delete(|| async { "gone" }),
            )
            .route("/healthz", get(|| async { "ok" }));
        guard.protect(router)
    })
}

fn with_key(mut request: Request<Body>, header: &str, value: &str) -> Request<Body> {
    request
        .headers_mut()
        .insert(header.parse::<http::HeaderName>().unwrap(), value.parse().unwrap());
    request
}

fn rest(method: &str, key: Option<&str>) -> Request<Body> {
    let mut builder =
        Request::builder().method(method).uri("/v1/scans").header("host", "localhost:8080");
    if let Some(key) = key {
        builder = builder.header("authorization", format!("Bearer {key}"));
    }
    builder.body(Body::empty()).unwrap()
}

fn key_server() -> (Router, String) {
    let key = generate_api_key();
    let keys = StaticApiKeys::from_secrets([("ci", key.as_str())]);
    (server(AuthSettings::new(AuthMode::ApiKey(Arc::new(keys)))), key)
}

#[tokio::test]
async fn api_key_in_either_header_names_the_principal() {
    let (app, key) = key_server();
    let reply = send(&app, tool_call("whoami", json!({}), Some(&key))).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    assert_eq!(reply.tool_text(), "key:ci");
    let request = with_key(tool_call("whoami", json!({}), None), "x-api-key", &key);
    assert_eq!(send(&app, request).await.tool_text(), "key:ci");
}

#[tokio::test]
async fn missing_or_wrong_api_key_gets_401() {
    let (app, key) = key_server();
    let reply = send(&app, tool_call("whoami", json!({}), None)).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(reply.header("www-authenticate"), "Bearer realm=\"mrtd\"");
    assert_eq!(reply.body["error"]["code"], -32001);
    let wrong = generate_api_key();
    let reply = send(&app, tool_call("whoami", json!({}), Some(&wrong))).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert!(reply.header("www-authenticate").contains("invalid_token"));
    // The key must be the whole header value, not a prefix of it.
    let reply = send(&app, tool_call("whoami", json!({}), Some(&format!("{key}x")))).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn rest_routes_are_guarded_and_public_routes_are_not() {
    let (app, key) = key_server();
    let reply = send(&app, rest("GET", None)).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(reply.body["error"]["status"], 401);
    let request = rest("GET", Some(&key));
    let response = tower::ServiceExt::oneshot(app.clone(), request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body = http_body_util::BodyExt::collect(response.into_body()).await.unwrap().to_bytes();
    assert_eq!(&body[..], b"key:ci");
    assert_eq!(send(&app, rest("DELETE", Some(&key))).await.status, StatusCode::OK);
    let health = Request::get("/healthz").header("host", "localhost").body(Body::empty()).unwrap();
    assert_eq!(send(&app, health).await.status, StatusCode::OK);
    // A foreign Origin is refused on the REST side too.
    let request = with_key(rest("GET", Some(&key)), "origin", "https://evil.example");
    assert_eq!(send(&app, request).await.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn batches_are_refused_when_authentication_is_on() {
    let (app, key) = key_server();
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami"}},
    ]);
    let request = Request::post("/mcp")
        .header("host", "127.0.0.1")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-03-26")
        .header("authorization", format!("Bearer {key}"))
        .body(Body::from(batch.to_string()))
        .unwrap();
    let reply = send(&app, request).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.body["error"]["code"], -32600);
}

#[tokio::test]
async fn no_auth_mode_serves_the_local_principal() {
    let app = server(AuthSettings::new(AuthMode::None));
    let reply = send(&app, tool_call("whoami", json!({}), None)).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.tool_text(), "local");
}

#[tokio::test]
async fn rate_limit_answers_429_with_retry_after_per_principal() {
    let key_a = generate_api_key();
    let key_b = generate_api_key();
    let keys = StaticApiKeys::from_secrets([("a", key_a.as_str()), ("b", key_b.as_str())]);
    let mut settings = AuthSettings::new(AuthMode::ApiKey(Arc::new(keys)));
    settings.rate_limit = Some(RateLimit { per_second: 0.5, burst: 2 });
    let app = server(settings);
    for _ in 0..2 {
        assert_eq!(
            send(&app, tool_call("whoami", json!({}), Some(&key_a))).await.status,
            StatusCode::OK
        );
    }
    let reply = send(&app, tool_call("whoami", json!({}), Some(&key_a))).await;
    assert_eq!(reply.status, StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = reply.header("retry-after").parse().expect("Retry-After in seconds");
    assert!((1..=2).contains(&retry), "{retry}");
    assert_eq!(reply.body["jsonrpc"], "2.0");
    assert_eq!(reply.body["error"]["code"], -32000);
    assert_eq!(reply.body["error"]["data"]["retryAfter"], retry);
    // Another caller has its own budget.
    assert_eq!(
        send(&app, tool_call("whoami", json!({}), Some(&key_b))).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn the_guard_names_whose_turn_a_callers_recognitions_wait_in() {
    // Without authentication every caller is the same principal: each client address gets
    // its own turn, so one client's burst does not queue the others behind it.
    let app = server(AuthSettings::new(AuthMode::None));
    let turn = |peer: &str| {
        let app = app.clone();
        let request = from_peer(tool_call("turn", json!({}), None), peer);
        async move { send(&app, request).await.tool_text().to_owned() }
    };
    let first = turn("127.0.0.1:40001").await;
    assert!(first.starts_with("address:"), "{first}");
    assert_eq!(turn("127.0.0.1:40002").await, first, "the port is not part of the address");
    assert_ne!(turn("127.0.0.2:40001").await, first, "another address, another turn");
    // With API keys the turn is the key's principal, wherever it calls from.
    let (app, key) = key_server();
    for peer in ["127.0.0.1:40001", "127.0.0.2:40001"] {
        let request = from_peer(tool_call("turn", json!({}), Some(&key)), peer);
        assert_eq!(send(&app, request).await.tool_text(), "key:ci");
    }
}

/// Admits a recognition when `free` is set, else says to retry after 7 seconds; counts the
/// callers it was asked about.
struct TestAdmission {
    free: std::sync::atomic::AtomicBool,
    asked: std::sync::Mutex<Vec<String>>,
}

impl mrtd_server::auth::Admit for TestAdmission {
    fn admit<'a>(
        &'a self,
        caller: &'a str,
        _: &'a mut http::Extensions,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<(), std::time::Duration>> + Send + 'a>,
    > {
        self.asked.lock().unwrap().push(caller.to_owned());
        let free = self.free.load(std::sync::atomic::Ordering::SeqCst);
        Box::pin(async move { if free { Ok(()) } else { Err(std::time::Duration::from_secs(7)) } })
    }
}

#[tokio::test]
async fn a_recognition_the_admission_refuses_gets_503_and_other_calls_pass() {
    let admission = Arc::new(TestAdmission {
        free: std::sync::atomic::AtomicBool::new(false),
        asked: std::sync::Mutex::new(Vec::new()),
    });
    let mut settings = AuthSettings::new(AuthMode::None);
    settings.admission = Some(mrtd_server::auth::Admission(admission.clone()));
    let app = server(settings);
    let request = from_peer(tool_call("scan_document", json!({}), None), "127.0.0.1:40001");
    let reply = send(&app, request).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(reply.header("retry-after"), "7");
    assert_eq!(reply.body["error"]["code"], -32000);
    assert_eq!(reply.body["id"], 7);
    // Calls that read no photo are not asked about.
    assert_eq!(send(&app, tool_call("whoami", json!({}), None)).await.status, StatusCode::OK);
    assert_eq!(*admission.asked.lock().unwrap(), ["address:127.0.0.1"]);
    admission.free.store(true, std::sync::atomic::Ordering::SeqCst);
    let reply = send(&app, tool_call("scan_document", json!({}), None)).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    assert!(reply.tool_text().starts_with("scn_"));
}

/// A request as if it came from `peer` over a real connection.
fn from_peer(mut request: Request<Body>, peer: &str) -> Request<Body> {
    let address: std::net::SocketAddr = peer.parse().unwrap();
    request.extensions_mut().insert(axum::extract::ConnectInfo(address));
    request
}

#[tokio::test]
async fn a_valid_key_is_served_from_an_address_throttled_for_bad_keys() {
    let key = generate_api_key();
    let keys = StaticApiKeys::from_secrets([("ci", key.as_str())]);
    let mut settings = AuthSettings::new(AuthMode::ApiKey(Arc::new(keys)));
    settings.failure_limit = Some(RateLimit { per_second: 0.01, burst: 3 });
    let app = server(settings);
    // Behind a proxy every client has the proxy's address: one client's bad keys...
    let proxy = "192.0.2.7:40000";
    let mut statuses = Vec::new();
    for _ in 0..5 {
        let wrong = generate_api_key();
        let reply =
            send(&app, from_peer(tool_call("whoami", json!({}), Some(&wrong)), proxy)).await;
        statuses.push(reply.status.as_u16());
    }
    assert_eq!(statuses, [401, 401, 401, 429, 429]);
    let missing = send(&app, from_peer(tool_call("whoami", json!({}), None), proxy)).await;
    assert_eq!(missing.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(missing.header("retry-after").parse::<u64>().is_ok());
    // ...do not lock out another client that sends a valid key.
    let reply = send(&app, from_peer(tool_call("whoami", json!({}), Some(&key)), proxy)).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    assert_eq!(reply.tool_text(), "key:ci");
    let rest = send(&app, from_peer(rest("GET", Some(&key)), proxy)).await;
    assert_eq!(rest.status, StatusCode::OK);
    // Bad keys from that address are still refused.
    let wrong = generate_api_key();
    let reply = send(&app, from_peer(tool_call("whoami", json!({}), Some(&wrong)), proxy)).await;
    assert_eq!(reply.status, StatusCode::TOO_MANY_REQUESTS);
    // Another address has its own count.
    let reply =
        send(&app, from_peer(tool_call("whoami", json!({}), Some(&wrong)), "192.0.2.8:1")).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn ipv6_failures_are_counted_per_64() {
    let key = generate_api_key();
    let keys = StaticApiKeys::from_secrets([("ci", key.as_str())]);
    let mut settings = AuthSettings::new(AuthMode::ApiKey(Arc::new(keys)));
    settings.failure_limit = Some(RateLimit { per_second: 0.01, burst: 2 });
    let app = server(settings);
    let bad = |peer: &'static str| {
        let app = app.clone();
        async move {
            let wrong = generate_api_key();
            send(&app, from_peer(tool_call("whoami", json!({}), Some(&wrong)), peer)).await.status
        }
    };
    // Two addresses in one /64 share one count.
    assert_eq!(bad("[2001:db8:1:2::1]:1").await, StatusCode::UNAUTHORIZED);
    assert_eq!(bad("[2001:db8:1:2:ffff:ffff:ffff:fffe]:2").await, StatusCode::UNAUTHORIZED);
    assert_eq!(bad("[2001:db8:1:2:abcd::9]:3").await, StatusCode::TOO_MANY_REQUESTS);
    // The neighbouring /64 has its own.
    assert_eq!(bad("[2001:db8:1:3::1]:4").await, StatusCode::UNAUTHORIZED);
    // An IPv4 client on a dual-stack socket is counted as its IPv4 address.
    assert_eq!(bad("198.51.100.1:5").await, StatusCode::UNAUTHORIZED);
    assert_eq!(bad("[::ffff:198.51.100.1]:6").await, StatusCode::UNAUTHORIZED);
    assert_eq!(bad("198.51.100.1:7").await, StatusCode::TOO_MANY_REQUESTS);
}
