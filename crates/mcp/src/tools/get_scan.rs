//! `get_scan`: a kept scan by id.

use rmcp::model::CallToolResult;

use super::{failure, outcome};
use crate::input::Arguments;
use mrtd_service::{AppState, Principal, ops as service, result};

pub(super) async fn call(
    state: &AppState,
    principal: &Principal,
    arguments: &Arguments<'_>,
) -> CallToolResult {
    match arguments.only_scan_id() {
        Ok(scan_id) => {
            let kept = service::get(state, principal, scan_id).await;
            outcome(kept.map(|kept| kept.to_value()), result::summary)
        }
        Err(message) => failure(message),
    }
}
