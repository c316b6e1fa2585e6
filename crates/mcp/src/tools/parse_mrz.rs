//! `parse_mrz`: MRZ text in, the document result out.

use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use super::{failure, outcome};
use crate::input::Arguments;
use mrtd_service::{ops as service, result};

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
            },
            "correct": {
                "type": "boolean",
                "default": false,
                "description": "Apply check-digit-guided corrections, for text that came from another recogniser (OCR). Off: the lines are taken as printed, a failing check digit stays failing, and the changes that would satisfy it come back as suggestions."
            }
        },
        "required": ["lines"],
        "additionalProperties": false
    })
}

pub(super) fn call(arguments: &Arguments<'_>) -> CallToolResult {
    let parsed = arguments.only(&["lines", "reference_date", "correct"]).and_then(|()| {
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
