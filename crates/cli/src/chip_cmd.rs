//! `mrtd verify-chip`: Passive Authentication of chip data read by an NFC reader app.
//!
//! Output: a short report on a terminal, otherwise (or with `--json`) the JSON every front
//! end returns (`POST /v1/chip/verify`, the `verify_chip` tool). Exit status: 0 when the
//! chip is shown authentic, 1 when it is not (refuted, or not provable: no trust anchor,
//! an unsupported algorithm), 2 for invalid arguments, 3 when a file cannot be used.

use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use anyhow::Context;
use mrtd_chip::{ChipReport, TrustStore};
use mrtd_mrz::Date;

use crate::exit::{CliError, Exit, usage};

/// The text `mrtd verify-chip --help` ends with.
pub(crate) const VERIFY_CHIP_HELP: &str = "\
The files come from an NFC reader app that read the chip (EF.SOD, EF.DG1, ...).
Exit status:
  0  the chip's data is authentic: every data group given matches EF.SOD, its
     signature verifies, and the signer chains to a trusted CSCA
  1  not shown authentic (see the report: refuted, or no trust anchor given)
With --aa-challenge and --aa-response (and DG15), the report's authentic_chip
says whether the chip itself proved it holds the issuer's key (Active
Authentication); the exit status follows authentic alone.
  2  invalid arguments
  3  a file cannot be used: missing, unreadable, not EF.SOD or a data group,
     or a --trust file that cannot be used (a file of --csca-dir that cannot
     be used is named in the report's diagnostics, and the rest are used)";

/// Arguments of `mrtd verify-chip`.
#[derive(Debug, clap::Args)]
pub(crate) struct VerifyChipArgs {
    /// EF.SOD as read from the chip.
    #[arg(long, value_name = "FILE")]
    sod: PathBuf,
    /// A data group file (EF.DG1, EF.DG2, …); repeat for each. Each is identified by its tag.
    /// Without any, EF.SOD alone is checked (its signature and chain).
    #[arg(long = "dg", value_name = "FILE")]
    data_groups: Vec<PathBuf>,
    /// A trust file: a CSCA certificate (PEM or DER), a CSCA master list (.ml) or a CRL;
    /// repeat for each.
    #[arg(long = "trust", value_name = "FILE")]
    trust: Vec<PathBuf>,
    /// A folder of trust files (the same as `mrtd serve --csca-dir`).
    #[arg(long, value_name = "DIR", env = "MRTD_CSCA_DIR")]
    csca_dir: Option<PathBuf>,
    /// A printed MRZ line to compare DG1 with; repeat for each line.
    #[arg(long = "mrz", value_name = "LINE", num_args = 1, conflicts_with = "photo")]
    mrz_lines: Vec<String>,
    /// A photo of the document: its MRZ is read and compared with DG1.
    #[arg(long, value_name = "FILE")]
    photo: Option<PathBuf>,
    /// Active Authentication: the challenge the reader app sent the chip, in hexadecimal
    /// (with --aa-response, and DG15 among the --dg files).
    #[arg(long, value_name = "HEX", requires = "aa_response")]
    aa_challenge: Option<String>,
    /// The chip's answer to --aa-challenge (the INTERNAL AUTHENTICATE response), as a file.
    #[arg(long, value_name = "FILE", requires = "aa_challenge")]
    aa_response: Option<PathBuf>,
    /// Print the JSON report (the default when standard output is not a terminal).
    #[arg(long)]
    json: bool,
}

/// Runs `mrtd verify-chip`.
pub(crate) fn run(args: VerifyChipArgs) -> anyhow::Result<ExitCode> {
    let mut trust = TrustStore::new();
    if let Some(dir) = &args.csca_dir {
        trust.add_dir(dir).map_err(|e| CliError::Unusable(format!("--csca-dir: {e}")))?;
    }
    for path in &args.trust {
        trust.add_file(path).map_err(|e| CliError::Unusable(format!("--trust: {e}")))?;
    }
    let sod = read(&args.sod, "--sod")?;
    let groups: Vec<Vec<u8>> =
        args.data_groups.iter().map(|p| read(p, "--dg")).collect::<Result<_, _>>()?;
    let refs: Vec<&[u8]> = groups.iter().map(Vec::as_slice).collect();
    let active = match (&args.aa_challenge, &args.aa_response) {
        (Some(challenge), Some(response)) => {
            let Ok(challenge) = hex::decode(challenge.trim()) else {
                usage!("--aa-challenge: not hexadecimal");
            };
            Some((challenge, read(response, "--aa-response")?))
        }
        _ => None,
    };
    let aa =
        active.as_ref().map(|(challenge, response)| mrtd_chip::AaChallenge { challenge, response });
    let today = Date::today_utc();
    let mut report = mrtd_chip::verify_with_aa(&sod, &refs, aa, &trust, SystemTime::now(), today)
        .map_err(|e| CliError::Unusable(e.to_string()))?;
    if let Some(printed) = printed_lines(&args)? {
        let source = if args.photo.is_some() { "scan" } else { "mrz_lines" };
        if !mrtd_chip::compare_mrz(&mut report, &printed, source, today) {
            usage!("--mrz/--photo: the printed lines are not an MRZ, or DG1 is missing");
        }
    }
    let exit = if report.authentic { Exit::Success } else { Exit::NotRead };
    let text = if args.json || !io::stdout().is_terminal() {
        serde_json::to_string_pretty(&report).context("serialising the report")?
    } else {
        table(&report)
    };
    crate::output::print_text(&text)?;
    Ok(exit.into())
}

fn read(path: &Path, flag: &str) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|e| CliError::Unusable(format!("{flag} {}: {e}", path.display())))
}

