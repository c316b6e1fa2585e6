//! `parse_mrz`: MRZ text in, the document result out.

use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use super::{failure, success};
use crate::{dates, input::Arguments, result};

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
        let date = dates::reference_date(arguments.string("reference_date")?)?;
        Ok((lines, date))
    });
    let (lines, date) = match parsed {
        Ok(parsed) => parsed,
        Err(message) => return failure(message),
    };
    if lines.iter().map(|l| l.len()).sum::<usize>() > 1_000 {
        return failure("'lines' is far longer than any MRZ (at most 3 lines of 44 characters).");
    }
    match mrtd_mrz::parse_text(&lines, &mrtd_mrz::ParseOptions::new(date)) {
        Ok(reading) => {
            let structured = result::from_text(&reading);
            success(result::summary(&structured), structured)
        }
        Err(not_mrz) => failure(format!("This is not an MRZ: {not_mrz}.")),
    }
}
