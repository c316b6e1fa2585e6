//! `GET /` for programs: a small document that says what this server is and how to reach it.

use axum::{
    Json, Router,
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Response},
    routing::get,
};
use serde_json::json;

/// Routes served next to the MCP endpoint.
pub(crate) fn routes() -> Router {
    Router::new().route("/", get(root))
}

async fn root(headers: HeaderMap) -> Response {
    let wants_json = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("application/json"));
    if !wants_json {
        return (
            StatusCode::OK,
            "mrtd: reads passports, ID cards and visas. MCP endpoint: POST /mcp. \
             Ask with Accept: application/json for the discovery document.\n",
        )
            .into_response();
    }
    Json(document()).into_response()
}

/// The discovery document.
pub(crate) fn document() -> serde_json::Value {
    json!({
        "name": "mrtd",
        "title": "mrtd travel document reader",
        "version": env!("CARGO_PKG_VERSION"),
        "description": "Reads ICAO 9303 machine readable zones of passports, ID cards and visas from photos.",
        "transports": ["streamable-http", "stdio"],
        "endpoint": "/mcp",
        "protocolVersions": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
        "stateless": true,
    })
}
