//! `parse_mrz`: MRZ text in, the document result out.

use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use super::{failure, outcome};
use crate::{input::Arguments, result, service};

pub(super) fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "lines": {
                "type": "array",
                "items": { "type": "string" },
                "minItems": 1,
                "maxItems": 3,
                "description": "The 2 or 3 MRZ lines, top first (one string holding all lines also works)."
            },
            "reference_date": {
                "type": "string",
                "description": "YYYY-MM-DD; decides date centuries, expiry and age. Default: today (UTC)."
            }
        },
        "required": ["lines"],
        "additionalProperties": false
    })
}

pub(super) fn call(arguments: &Arguments<'_>) -> CallToolResult {
    let parsed = arguments.only(&["lines", "reference_date"]).and_then(|()| {
        let lines = arguments.string_list("lines")?.ok_or("'lines' is required")?;
        Ok((lines, arguments.string("reference_date")?))
    });
    match parsed {
        Ok((lines, date)) => outcome(service::parse(&lines, date), result::summary),
        Err(message) => failure(message),
    }
}
