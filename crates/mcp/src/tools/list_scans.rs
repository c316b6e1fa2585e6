//! `list_scans`: the caller's own kept scans, newest first.

use std::time::SystemTime;

use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use super::{failure, scan_document::rfc3339, store_failure, success};
use crate::{AppState, Principal, input::Arguments};

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
    let parsed = arguments.only(&["cursor", "limit"]).and_then(|()| {
        Ok((arguments.string("cursor")?, arguments.integer("limit", 1, 100)?.unwrap_or(20)))
    });
    let (cursor, limit) = match parsed {
        Ok(parsed) => parsed,
        Err(message) => return failure(message),
    };
    let limit = u32::try_from(limit).unwrap_or(20);
    match state.store.list(&principal.0, SystemTime::now(), cursor, limit).await {
        Ok(page) => {
            let scans: Vec<Value> = page
                .items
                .iter()
                .map(|record| {
                    json!({
                        "scan_id": record.id.as_str(),
                        "created_at": rfc3339(record.created_at),
                        "expires_at": rfc3339(record.expires_at),
                        "status": record.result.get("status").cloned().unwrap_or(Value::Null),
                        "format": record.result.get("format").cloned().unwrap_or(Value::Null),
                    })
                })
                .collect();
            let summary = format!(
                "{} kept scan(s) on this page{}.",
                scans.len(),
                if page.next_cursor.is_some() { "; more with next_cursor" } else { "" }
            );
            success(summary, json!({ "scans": scans, "next_cursor": page.next_cursor }))
        }
        // The store reports a cursor it did not issue as `InvalidCursor`; that is the
        // caller's mistake, not an outage.
        Err(mrtd_store::StoreError::InvalidCursor | mrtd_store::StoreError::NotFound) => {
            failure("The cursor is not valid; start again without one.")
        }
        Err(error) => store_failure(&error),
    }
}
