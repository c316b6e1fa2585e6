//! The `mrtd` command: the only crate that reads the environment and decides exit codes.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

mod calibration;
mod check_cmd;
mod chip_cmd;
mod compose;
mod config;
mod connect;
mod eval_cmd;
mod exit;
mod keys_cmd;
mod malloc;
mod output;
mod parse_cmd;
mod robustness;
mod scan_cmd;
mod serve_cmd;

/// Reads passports, ID cards and visas (ICAO 9303 machine readable zones).
#[derive(Debug, Parser)]
#[command(name = "mrtd", version, about, after_help = exit::EXIT_STATUS_HELP)]
struct Cli {
    /// Log format on standard error.
    #[arg(long, global = true, env = "MRTD_LOG_FORMAT", value_enum, default_value = "human")]
    log_format: LogFormat,
    /// Export spans over OTLP/HTTP to this collector URL (`http://HOST:4318/v1/traces`);
    /// needs mrtd built with `--features otel`.
    #[arg(long, global = true, env = "MRTD_OTLP_ENDPOINT")]
    otlp_endpoint: Option<String>,
    #[command(subcommand)]
    command: Command,
}

/// `--log-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LogFormat {
    /// One readable line per event.
    Human,
    /// One JSON object per event, for log collectors.
    Json,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve MCP over Streamable HTTP (default) or stdio.
    #[command(after_help = serve_cmd::SERVE_HELP)]
    Serve(Box<serve_cmd::ServeArgs>),
    /// Parse and validate MRZ text lines.
    #[command(after_help = exit::EXIT_STATUS_HELP)]
    Parse(parse_cmd::ParseArgs),
    /// Answer yes/no questions about MRZ lines without printing their fields, and whether the
    /// printed page agrees with them.
    #[command(after_help = exit::EXIT_STATUS_HELP)]
    Check(check_cmd::CheckArgs),
    /// Read the MRZ in image files, folders or globs.
    #[command(after_help = exit::EXIT_STATUS_HELP)]
    Scan(scan_cmd::ScanArgs),
    /// Verify a document's chip data (EF.SOD and data groups from an NFC reader app).
    #[command(name = "verify-chip", after_help = chip_cmd::VERIFY_CHIP_HELP)]
    VerifyChip(chip_cmd::VerifyChipArgs),
    /// Create, list and revoke API keys for `mrtd serve --auth api-key`.
    Keys(keys_cmd::KeysArgs),
    /// Score the reader against a manifest of images with known MRZs.
    Eval(eval_cmd::EvalArgs),
    /// Print a shell completion script (e.g. `mrtd completions bash > ~/.local/share/bash-completion/completions/mrtd`).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

fn main() -> ExitCode {
    let cli = match parse_command_line() {
        Ok(cli) => cli,
        Err(error) => {
            eprintln!("mrtd: {error:#}");
            return exit::status_of(&error).into();
        }
    };
    if matches!(cli.command, Command::Serve(_)) {
        malloc::give_large_buffers_back();
    }
    // Kept until the command has finished: dropping it flushes the spans still buffered.
    let _export = match init_logging(cli.log_format, cli.otlp_endpoint.as_deref()) {
        Ok(export) => export,
        Err(error) => {
            eprintln!("mrtd: {error:#}");
            return exit::status_of(&error).into();
        }
    };
    let outcome = match cli.command {
        Command::Serve(args) => serve_cmd::run(*args, cli.log_format == LogFormat::Json),
        Command::Parse(args) => parse_cmd::run(args),
        Command::Check(args) => check_cmd::run(args),
        Command::Scan(args) => scan_cmd::run(args),
        Command::Eval(args) => eval_cmd::run(args),
        Command::VerifyChip(args) => chip_cmd::run(args),
        Command::Keys(args) => keys_cmd::run(args),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "mrtd", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
    };
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("mrtd: {error:#}");
            exit::status_of(&error).into()
        }
    }
}

/// Parses the command line, with `mrtd serve`'s configuration file merged under the flags
/// and the environment. Usage errors from clap print themselves and exit with 2.
fn parse_command_line() -> anyhow::Result<Cli> {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let command = Cli::command();
    let matches = command.clone().get_matches_from(argv.clone());
    // Read before the configuration file's settings are appended as flags, after which a key
    // from the file would look as if it had been typed on the command line.
    let request_state_key_in_argv = matches.subcommand_matches("serve").is_some_and(|serve| {
        serve.value_source("request_state_key") == Some(clap::parser::ValueSource::CommandLine)
    });
    let (merged, config_path) = config::merge(&command, &matches, argv)?;
    let matches = match command.try_get_matches_from(merged) {
        Ok(matches) => matches,
        Err(error) => {
            // The command line alone parsed, so the file's value is the one at fault.
            let path = config_path.as_deref().map(|p| p.display().to_string()).unwrap_or_default();
            let text = error.to_string();
            let first = text.lines().next().unwrap_or("").trim_start_matches("error: ");
            exit::usage!("configuration file {path}: {first}")
        }
    };
    let mut cli = Cli::from_arg_matches(&matches)?;
    if let Command::Serve(args) = &mut cli.command {
        args.config = config_path;
        args.request_state_key_in_argv = request_state_key_in_argv;
    }
    Ok(cli)
}

/// The OpenTelemetry exporter, when this build has one.
#[cfg(feature = "otel")]
type SpanExport = mrtd_server::observe::otel::OtelExport;
#[cfg(not(feature = "otel"))]
type SpanExport = ();

/// Logs go to stderr, never stdout: in stdio mode stdout carries the protocol.
/// `RUST_LOG` sets the filter (default `info`). With an OTLP endpoint, spans are exported too.
///
/// Whatever `RUST_LOG` says, the protocol library (`rmcp`) is heard only at `warn` and above:
/// at `debug` and `trace` it logs whole requests and results, names, document numbers and
/// images included, and no document data may reach a log.
fn init_logging(
    format: LogFormat,
    otlp_endpoint: Option<&str>,
) -> anyhow::Result<Option<SpanExport>> {
    use tracing_subscriber::{Layer as _, layer::SubscriberExt as _, util::SubscriberInitExt as _};
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let no_document_data = tracing_subscriber::filter::filter_fn(|metadata| {
        !metadata.target().starts_with("rmcp") || *metadata.level() <= tracing::Level::WARN
    });
    let lines = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    let lines = match format {
        LogFormat::Json => lines.json().boxed(),
        LogFormat::Human => lines.boxed(),
    };
    let registry = tracing_subscriber::registry().with(no_document_data).with(filter).with(lines);
    let Some(endpoint) = otlp_endpoint else {
        registry.init();
        return Ok(None);
    };
    #[cfg(feature = "otel")]
    {
        let export = SpanExport::new(endpoint, "mrtd")?;
        registry.with(export.layer()).init();
        Ok(Some(export))
    }
    #[cfg(not(feature = "otel"))]
    {
        anyhow::bail!(
            "--otlp-endpoint {endpoint}: this mrtd was built without OpenTelemetry export; \
             build it with `cargo build --release -p mrtd --features otel`"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
