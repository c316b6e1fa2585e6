//! `verify_chip`: Passive Authentication of chip data, optionally matched to a scan.

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::{service_failure, success};
use mrtd_service::{AppState, Principal, chip};

pub(super) fn input_schema() -> Value {
    mrtd_service::schema::input::<chip::ChipArguments>()
}

pub(super) async fn call(
    state: &AppState,
    principal: &Principal,
    arguments: chip::ChipArguments,
) -> CallToolResult {
    let verified = match arguments.into_request() {
        Ok(request) => chip::verify_chip(state, principal, request).await,
        Err(error) => Err(error),
    };
    match verified {
        Ok(report) => {
            let summary = chip::summary(&report);
            success(summary, super::structured(&report))
        }
        Err(error) => service_failure(&error),
    }
}
