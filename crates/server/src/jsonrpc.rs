//! JSON-RPC error responses written by the HTTP front itself.

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use serde_json::{Value, json};

/// `-32700`: the body is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// `-32600`: the body is JSON but not an acceptable JSON-RPC message.
pub const INVALID_REQUEST: i64 = -32600;
/// `-32601`: unknown method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// `-32602`: the method exists but its params are not what it takes.
pub const INVALID_PARAMS: i64 = -32602;
/// `-32603`: internal error.
pub const INTERNAL_ERROR: i64 = -32603;

/// Builds an HTTP response carrying one JSON-RPC error object.
pub fn error_response(status: StatusCode, id: Value, code: i64, message: &str) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    });
    json_response(status, &body)
}

/// Serialises `body` as an `application/json` response with the given status.
pub fn json_response(status: StatusCode, body: &Value) -> Response {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    let mut response = (status, bytes).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The `id` of a JSON-RPC message, or `null` when it has none or it is not a valid id.
pub fn message_id(message: &Value) -> Value {
    match message.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    }
}
