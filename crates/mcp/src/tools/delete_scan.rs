//! `delete_scan`: forget a kept scan now.

use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use super::{failure, outcome};
use crate::input::Arguments;
use mrtd_service::{AppState, Principal, ops as service};

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
    match arguments.only_scan_id() {
        Ok(scan_id) => outcome(service::delete(state, principal, scan_id).await, |_| {
            format!("Deleted scan {scan_id}.")
        }),
        Err(message) => failure(message),
    }
}
