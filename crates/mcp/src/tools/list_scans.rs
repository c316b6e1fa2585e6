//! `list_scans`: the caller's own kept scans, newest first.

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::{failure, service_failure, success};
use crate::input::Arguments;
use mrtd_service::{
    AppState, Principal,
    kept::{ListRequest, ScanList},
    ops as service, schema,
};

/// The arguments the tool takes: its input schema's properties.
pub(super) const ARGUMENTS: &[&str] = &["cursor", "limit"];

pub(super) fn input_schema() -> Value {
    schema::input::<ListRequest>()
}

pub(super) fn output_schema() -> Value {
    schema::output::<ScanList>()
}

pub(super) async fn call(
    state: &AppState,
    principal: &Principal,
    arguments: &Arguments<'_>,
) -> CallToolResult {
    let parsed = arguments
        .only(ARGUMENTS)
        .and_then(|()| Ok((arguments.string("cursor")?, arguments.integer("limit", 1, 100)?)));
    let (cursor, limit) = match parsed {
        Ok(parsed) => parsed,
        Err(message) => return failure(message),
    };
    let limit = limit.and_then(|n| u32::try_from(n).ok());
    match service::list(state, principal, cursor, limit).await {
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
