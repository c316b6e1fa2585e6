//! `delete_scan`: forget a kept scan now.

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::{service_failure, success};
use mrtd_service::{
    AppState, Principal,
    kept::{Deleted, ScanIdRequest},
    ops as service, schema,
};

pub(super) fn output_schema() -> Value {
    schema::output::<Deleted>()
}

pub(super) async fn call(
    state: &AppState,
    principal: &Principal,
    arguments: ScanIdRequest,
) -> CallToolResult {
    let scan_id = arguments.scan_id;
    match service::delete(state, principal, &scan_id).await {
        Ok(deleted) => success(format!("Deleted scan {scan_id}."), super::structured(&deleted)),
        Err(error) => service_failure(&error),
    }
}
