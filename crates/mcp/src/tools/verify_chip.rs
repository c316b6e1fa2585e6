//! `verify_chip`: Passive Authentication of chip data, optionally matched to a scan.

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::{failure, service_failure, success};
use crate::input::Arguments;
use mrtd_service::{AppState, Principal, chip};

/// The arguments the tool takes: its input schema's properties.
pub(super) const ARGUMENTS: &[&str] = &[
    "sod_base64",
    "data_groups_base64",
    "scan_id",
    "mrz_lines",
    "aa_challenge_base64",
    "aa_response_base64",
];

pub(super) fn input_schema() -> Value {
    mrtd_service::schema::input::<chip::ChipArguments>()
}

pub(super) async fn call(
    state: &AppState,
    principal: &Principal,
    arguments: &Arguments<'_>,
) -> CallToolResult {
    let request = arguments.only(ARGUMENTS).and_then(|()| request(arguments));
    let request = match request {
        Ok(request) => request,
        Err(message) => return failure(message),
    };
    match chip::verify_chip(state, principal, request).await {
        Ok(report) => {
            let summary = chip::summary(&report);
            success(summary, super::structured(&report))
        }
        Err(error) => service_failure(&error),
    }
}

fn request(arguments: &Arguments<'_>) -> Result<chip::ChipRequest, String> {
    let sod = arguments.required_string("sod_base64")?;
    let data_groups = arguments.string_list("data_groups_base64")?.unwrap_or_default();
    let mrz_lines = arguments
        .string_list("mrz_lines")?
        .map(|lines| lines.into_iter().map(str::to_owned).collect());
    let scan_id = arguments.string("scan_id")?.map(str::to_owned);
    let challenge = arguments.string("aa_challenge_base64")?;
    let response = arguments.string("aa_response_base64")?;
    chip::ChipRequest::from_base64(sod, &data_groups, scan_id, mrz_lines)
        .and_then(|request| request.with_active_authentication(challenge, response))
        .map_err(|e| e.to_string())
}
