//! `mrtd parse`: reads MRZ text lines and prints the reading as one JSON object.
//!
//! Exit status: 0 when the lines were read as an MRZ (whatever the check digits say: the JSON
//! reports them), 2 when the input is not an MRZ or the arguments are invalid. The JSON schema is
//! documented in `crates/mrz/SCHEMA.md`.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use anyhow::Context;
use mrtd_mrz::{Date, ParseOptions, parse_text};

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
    /// Report check digit failures without correcting anything.
    #[arg(long)]
    no_correct: bool,
    /// Print the JSON on one line.
    #[arg(long)]
    compact: bool,
}

/// Exit status for input that is not an MRZ, and for invalid arguments (as clap uses).
const EXIT_NOT_MRZ: u8 = 2;

/// Runs `mrtd parse`.
pub(crate) fn run(args: ParseArgs) -> anyhow::Result<ExitCode> {
    let reference_date = match args.today.as_deref() {
        Some(text) => match Date::parse_iso(text) {
            Ok(date) => date,
            Err(error) => {
                eprintln!("mrtd: --today: {error}");
                return Ok(ExitCode::from(EXIT_NOT_MRZ));
            }
        },
        None => Date::today_utc(),
    };
    let lines = if args.lines.is_empty() {
        io::stdin()
            .lock()
            .lines()
            .collect::<Result<Vec<String>, _>>()
            .context("reading MRZ lines from standard input")?
    } else {
        args.lines
    };
    let options = ParseOptions { correct: !args.no_correct, ..ParseOptions::new(reference_date) };
    let line_refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let reading = match parse_text(&line_refs, &options) {
        Ok(reading) => reading,
        Err(not_mrz) => {
            eprintln!("mrtd: not an MRZ: {not_mrz}");
            return Ok(ExitCode::from(EXIT_NOT_MRZ));
        }
    };
    let json = if args.compact {
        serde_json::to_string(&reading)
    } else {
        serde_json::to_string_pretty(&reading)
    }
    .context("serialising the reading")?;
    let mut stdout = io::stdout().lock();
    match writeln!(stdout, "{json}").and_then(|()| stdout.flush()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        // A closed pipe (`mrtd parse ... | head`) is the reader's choice, not a failure.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(error) => Err(error).context("writing to standard output"),
    }
}
