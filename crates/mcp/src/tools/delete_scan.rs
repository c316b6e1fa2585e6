//! `delete_scan`: forget a kept scan now.

use std::time::SystemTime;

use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use super::{failure, store_failure, success};
use crate::{AppState, Principal, input::Arguments};

pub(super) fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "scan_id": { "type": "string" },
            "deleted": { "type": "boolean" }
        },
        "required": ["scan_id", "deleted"]
    })
}

pub(super) async fn call(
    state: &AppState,
    principal: &Principal,
    arguments: &Arguments<'_>,
) -> CallToolResult {
    let scan_id = match arguments.only_scan_id() {
        Ok(id) => id,
        Err(message) => return failure(message),
    };
    match state.store.delete(&principal.0, scan_id, SystemTime::now()).await {
        Ok(()) => success(
            format!("Deleted scan {scan_id}."),
            json!({ "scan_id": scan_id, "deleted": true }),
        ),
        Err(error) => store_failure(&error),
    }
}
