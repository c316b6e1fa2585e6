//! Output formats shared by `mrtd scan` and `mrtd parse`: a table for people, one JSON
//! document, or one JSON line per file for batches.
//!
//! The table is rendered from the reading's JSON (the public schema in
//! `crates/mrz/SCHEMA.md`), so it can never show something the JSON does not say.

use std::fmt::Write as _;
use std::io::{self, IsTerminal};

use serde_json::Value;

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// Aligned fields with the check-digit verdict of each (for people).
    Table,
    /// One JSON document.
    Json,
    /// One JSON object per line (per file for `scan`), for batches and pipes.
    Ndjson,
}

impl Format {
    /// The format asked for, or a table on a terminal and `otherwise` in a pipe.
    pub(crate) fn resolve(asked: Option<Format>, otherwise: Format) -> Format {
        asked.unwrap_or_else(|| if io::stdout().is_terminal() { Format::Table } else { otherwise })
    }
}

/// Labels of the reading's fields, in the order a person reads a data page.
const FIELD_LABELS: [(&str, &str); 14] = [
    ("document_code", "Document code"),
    ("issuer", "Issuing state"),
    ("document_number", "Document number"),
    ("surname", "Surname"),
    ("given_names", "Given names"),
    ("nationality", "Nationality"),
    ("birth_date", "Date of birth"),
    ("sex", "Sex"),
    ("expiry_date", "Date of expiry"),
    ("issue_date", "Date of issue"),
    ("issuing_office", "Issuing office"),
    ("administrative_code", "Administrative code"),
    ("optional_data", "Optional data"),
    ("optional_data_2", "Optional data 2"),
];

/// The verdict column for a field: its own check digit's status where it has one (a failing
/// composite check does not make a field whose own check holds wrong), else what the
/// reading's `evidence` says.
fn verdict(reading: &Value, field: &str) -> &'static str {
    let own = reading["checks"]
        .as_array()
        .and_then(|all| all.iter().find(|c| c["name"] == field && c["status"] != "absent"))
        .and_then(|c| c["status"].as_str());
    let status = own.or_else(|| {
        reading["evidence"]
            .as_array()
            .and_then(|all| all.iter().find(|e| e["field"] == field))
            .and_then(|e| e["status"].as_str())
    });
    match status {
        Some("verified") => "ok (check digit verified)",
        Some("refuted") => "WRONG (check digit refuted)",
        Some("uncovered") => "- (no check digit covers it)",
        _ => "",
    }
}

/// A document result (the JSON every front end returns) as aligned lines for a person.
pub(crate) fn reading_table(reading: &Value) -> String {
    let mut out = String::new();
    let checks = reading["checks"].as_array().map(Vec::as_slice).unwrap_or_default();
    let printed: Vec<&Value> = checks.iter().filter(|c| c["status"] != "absent").collect();
    let verified = printed.iter().filter(|c| c["status"] == "verified").count();
    let read = reading["status"].as_str().is_none_or(|status| status == "read");
    let verdict_line = if reading["valid"] == true && read {
        format!("VALID: all {} check digits verified", printed.len())
    } else if reading["valid"] == true {
        // Check digits cannot vouch for what they do not cover (names, a doubtful cell).
        format!(
            "NOT READ WITH CONFIDENCE: all {} check digits hold, but see the advice below",
            printed.len()
        )
    } else {
        let refuted: Vec<&str> = printed
            .iter()
            .filter(|c| c["status"] == "refuted")
            .filter_map(|c| c["name"].as_str())
            .collect();
        format!(
            "NOT VALID: {verified} of {} check digits verified; refuted: {}",
            printed.len(),
            refuted.join(", ")
        )
    };
    let _ = writeln!(out, "{:<20} {}", "Format", reading["format"].as_str().unwrap_or("?"));
    let _ = writeln!(out, "{:<20} {verdict_line}", "Verdict");
    for (key, label) in FIELD_LABELS {
        let value = match &reading["fields"][key] {
            Value::Null => continue,
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let shown = if value.is_empty() { "(empty)".to_owned() } else { value };
        let _ = writeln!(out, "{label:<20} {shown:<32} {}", verdict(reading, key));
    }
    let derived = &reading["derived"];
    if let Some(expired) = derived["expired"].as_bool() {
        let days = derived["days_to_expiry"].as_i64().unwrap_or_default();
        let text = if expired {
            format!(
                "EXPIRED {} days before {}",
                -days,
                derived["reference_date"].as_str().unwrap_or("?")
            )
        } else {
            format!("valid for {days} more days")
        };
        let _ = writeln!(out, "{:<20} {text}", "Expiry");
    }
    if let Some(age) = derived["age_years"].as_i64() {
        let _ = writeln!(out, "{:<20} {age}", "Age (years)");
    }
    for line in reading["lines"].as_array().map(Vec::as_slice).unwrap_or_default() {
        let _ = writeln!(out, "{:<20} {}", "MRZ", line.as_str().unwrap_or(""));
    }
    for correction in reading["corrections"].as_array().map(Vec::as_slice).unwrap_or_default() {
        let _ = writeln!(
            out,
            "{:<20} line {} column {}: {} -> {} ({})",
            "Corrected",
            correction["line"],
            correction["column"],
            correction["from"].as_str().unwrap_or("?"),
            correction["to"].as_str().unwrap_or("?"),
            correction["why"].as_str().unwrap_or("?"),
        );
    }
    for warning in reading["warnings"].as_array().map(Vec::as_slice).unwrap_or_default() {
        let _ = writeln!(out, "{:<20} {}", "Warning", warning["message"].as_str().unwrap_or("?"));
    }
    for diagnostic in reading["diagnostics"].as_array().map(Vec::as_slice).unwrap_or_default() {
        let _ = writeln!(out, "{:<20} {}", "Advice", diagnostic["message"].as_str().unwrap_or("?"));
    }
    if reading["ambiguities"].as_array().is_some_and(|a| !a.is_empty()) {
        let _ = writeln!(
            out,
            "{:<20} several readings fit equally; nothing applied (see --format json)",
            "Ambiguous"
        );
    }
    out
}
