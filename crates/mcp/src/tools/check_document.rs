//! `check_document`: yes/no answers about a document without its fields, through
//! [`mrtd_service::ops::check`]; its schemas are generated from the service's types.

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::{failure, service_failure, success};
use crate::input::Arguments;
use mrtd_service::{
    AppState, Principal,
    check::{CheckAnswers, CheckRequest, MAX_AGE},
    ops as service, schema,
};

/// The arguments the tool takes: its input schema's properties.
pub(super) const ARGUMENTS: &[&str] =
    &["scan_id", "lines", "min_age", "valid_on", "nationality_in"];

pub(super) fn input_schema() -> Value {
    schema::input::<CheckRequest>()
}

pub(super) fn output_schema() -> Value {
    schema::output::<CheckAnswers>()
}

/// The arguments as the service's request, with the errors every tool gives for arguments
/// of the wrong kind.
fn request(arguments: &Arguments<'_>) -> Result<CheckRequest, String> {
    arguments.only(ARGUMENTS)?;
    let owned =
        |list: Option<Vec<&str>>| list.map(|items| items.into_iter().map(str::to_owned).collect());
    Ok(CheckRequest {
        scan_id: arguments.string("scan_id")?.map(str::to_owned),
        lines: owned(arguments.string_list("lines")?),
        min_age: arguments
            .integer("min_age", 0, i64::from(MAX_AGE))?
            .and_then(|years| u32::try_from(years).ok()),
        valid_on: arguments.string("valid_on")?.map(str::to_owned),
        nationality_in: owned(arguments.string_list("nationality_in")?),
    })
}

pub(super) async fn call(
    state: &AppState,
    principal: &Principal,
    arguments: &Arguments<'_>,
) -> CallToolResult {
    let request = match request(arguments) {
        Ok(request) => request,
        Err(message) => return failure(message),
    };
    match service::check(state, principal, request).await {
        Ok(answers) => success(answers.summary(), super::structured(&answers)),
        Err(error) => service_failure(&error),
    }
}
