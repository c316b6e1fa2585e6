//! `mrtd check`: yes/no answers about MRZ lines without printing their fields (the
//! `check_document` tool and `POST /v1/check`, through the same service function), and
//! whether what the document's page prints agrees with its MRZ.
//!
//! Output: the answers' JSON (the tool's `structuredContent`), or on a terminal a line per
//! answer. Exit status: 0 when every check digit holds and every answer is yes, 1 when one is
//! not (or the lines are not an MRZ), 2 for invalid arguments, 3 when standard input cannot
//! be read as text.

use std::io::{self, BufRead};
use std::process::ExitCode;

use anyhow::Context;
use mrtd_service::ServiceError;
use mrtd_service::check::{CheckAnswers, CheckRequest, PrintedFields, check_lines};

use crate::exit::{CliError, Exit, usage};
use crate::output::Format;

/// Arguments of `mrtd check`.
#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    /// The MRZ lines (2 or 3), taken as printed. Without them, lines are read from standard
    /// input.
    #[arg(value_name = "LINE", num_args = 0..=3)]
    lines: Vec<String>,
    /// Is the holder at least this old today?
    #[arg(long, value_name = "YEARS")]
    min_age: Option<u32>,
    /// Is the document unexpired on this date (YYYY-MM-DD)?
    #[arg(long, value_name = "YYYY-MM-DD")]
    valid_on: Option<String>,
    /// Is the holder's nationality one of these ICAO codes (comma-separated: `D,AUT`)?
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    nationality_in: Option<Vec<String>>,
    /// The surname as the document's page prints it, accents and all.
    #[arg(long, value_name = "TEXT")]
    printed_surname: Option<String>,
    /// The given names as the page prints them.
    #[arg(long, value_name = "TEXT")]
    printed_given_names: Option<String>,
    /// The date of birth as the page prints it (`16 APR/AVR 07`, `16.04.2007`, `2007-04-16`).
    #[arg(long, value_name = "DATE")]
    printed_birth_date: Option<String>,
    /// The date of expiry as the page prints it.
    #[arg(long, value_name = "DATE")]
    printed_expiry_date: Option<String>,
    /// The document number as the page prints it.
    #[arg(long, value_name = "TEXT")]
    printed_document_number: Option<String>,
    /// The sex as the page prints it (`F`, `M`, `X`, `F/F`).
    #[arg(long, value_name = "TEXT")]
    printed_sex: Option<String>,
    /// Output format: `json`, `ndjson` or `table` (default: table on a terminal, json
    /// otherwise).
    #[arg(long, value_enum)]
    format: Option<Format>,
}

impl CheckArgs {
    /// The printed fields given, if any.
    fn printed(&self) -> Option<PrintedFields> {
        let printed = PrintedFields {
            surname: self.printed_surname.clone(),
            given_names: self.printed_given_names.clone(),
            birth_date: self.printed_birth_date.clone(),
            expiry_date: self.printed_expiry_date.clone(),
            document_number: self.printed_document_number.clone(),
            sex: self.printed_sex.clone(),
        };
        (printed != PrintedFields::default()).then_some(printed)
    }
}

/// Runs `mrtd check`.
pub(crate) fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    if args.format == Some(Format::Csv) {
        usage!("--format: csv is not offered for answers; use json, ndjson or table");
    }
    let request = CheckRequest {
        min_age: args.min_age,
        valid_on: args.valid_on.clone(),
        nationality_in: args.nationality_in.clone(),
        printed: args.printed(),
        ..CheckRequest::default()
    };
    let lines = if args.lines.is_empty() {
        io::stdin().lock().lines().collect::<Result<Vec<String>, _>>().map_err(|error| {
            CliError::Unusable(format!("reading MRZ lines from standard input: {error}"))
        })?
    } else {
        args.lines.clone()
    };
    let lines: Vec<String> =
        lines.into_iter().map(|line| line.trim().to_owned()).filter(|l| !l.is_empty()).collect();
    let answers = match check_lines(&lines, &request) {
        Ok(answers) => answers,
        Err(ServiceError::NotMrz(why)) => {
            eprintln!("mrtd: not an MRZ: {why}");
            return Ok(Exit::NotRead.into());
        }
        Err(error) => usage!("{}", in_flags(&error.to_string())),
    };
    let text = match Format::resolve(args.format, Format::Json) {
        Format::Table => table(&answers),
        Format::Ndjson => serde_json::to_string(&answers).context("serialising the answers")?,
        Format::Json | Format::Csv => {
            serde_json::to_string_pretty(&answers).context("serialising the answers")?
        }
    };
    crate::output::print_text(&text)?;
    Ok(if all_yes(&answers) { Exit::Success } else { Exit::NotRead }.into())
}

/// The service's words for its arguments (`'printed.sex'`) in this command's flags.
fn in_flags(message: &str) -> String {
    const NAMES: [(&str, &str); 10] = [
        (
            "min_age, valid_on, nationality_in, printed",
            "--min-age, --valid-on, --nationality-in, --printed-*",
        ),
        ("'printed.surname'", "--printed-surname"),
        ("'printed.given_names'", "--printed-given-names"),
        ("'printed.birth_date'", "--printed-birth-date"),
        ("'printed.expiry_date'", "--printed-expiry-date"),
        ("'printed.document_number'", "--printed-document-number"),
        ("'printed.sex'", "--printed-sex"),
        ("'min_age'", "--min-age"),
        ("'valid_on'", "--valid-on"),
        ("'lines'", "the lines"),
    ];
    NAMES.iter().fold(message.to_owned(), |text, (service, flag)| text.replace(service, flag))
}

/// Whether every check digit holds and every question asked is answered yes.
fn all_yes(answers: &CheckAnswers) -> bool {
    answers.check_digits_valid
        && [answers.min_age, answers.valid_on, answers.nationality_in, answers.viz_matches_mrz]
            .into_iter()
            .flatten()
            .all(|answer| answer == Some(true))
}

/// The answers for people: one line each, and the printed fields' agreement below.
fn table(answers: &CheckAnswers) -> String {
    let said = |answer: Option<bool>| match answer {
        Some(true) => "yes",
        Some(false) => "no",
        None => "the document does not say",
    };
    let mut lines =
        vec![format!("{:<20} {}", "check digits hold", said(Some(answers.check_digits_valid)))];
    for (question, answer) in [
        ("min_age", answers.min_age),
        ("valid_on", answers.valid_on),
        ("nationality_in", answers.nationality_in),
        ("printed page agrees", answers.viz_matches_mrz),
    ] {
        if let Some(answer) = answer {
            lines.push(format!("{question:<20} {}", said(answer)));
        }
    }
    if let Some(comparison) = &answers.printed_agreement {
        for (field, agreement) in comparison.fields() {
            if let Some(agreement) = agreement {
                let word = serde_json::to_value(agreement)
                    .ok()
                    .and_then(|value| value.as_str().map(str::to_owned))
                    .unwrap_or_default();
                lines.push(format!("  {field:<18} {}", word.replace('_', " ")));
            }
        }
    }
    lines.join("\n")
}
