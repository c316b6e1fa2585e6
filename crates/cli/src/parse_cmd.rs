//! `mrtd parse`: reads MRZ text lines and prints the reading.
//!
//! Output: a table on a terminal, otherwise the document result every front end returns
//! (`POST /v1/parse`, the `parse_mrz` tool; documented in `crates/mrz/SCHEMA.md`;
//! `--format` chooses). Exit status: 0 when the lines are an MRZ whose check digits all
//! hold, 1 when one fails (the output still reports the reading) or the input is not an
//! MRZ, 2 for invalid arguments, 3 when standard input cannot be read as text.

use std::io::{self, BufRead};
use std::process::ExitCode;

use anyhow::Context;
use mrtd_mrz::{Date, ParseOptions, parse_text};
use mrtd_service::result::DocumentResult;

use crate::exit::{CliError, Exit, usage};
use crate::output::{Format, reading_table};

/// Arguments of `mrtd parse`.
#[derive(Debug, clap::Args)]
pub(crate) struct ParseArgs {
    /// The MRZ lines (2 or 3). Without them, lines are read from standard input, where text
    /// around the zone (a header above it) is ignored.
    #[arg(value_name = "LINE", num_args = 0..=3)]
    lines: Vec<String>,
    /// Reference date for centuries, expiry and age, as YYYY-MM-DD (default: today, UTC).
    #[arg(long, value_name = "YYYY-MM-DD")]
    today: Option<String>,
    /// Apply check-digit-guided corrections, for text from another recogniser. Without it
    /// the lines are taken as printed: a failing check digit stays failing, the advice names
    /// it, and the single changes that would satisfy it are listed as ambiguities.
    #[arg(long)]
    correct: bool,
    /// The default (kept for scripts written before `--correct`).
    #[arg(long, hide = true, conflicts_with = "correct")]
    no_correct: bool,
    /// Output format (default: table on a terminal, json otherwise).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Print the JSON on one line (the same as `--format ndjson`).
    #[arg(long, conflicts_with = "format")]
    compact: bool,
}

/// Runs `mrtd parse`.
pub(crate) fn run(args: ParseArgs) -> anyhow::Result<ExitCode> {
    let reference_date = match args.today.as_deref() {
        Some(text) => match Date::parse_iso(text) {
            Ok(date) => date,
            Err(error) => usage!("--today: {error}"),
        },
        None => Date::today_utc(),
    };
    let lines = if args.lines.is_empty() {
        io::stdin().lock().lines().collect::<Result<Vec<String>, _>>().map_err(|error| {
            CliError::Unusable(format!("reading MRZ lines from standard input: {error}"))
        })?
    } else {
        args.lines
    };
    let options = ParseOptions { correct: args.correct, ..ParseOptions::new(reference_date) };
    let line_refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let reading = match parse_text(&line_refs, &options) {
        Ok(reading) => reading,
        Err(not_mrz) => {
            eprintln!("mrtd: not an MRZ: {not_mrz}");
            return Ok(Exit::NotRead.into());
        }
    };
    let exit = if reading.valid { Exit::Success } else { Exit::NotRead };
    let result = DocumentResult::from_text(reading).to_value();
    let format =
        if args.compact { Format::Ndjson } else { Format::resolve(args.format, Format::Json) };
    let text = match format {
        Format::Json => serde_json::to_string_pretty(&result).context("serialising the reading")?,
        Format::Ndjson => result.to_string(),
        Format::Csv => {
            format!("{}\n{}", crate::output::csv_header(), crate::output::csv_line(&result))
        }
        Format::Table => reading_table(&result).trim_end().to_owned(),
    };
    crate::output::print_text(&text)?;
    Ok(exit.into())
}
