//! `mrtd eval`.

use std::process::ExitCode;

/// Arguments of `mrtd eval`.
#[derive(Debug, clap::Args)]
pub(crate) struct EvalArgs {}

/// Runs `mrtd eval`.
pub(crate) fn run(_args: EvalArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not available yet")
}
