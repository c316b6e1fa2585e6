//! `mrtd parse`.

use std::process::ExitCode;

/// Arguments of `mrtd parse`.
#[derive(Debug, clap::Args)]
pub(crate) struct ParseArgs {}

/// Runs `mrtd parse`.
pub(crate) fn run(_args: ParseArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not available yet")
}
