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
    /// A header row, then one row per reading (per file for `scan`), for spreadsheets.
    Csv,
}

/// The columns of `--format csv`: the file, the verdict, the fields, the advice.
const CSV_COLUMNS: [&str; 18] = [
    "file",
    "status",
    "format",
    "valid",
    "document_code",
    "issuer",
    "document_number",
    "surname",
    "given_names",
    "nationality",
    "birth_date",
    "sex",
    "expiry_date",
    "optional_data",
    "optional_data_2",
    "corrections",
    "diagnostic_codes",
    "error",
];

/// One CSV record (fields quoted where they need it), without its line end.
fn csv_record<I: IntoIterator<Item = S>, S: AsRef<[u8]>>(fields: I) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    // Writing to memory cannot fail.
    let _ = writer.write_record(fields);
    let bytes = writer.into_inner().unwrap_or_default();
    String::from_utf8_lossy(&bytes).trim_end_matches(['\r', '\n']).to_owned()
}

/// The header row of `--format csv`.
pub(crate) fn csv_header() -> String {
    csv_record(CSV_COLUMNS)
}

/// One result as a row of `--format csv`.
pub(crate) fn csv_line(result: &Value) -> String {
    csv_record(csv_row(result))
}

/// One result (the JSON every front end returns, with `file` for `scan`) as a CSV row in
/// [`CSV_COLUMNS`] order; absent values are empty cells.
fn csv_row(result: &Value) -> Vec<String> {
    let text = |value: &Value| match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let fields = &result["fields"];
    let count = |key: &str| result[key].as_array().map_or(0, Vec::len).to_string();
    let diagnostics = result["diagnostics"].as_array().map(Vec::as_slice).unwrap_or_default();
    let codes: Vec<String> = diagnostics.iter().map(|d| text(&d["code"])).collect();
    let error = match diagnostics.first() {
        Some(first) if result["status"] == "error" => text(&first["message"]),
        _ => String::new(),
    };
    let mut row = vec![text(&result["file"]), text(&result["status"]), text(&result["format"])];
    row.push(text(&result["valid"]));
    for key in &CSV_COLUMNS[4..15] {
        row.push(text(&fields[*key]));
    }
    row.push(count("corrections"));
    row.push(codes.join(" "));
    row.push(error);
    row
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
    // The verdict as the result states it (`verdict`), in this table's words.
    let stated = &reading["verdict"];
    let verdict_line = match stated["check_digits"].as_str() {
        Some("all_hold") if stated["safe_to_use"] == true => {
            format!("VALID: all {} check digits verified", printed.len())
        }
        // Check digits cannot vouch for what they do not cover (names, a doubtful cell).
        Some("all_hold") => format!(
            "NOT READ WITH CONFIDENCE: all {} check digits hold, but see the advice below",
            printed.len()
        ),
        Some("refuted") => {
            let refuted: Vec<&str> = stated["refuted"]
                .as_array()
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            format!(
                "NOT VALID: {verified} of {} check digits verified; refuted: {}",
                printed.len(),
                refuted.join(", ")
            )
        }
        // Every check digit holds on what was read, but the reader does not vouch for it (a
        // zone the photo cuts, characters that could read otherwise): the advice says why.
        _ => format!(
            "NOT VALID: {verified} of {} check digits hold on what was read, but they do not prove it; see the advice below",
            printed.len()
        ),
    };
    let _ = writeln!(out, "{:<20} {}", "Format", reading["format"].as_str().unwrap_or("?"));
    let _ = writeln!(out, "{:<20} {verdict_line}", "Verdict");
    // Whether the document is in date, right under the check digits' verdict: a valid zone
    // on an expired document is not a usable document.
    let derived = &reading["derived"];
    let days = derived["days_to_expiry"].as_i64().unwrap_or_default();
    let on = derived["reference_date"].as_str().unwrap_or("?");
    let expiry = match stated["expiry"].as_str() {
        Some("expired") => Some(format!("EXPIRED {} days before {on}", -days)),
        Some("expires_soon") => Some(format!("EXPIRES SOON: in date for {days} more days")),
        Some("in_date") => Some(format!("in date for {days} more days")),
        _ => None,
    };
    if let Some(text) = expiry {
        let _ = writeln!(out, "{:<20} {text}", "Expiry");
    }
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
    if let Some(age) = derived["age_years"].as_i64() {
        let _ = writeln!(out, "{:<20} {age}", "Age (years)");
    }
    for line in reading["lines"].as_array().map(Vec::as_slice).unwrap_or_default() {
        let _ = writeln!(out, "{:<20} {}", "MRZ", line.as_str().unwrap_or(""));
    }
    if let Some(corners) = reading["document"]["corners"].as_array() {
        let points: Vec<String> =
            corners.iter().map(|corner| format!("({}, {})", corner[0], corner[1])).collect();
        let whole = if reading["document"]["complete"] == true {
            "wholly in the photo"
        } else {
            "partly outside the photo"
        };
        let _ = writeln!(out, "{:<20} {} ({whole})", "Document corners", points.join(" "));
    }
    if let Some(bbox) = reading["portrait"]["box"].as_array() {
        let numbers: Vec<String> = bbox.iter().map(Value::to_string).collect();
        let _ = writeln!(out, "{:<20} [{}]", "Portrait box", numbers.join(", "));
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

/// Writes `text` and a newline to standard output. A closed pipe (`mrtd eval ... | head`) is
/// the reader's choice, not a failure.
pub(crate) fn print_text(text: &str) -> anyhow::Result<()> {
    use anyhow::Context as _;
    use std::io::Write as _;
    let mut stdout = io::stdout().lock();
    match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(error) => Err(error).context("writing to standard output"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(reading: &Value) -> String {
        let table = reading_table(reading);
        table.lines().find(|line| line.starts_with("Verdict")).unwrap_or_default().to_owned()
    }

    #[test]
    fn a_reading_not_valid_without_a_refuted_check_digit_says_why_not_an_empty_list() {
        let check =
            |name: &str, status: &str| serde_json::json!({ "name": name, "status": status });
        // The verdicts as `mrtd_service::result::Verdict` states them.
        let partial = |checks: Vec<Value>, check_digits: &str, refuted: Vec<&str>| {
            serde_json::json!({
                "format": "TD3", "valid": false, "status": "partial", "fields": {}, "checks": checks,
                "verdict": { "check_digits": check_digits, "refuted": refuted, "safe_to_use": false },
            })
        };
        let holding = partial(
            vec![check("document_number", "verified"), check("composite", "verified")],
            "hold_unproven",
            vec![],
        );
        let line = verdict(&holding);
        assert!(line.contains("2 of 2 check digits hold on what was read"), "{line}");
        assert!(!line.contains("refuted:"), "{line}");
        let failing = partial(
            vec![check("document_number", "refuted"), check("composite", "verified")],
            "refuted",
            vec!["document_number"],
        );
        assert!(
            verdict(&failing).contains("1 of 2 check digits verified; refuted: document_number")
        );
    }

    #[test]
    fn typed_lines_with_a_wrong_check_digit_name_it_and_an_expired_document_says_so() {
        let lines = [
            "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
            "L898902C37UTO7408122F1204159ZE184226B<<<<<10",
        ];
        let result = mrtd_service::ops::parse(&lines, Some("2026-01-01"), false).unwrap();
        let table = reading_table(&result.to_value());
        assert!(table.contains("refuted: document_number, composite"), "{table}");
        assert!(table.contains("EXPIRED 5009 days before 2026-01-01"), "{table}");
    }
}
