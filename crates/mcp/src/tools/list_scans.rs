//! `list_scans`: the caller's own kept scans, newest first.

use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use super::{failure, outcome};
use crate::input::Arguments;
use mrtd_service::{AppState, Principal, ops as service};

pub(super) fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "cursor": { "type": "string", "description": "next_cursor from the previous page." },
            "limit": { "type": "integer", "minimum": 1, "maximum": 100, "default": 20 }
        },
        "additionalProperties": false
    })
}

pub(super) fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "scans": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "scan_id": { "type": "string" },
                        "created_at": { "type": "string" },
                        "expires_at": { "type": "string" },
                        "status": { "type": ["string", "null"] },
                        "format": { "type": ["string", "null"] }
                    },
                    "required": ["scan_id", "created_at", "expires_at"]
                }
            },
            "next_cursor": { "type": ["string", "null"] }
        },
        "required": ["scans", "next_cursor"]
    })
}

pub(super) async fn call(
    state: &AppState,
    principal: &Principal,
    arguments: &Arguments<'_>,
) -> CallToolResult {
    let parsed = arguments
        .only(&["cursor", "limit"])
        .and_then(|()| Ok((arguments.string("cursor")?, arguments.integer("limit", 1, 100)?)));
    let (cursor, limit) = match parsed {
        Ok(parsed) => parsed,
        Err(message) => return failure(message),
    };
    let limit = limit.and_then(|n| u32::try_from(n).ok());
    outcome(service::list(state, principal, cursor, limit).await, |page| {
        format!(
            "{} kept scan(s) on this page{}.",
            page["scans"].as_array().map_or(0, Vec::len),
            if page["next_cursor"].is_string() { "; more with next_cursor" } else { "" }
        )
    })
}
