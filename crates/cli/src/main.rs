//! The `mrtd` command: the only crate that reads the environment and decides exit codes.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod eval_cmd;
mod parse_cmd;
mod scan_cmd;

/// Reads passports, ID cards and visas (ICAO 9303 machine readable zones).
#[derive(Debug, Parser)]
#[command(name = "mrtd", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Parse and validate MRZ text lines.
    Parse(parse_cmd::ParseArgs),
    /// Read the MRZ in image files, folders or globs.
    Scan(scan_cmd::ScanArgs),
    /// Score the reader against a manifest of images with known MRZs.
    Eval(eval_cmd::EvalArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Parse(args) => parse_cmd::run(args),
        Command::Scan(args) => scan_cmd::run(args),
        Command::Eval(args) => eval_cmd::run(args),
    };
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("mrtd: {error:#}");
            ExitCode::from(1)
        }
    }
}
