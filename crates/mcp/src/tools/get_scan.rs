//! `get_scan`: a kept scan by id.

use std::time::SystemTime;

use rmcp::model::CallToolResult;

use super::{failure, store_failure, success};
use crate::{AppState, Principal, input::Arguments, result};

pub(super) async fn call(
    state: &AppState,
    principal: &Principal,
    arguments: &Arguments<'_>,
) -> CallToolResult {
    let scan_id = match arguments.only_scan_id() {
        Ok(id) => id,
        Err(message) => return failure(message),
    };
    match state.store.get(&principal.0, scan_id, SystemTime::now()).await {
        Ok(record) => {
            let mut structured = record.result;
            structured["scan_id"] = record.id.as_str().into();
            structured["expires_at"] = super::scan_document::rfc3339(record.expires_at).into();
            success(result::summary(&structured), structured)
        }
        Err(error) => store_failure(&error),
    }
}
