//! `list_scans`: the caller's own kept scans, newest first.

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::{service_failure, success};
use mrtd_service::{
    AppState, Principal,
    kept::{ListRequest, ScanList},
    ops as service, schema,
};

pub(super) fn input_schema() -> Value {
    schema::input::<ListRequest>()
}

pub(super) fn output_schema() -> Value {
    schema::output::<ScanList>()
}

pub(super) async fn call(
    state: &AppState,
    principal: &Principal,
    arguments: ListRequest,
) -> CallToolResult {
    match service::list(state, principal, arguments.cursor.as_deref(), arguments.limit).await {
        Ok(page) => {
            let summary = format!(
                "{} kept scan(s) on this page{}.",
                page.scans.len(),
                if page.next_cursor.is_some() { "; more with next_cursor" } else { "" }
            );
            success(summary, super::structured(&page))
        }
        Err(error) => service_failure(&error),
    }
}
