//! JSON-RPC error responses written by the HTTP front itself.

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use serde_json::{Map, Value, json};

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

/// A JSON-RPC error message: what every error reply, over HTTP or stdio, carries.
pub fn error_body(id: Value, code: i64, message: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    })
}

/// Builds an HTTP response carrying one JSON-RPC error object.
pub fn error_response(status: StatusCode, id: Value, code: i64, message: &str) -> Response {
    json_response(status, &error_body(id, code, message))
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
    valid_id(message.get("id"))
}

/// `id` when it is a valid JSON-RPC id (a string or a number), `null` otherwise.
fn valid_id(id: Option<&Value>) -> Value {
    match id {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    }
}

/// The id of the JSON-RPC message in `bytes` (as [`message_id`]), or `None` when they are
/// not JSON at all. Any depth of nesting is JSON: a message too deep for the protocol layer
/// is an invalid request, not a parse error.
pub fn id_in_json(bytes: &[u8]) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct WithId {
        id: Option<Value>,
    }
    // Skipping a value walks it without recursion; building one stops at a depth limit.
    serde_json::from_slice::<serde::de::IgnoredAny>(bytes).ok()?;
    let id = serde_json::from_slice::<WithId>(bytes).ok().and_then(|message| message.id);
    Some(valid_id(id.as_ref()))
}

/// What the params of `method` must look like, for the methods whose params the protocol
/// layer reads into a fixed shape and answers with "method not found" when it cannot.
pub fn params_hint(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" => {
            Some("tools/call takes a tool `name` (a string) and `arguments` (an object)")
        }
        "prompts/get" => {
            Some("prompts/get takes a prompt `name` (a string) and `arguments` (an object)")
        }
        "resources/read" => Some("resources/read takes a `uri` (a string)"),
        _ => None,
    }
}

/// The hint for a request whose params the protocol layer cannot read, or `None` when they
/// read (or the method is not one of those [`params_hint`] knows). The check reads the params
/// with the protocol layer's own types, so it refuses exactly what that layer would; the
/// `arguments` object's members are not looked at (any JSON is allowed there), so an image of
/// many megabytes is not copied to check it.
pub fn unreadable_params(message: &Map<String, Value>) -> Option<&'static str> {
    let method = message.get("method")?.as_str()?;
    let hint = params_hint(method)?;
    let params = message.get("params").unwrap_or(&Value::Null);
    let probe = match params {
        Value::Object(params) => Value::Object(
            params
                .iter()
                .map(|(key, value)| match (key.as_str(), value) {
                    ("arguments", Value::Object(_)) => (key.clone(), Value::Object(Map::new())),
                    _ => (key.clone(), value.clone()),
                })
                .collect(),
        ),
        other => other.clone(),
    };
    let readable = match method {
        "tools/call" => serde_json::from_value::<rmcp::model::CallToolRequestParams>(probe).is_ok(),
        "prompts/get" => {
            serde_json::from_value::<rmcp::model::GetPromptRequestParams>(probe).is_ok()
        }
        _ => serde_json::from_value::<rmcp::model::ReadResourceRequestParams>(probe).is_ok(),
    };
    (!readable).then_some(hint)
}
