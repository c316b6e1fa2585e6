//! The configuration file of `mrtd serve`, merged under the environment and the flags.
//!
//! The file is TOML whose keys are the names of the serve flags (`listen`, `data_dir`,
//! `allowed_origins`, ...: the `MRTD_*` variable without its prefix, in lower case; dashes
//! work as well as underscores). Precedence is flags, then `MRTD_*` variables, then the
//! file, then the defaults. Clap already ranks flags over variables over defaults, so the
//! file is merged by asking clap where each value came from and appending, as flags, the
//! file's values for the settings that only have a default. One parser thus checks every
//! value, whatever its source.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::{ArgAction, ArgMatches, Command, parser::ValueSource};

use crate::exit::{CliError, usage};

/// The default configuration file: `$XDG_CONFIG_HOME/mrtd/config.toml`, else
/// `~/.config/mrtd/config.toml`.
pub(crate) fn default_path() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("XDG_CONFIG_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("mrtd/config.toml"));
    }
    std::env::var_os("HOME")
        .filter(|d| !d.is_empty())
        .map(|home| PathBuf::from(home).join(".config/mrtd/config.toml"))
}

/// The command line with the configuration file's settings appended for `mrtd serve`.
///
/// `matches` are the command line already parsed once; settings that came from a flag or an
/// environment variable are left alone. Other subcommands are returned unchanged.
pub(crate) fn merge(
    command: &Command,
    matches: &ArgMatches,
    argv: Vec<OsString>,
) -> anyhow::Result<(Vec<OsString>, Option<PathBuf>)> {
    let Some(("serve", serve)) = matches.subcommand() else { return Ok((argv, None)) };
    let explicit = serve.get_one::<PathBuf>("config").cloned();
    let path = match explicit {
        Some(path) => path,
        None => match default_path().filter(|p| p.is_file()) {
            Some(path) => path,
            None => return Ok((argv, None)),
        },
    };
    let Some(serve_command) = command.find_subcommand("serve") else { return Ok((argv, None)) };
    let table = read_table(&path)?;
    let mut merged = argv;
    for (raw_key, value) in &table {
        let key = raw_key.replace('-', "_");
        let (arg, source) = match serve_command.get_arguments().find(|a| a.get_id() == key.as_str())
        {
            Some(arg) if key != "config" => (arg, serve.value_source(&key)),
            _ => match command.get_arguments().find(|a| a.get_id() == key.as_str()) {
                Some(arg) if arg.is_global_set() => (arg, matches.value_source(&key)),
                _ => usage!(
                    "{}: unknown key {raw_key:?}; the keys are the serve flags: {}",
                    path.display(),
                    known_keys(serve_command).join(", ")
                ),
            },
        };
        if matches!(source, Some(ValueSource::CommandLine | ValueSource::EnvVariable)) {
            continue;
        }
        let Some(long) = arg.get_long() else { continue };
        let flag = format!("--{long}");
        match (arg.get_action(), value) {
            (ArgAction::SetTrue, toml::Value::Boolean(on)) => {
                if *on {
                    merged.push(flag.into());
                }
            }
            (ArgAction::SetTrue, _) => {
                usage!("{}: {raw_key} must be true or false", path.display())
            }
            (_, toml::Value::Array(items)) => {
                for item in items {
                    merged.push(format!("{flag}={}", scalar(&path, raw_key, item)?).into());
                }
            }
            (_, item) => merged.push(format!("{flag}={}", scalar(&path, raw_key, item)?).into()),
        }
    }
    Ok((merged, Some(path)))
}

/// The keys a configuration file may hold.
fn known_keys(serve: &Command) -> Vec<String> {
    serve
        .get_arguments()
        .filter(|a| a.get_long().is_some() && !matches!(a.get_id().as_str(), "config" | "help"))
        .map(|a| a.get_id().to_string())
        .chain(std::iter::once("log_format".to_owned()))
        .collect()
}

fn read_table(path: &Path) -> anyhow::Result<toml::Table> {
    let text = std::fs::read_to_string(path).map_err(|error| {
        CliError::Usage(format!("cannot read the configuration file {}: {error}", path.display()))
    })?;
    text.parse::<toml::Table>()
        .map_err(|error| CliError::Usage(format!("{}: {error}", path.display())).into())
}

/// A TOML string, number or boolean as a flag's value.
fn scalar(path: &Path, key: &str, value: &toml::Value) -> anyhow::Result<String> {
    Ok(match value {
        toml::Value::String(text) => text.clone(),
        toml::Value::Integer(number) => number.to_string(),
        toml::Value::Float(number) => number.to_string(),
        toml::Value::Boolean(on) => on.to_string(),
        _ => usage!(
            "{}: {key} must be a string, a number, a boolean or a list of them",
            path.display()
        ),
    })
}
