//! `check_document`: yes/no answers about a document without its fields.

use std::time::SystemTime;

use mrtd_mrz::{ParseOptions, Reading, codes_equivalent};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use super::{failure, store_failure, success};
use crate::input::Arguments;
use mrtd_service::{AppState, Principal, ops as service};

pub(super) fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "scan_id": { "type": "string", "description": "A kept scan to check." },
            "lines": {
                "type": "array", "items": { "type": "string" }, "minItems": 1, "maxItems": 3,
                "description": "MRZ lines to check instead of a kept scan."
            },
            "min_age": { "type": "integer", "minimum": 0, "maximum": 150, "description": "Is the holder at least this old today?" },
            "valid_on": { "type": "string", "description": "YYYY-MM-DD: is the document unexpired on this date?" },
            "nationality_in": {
                "type": "array", "items": { "type": "string" },
                "description": "ICAO nationality codes; is the holder's one of them?"
            }
        },
        "additionalProperties": false
    })
}

pub(super) fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "check_digits_valid": { "type": "boolean" },
            "min_age": { "type": ["boolean", "null"] },
            "valid_on": { "type": ["boolean", "null"] },
            "nationality_in": { "type": ["boolean", "null"] }
        },
        "required": ["check_digits_valid"]
    })
}

struct Questions<'a> {
    min_age: Option<u32>,
    valid_on: Option<mrtd_mrz::Date>,
    nationality_in: Option<Vec<&'a str>>,
}

pub(super) async fn call(
    state: &AppState,
    principal: &Principal,
    arguments: &Arguments<'_>,
) -> CallToolResult {
    let parsed = arguments
        .only(&["scan_id", "lines", "min_age", "valid_on", "nationality_in"])
        .and_then(|()| {
            let questions = Questions {
                min_age: arguments.integer("min_age", 0, 150)?.and_then(|n| u32::try_from(n).ok()),
                valid_on: match arguments.string("valid_on")? {
                    Some(text) => {
                        Some(service::reference_date(Some(text)).map_err(|e| e.to_string())?)
                    }
                    None => None,
                },
                nationality_in: arguments.string_list("nationality_in")?,
            };
            if questions.min_age.is_none()
                && questions.valid_on.is_none()
                && questions.nationality_in.is_none()
            {
                return Err("ask at least one of min_age, valid_on, nationality_in".to_owned());
            }
            Ok((arguments.string("scan_id")?, arguments.string_list("lines")?, questions))
        });
    let (scan_id, lines, questions) = match parsed {
        Ok(parsed) => parsed,
        Err(message) => return failure(message),
    };
    let stored_lines: Vec<String>;
    let lines: Vec<&str> = match (scan_id, lines) {
        (Some(id), None) => match state.store().get(&principal.0, id, SystemTime::now()).await {
            Ok(record) => {
                stored_lines = record.result["lines"]
                    .as_array()
                    .map(|items| {
                        items.iter().filter_map(|l| l.as_str().map(str::to_owned)).collect()
                    })
                    .unwrap_or_default();
                if stored_lines.is_empty() {
                    return failure("That scan holds no MRZ lines, so nothing can be checked.");
                }
                stored_lines.iter().map(String::as_str).collect()
            }
            Err(error) => return store_failure(error),
        },
        (None, Some(lines)) => lines,
        _ => return failure("give exactly one of scan_id and lines"),
    };
    let today = mrtd_service::today();
    // The lines are taken as printed (or as kept): a failing check digit is an answer.
    let options = ParseOptions { correct: false, ..ParseOptions::new(today) };
    let reading = match mrtd_mrz::parse_text(&lines, &options) {
        Ok(reading) => reading,
        Err(not_mrz) => return failure(format!("This is not an MRZ: {not_mrz}.")),
    };
    let answers = answer(&reading, &questions, today);
    let summary = format!(
        "Answers: {}.",
        ["min_age", "valid_on", "nationality_in"]
            .iter()
            .filter(|key| answers.get(**key).is_some())
            .map(|key| format!("{key} = {}", answers[*key]))
            .collect::<Vec<_>>()
            .join(", ")
    );
    success(summary, answers)
}

fn answer(reading: &Reading, questions: &Questions<'_>, today: mrtd_mrz::Date) -> Value {
    let mut answers = json!({ "check_digits_valid": reading.valid });
    if let Some(years) = questions.min_age {
        answers["min_age"] = json!(reading.is_at_least(years, today));
    }
    if let Some(date) = questions.valid_on {
        answers["valid_on"] = json!(reading.is_valid_on(date));
    }
    if let Some(codes) = &questions.nationality_in {
        answers["nationality_in"] =
            json!(reading.fields.nationality.as_deref().map(|nationality| {
                codes.iter().any(|code| codes_equivalent(code.trim(), nationality))
            }));
    }
    answers
}
