//! What the MCP endpoint answers to a body on its own, without the guard `mrtd serve` puts
//! in front (the guard parses every body itself): anything that is not JSON is a parse
//! error, whichever check the protocol layer fails it on first, and a JSON message the
//! protocol layer cannot read is an invalid request carrying the message's id.

use crate::auth_common as common;

use axum::{Router, body::Body};
use common::{Handler, Reply, send, tool_call};
use http::{Request, StatusCode};
use mrtd_server::HttpConfig;
use serde_json::json;

fn endpoint_alone() -> Router {
    common::app(Handler::default(), &HttpConfig::default(), |router| router)
}

/// A POST of `body` with the headers a 2026-07-28 client sends, `accept` and
/// `content_type` replaced where given.
fn post(body: impl Into<Body>, accept: &str, content_type: &str) -> Request<Body> {
    Request::post("/mcp")
        .header("host", "127.0.0.1:8080")
        .header("content-type", content_type)
        .header("accept", accept)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "ping")
        .body(body.into())
        .unwrap()
}

const BOTH: &str = "application/json, text/event-stream";
const JSON: &str = "application/json";

fn assert_rpc_error(reply: &Reply, status: StatusCode, code: i64, case: &str) {
    assert_eq!(reply.status, status, "{case}: {}", reply.body);
    assert_eq!(reply.body["jsonrpc"], "2.0", "{case}: {}", reply.body);
    assert_eq!(reply.body["error"]["code"], code, "{case}: {}", reply.body);
}

#[tokio::test]
async fn bodies_that_are_not_json_are_parse_errors() {
    let app = endpoint_alone();
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("an unclosed object", br#"{"jsonrpc":"2.0","id":1,"method":"ping""#.to_vec()),
        ("trailing garbage", format!("{ping}xyz").into_bytes()),
        ("two messages", format!("{ping}{ping}").into_bytes()),
        ("a bare word", b"{ping}".to_vec()),
        (
            // A parser may skip members it does not know without reading their strings.
            "invalid UTF-8 in a member nothing reads",
            [&br#"{"jsonrpc":"2.0","id":1,"method":"ping","x":""#[..], &[0xff, 0xfe], b"\"}"]
                .concat(),
        ),
    ];
    for (case, body) in cases {
        let reply = send(&app, post(body, BOTH, JSON)).await;
        assert_rpc_error(&reply, StatusCode::BAD_REQUEST, -32700, case);
        assert_eq!(reply.body["id"], json!(null), "{case}");
    }
}

#[tokio::test]
async fn a_body_that_is_not_json_is_a_parse_error_whatever_else_is_wrong() {
    let app = endpoint_alone();
    // The protocol layer refuses this `Accept` before it reads the body.
    let reply = send(&app, post("{nope", "text/html", JSON)).await;
    assert_rpc_error(&reply, StatusCode::BAD_REQUEST, -32700, "refused Accept");
    // The media type is judged first, as before forwarding.
    let reply = send(&app, post("{nope", BOTH, "text/plain")).await;
    assert_rpc_error(&reply, StatusCode::UNSUPPORTED_MEDIA_TYPE, -32600, "text/plain");
}

#[tokio::test]
async fn json_the_protocol_layer_cannot_read_is_an_invalid_request_with_its_id() {
    let app = endpoint_alone();
    let reply = send(&app, post(r#"{"jsonrpc":"2.0","id":41,"nothing":true}"#, BOTH, JSON)).await;
    assert_rpc_error(&reply, StatusCode::BAD_REQUEST, -32600, "no method");
    assert_eq!(reply.body["id"], 41);
    // Nested deeper than the protocol layer reads: still JSON, so an invalid request.
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{}1{}}}"#,
        r#"{"a":"#.repeat(100_000),
        "}".repeat(100_000)
    );
    let reply = send(&app, post(deep, BOTH, JSON)).await;
    assert_rpc_error(&reply, StatusCode::BAD_REQUEST, -32600, "deep params");
    assert_eq!(reply.body["id"], 42);
    // Only what the protocol refuses is looked at again: a good message is answered.
    let reply = send(&app, tool_call("whoami", json!({}), None)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.body["id"], 7);
    assert!(reply.body.get("result").is_some(), "{}", reply.body);
}
