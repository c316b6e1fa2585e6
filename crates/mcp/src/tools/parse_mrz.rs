//! `parse_mrz`: MRZ text in, the document result out.

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::outcome;
use mrtd_service::{arguments::ParseArguments, ops as service, result};

pub(super) fn input_schema() -> Value {
    mrtd_service::schema::input::<ParseArguments>()
}

pub(super) fn call(arguments: ParseArguments) -> CallToolResult {
    let ParseArguments { lines, reference_date, correct } = arguments;
    let parsed = service::parse(&lines, reference_date.as_deref(), correct);
    outcome(parsed.map(|result| result.to_value()), result::summary)
}
