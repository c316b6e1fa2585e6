//! `get_scan`: a kept scan by id.

use rmcp::model::CallToolResult;

use super::outcome;
use mrtd_service::{AppState, Principal, kept::ScanIdRequest, ops as service, result};

pub(super) async fn call(
    state: &AppState,
    principal: &Principal,
    arguments: ScanIdRequest,
) -> CallToolResult {
    let kept = service::get(state, principal, &arguments.scan_id).await;
    outcome(kept.map(|kept| kept.to_value()), result::summary)
}
