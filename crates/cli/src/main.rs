//! The `mrtd` command: the only crate that reads the environment and decides exit codes.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod discovery;
mod eval_cmd;
mod keys_cmd;
mod parse_cmd;
mod scan_cmd;
mod serve_cmd;

/// Reads passports, ID cards and visas (ICAO 9303 machine readable zones).
#[derive(Debug, Parser)]
#[command(name = "mrtd", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve MCP over Streamable HTTP (default) or stdio.
    Serve(Box<serve_cmd::ServeArgs>),
    /// Parse and validate MRZ text lines.
    Parse(parse_cmd::ParseArgs),
    /// Read the MRZ in image files, folders or globs.
    Scan(scan_cmd::ScanArgs),
    /// Create, list and revoke API keys for `mrtd serve --auth api-key`.
    Keys(keys_cmd::KeysArgs),
    /// Score the reader against a manifest of images with known MRZs.
    Eval(eval_cmd::EvalArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    let outcome = match cli.command {
        Command::Serve(args) => serve_cmd::run(*args),
        Command::Parse(args) => parse_cmd::run(args),
        Command::Scan(args) => scan_cmd::run(args),
        Command::Eval(args) => eval_cmd::run(args),
        Command::Keys(args) => keys_cmd::run(args),
    };
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("mrtd: {error:#}");
            ExitCode::from(1)
        }
    }
}

/// Logs go to stderr, never stdout: in stdio mode stdout carries the protocol.
/// `RUST_LOG` sets the filter; `MRTD_LOG_FORMAT=json` switches to JSON lines.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    if std::env::var("MRTD_LOG_FORMAT").is_ok_and(|v| v == "json") {
        builder.json().init();
    } else {
        builder.init();
    }
}
