//! `parse_mrz`: MRZ text in, the document result out.

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::{failure, outcome};
use crate::input::Arguments;
use mrtd_service::{ops as service, result};

/// The arguments the tool takes: its input schema's properties.
pub(super) const ARGUMENTS: &[&str] = &["lines", "reference_date", "correct"];

pub(super) fn input_schema() -> Value {
    mrtd_service::schema::input::<mrtd_service::arguments::ParseArguments>()
}

pub(super) fn call(arguments: &Arguments<'_>) -> CallToolResult {
    let parsed = arguments.only(ARGUMENTS).and_then(|()| {
        let lines = arguments.string_list("lines")?.ok_or("'lines' is required")?;
        let correct = arguments.boolean("correct")?.unwrap_or(false);
        Ok((lines, arguments.string("reference_date")?, correct))
    });
    match parsed {
        Ok((lines, date, correct)) => {
            let parsed = service::parse(&lines, date, correct).map(|result| result.to_value());
            outcome(parsed, result::summary)
        }
        Err(message) => failure(message),
    }
}
