//! `check_document`: yes/no answers about a document without its fields, through
//! [`mrtd_service::ops::check`]; its schemas are generated from the service's types.

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::{service_failure, success};
use mrtd_service::{
    AppState, Principal,
    check::{CheckAnswers, CheckRequest},
    ops as service, schema,
};

pub(super) fn input_schema() -> Value {
    schema::input::<CheckRequest>()
}

pub(super) fn output_schema() -> Value {
    schema::output::<CheckAnswers>()
}

pub(super) async fn call(
    state: &AppState,
    principal: &Principal,
    arguments: CheckRequest,
) -> CallToolResult {
    match service::check(state, principal, arguments).await {
        Ok(answers) => success(answers.summary(), super::structured(&answers)),
        Err(error) => service_failure(&error),
    }
}
