//! `mrtd scan`.

use std::process::ExitCode;

/// Arguments of `mrtd scan`.
#[derive(Debug, clap::Args)]
pub(crate) struct ScanArgs {}

/// Runs `mrtd scan`.
pub(crate) fn run(_args: ScanArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not available yet")
}