/// The printed MRZ to compare with: `--mrz` lines, or the zone read from `--photo`.
fn printed_lines(args: &VerifyChipArgs) -> anyhow::Result<Option<Vec<String>>> {
    if !args.mrz_lines.is_empty() {
        return Ok(Some(args.mrz_lines.clone()));
    }
    let Some(photo) = &args.photo else { return Ok(None) };
    let bytes = read(photo, "--photo")?;
    let engine = mrtd_engine::EngineBuilder::new().build();
    let options = mrtd_mrz::ParseOptions::new(Date::today_utc());
    let image = engine
        .read(&bytes, &options)
        .map_err(|e| CliError::Unusable(format!("--photo {}: {e}", photo.display())))?;
    // Only a reading a pipeline may use stands for the printed zone: a doubtful one would
    // make a genuine chip look different from its page.
    match image.reading {
        Some(reading) if image.status == mrtd_engine::Status::Read => Ok(Some(reading.lines)),
        _ => Err(CliError::Unusable(format!(
            "--photo {}: the MRZ was not read with confidence; give its lines with --mrz",
            photo.display()
        ))
        .into()),
    }
}

/// The report for people: the verdict, then each part.
fn table(report: &ChipReport) -> String {
    let mut out = String::new();
    out.push_str(if report.authentic {
        "AUTHENTIC: the chip's data is signed by a trusted CSCA and unaltered.\n"
    } else {
        "NOT SHOWN AUTHENTIC\n"
    });
    out.push_str(&format!("  signature    {}\n", report.signature.as_str()));
    out.push_str(&format!("  chain        {}\n", report.chain.as_str()));
    for group in &report.data_groups {
        out.push_str(&format!("  DG{:<2}         {}\n", group.number, group.status.as_str()));
    }
    if !report.not_supplied.is_empty() {
        let list: Vec<String> = report.not_supplied.iter().map(|n| format!("DG{n}")).collect();
        out.push_str(&format!("  not given    {}\n", list.join(", ")));
    }
    if let Some(signer) = &report.signer {
        out.push_str(&format!("  signer       {} ({})\n", signer.subject, signer.public_key));
    }
    if let Some(anchor) = &report.trust_anchor {
        out.push_str(&format!("  CSCA         {}\n", anchor.subject));
    }
    if let Some(mrz) = &report.mrz {
        for line in &mrz.lines {
            out.push_str(&format!("  DG1          {line}\n"));
        }
    }
    let active = &report.active_authentication;
    if active.status != mrtd_chip::ActiveAuthenticationStatus::NotSupplied {
        let algorithm = active.algorithm.as_deref().map(|a| format!(" ({a})")).unwrap_or_default();
        out.push_str(&format!("  active auth  {}{algorithm}\n", active.status.as_str()));
        out.push_str(&format!(
            "  chip         {}\n",
            if report.authentic_chip {
                "genuine: it holds the key the issuer gave it"
            } else {
                "not shown genuine"
            }
        ));
    }
    if let Some(matched) = &report.mrz_match {
        let differing: Vec<&str> = matched
            .fields
            .iter()
            .filter(|f| f.status == mrtd_chip::FieldMatchStatus::Different)
            .map(|f| f.field.as_str())
            .collect();
        if differing.is_empty() {
            out.push_str("  printed MRZ  same as DG1\n");
        } else {
            out.push_str(&format!("  printed MRZ  DIFFERS in {}\n", differing.join(", ")));
        }
    }
    for diagnostic in &report.diagnostics {
        out.push_str(&format!("  note         {}\n", diagnostic.message));
    }
    out.trim_end().to_owned()
}
