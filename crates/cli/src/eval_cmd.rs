//! `mrtd eval`: scores the reader against a manifest of images with known MRZs.
//!
//! The manifest is tab-separated with a header naming at least the columns
//! `file` and `ground_truth_mrz` (lines joined by `|`, empty for an image
//! without an MRZ), as in the specimen set the project is measured on.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use mrtd_engine::{EngineBuilder, ParseOptions, Status};
use serde_json::json;

use crate::calibration::Calibration;
use crate::exit::CliError;
use crate::scan_cmd::{FileOutcome, read_file};

/// Arguments of `mrtd eval`.
#[derive(Debug, clap::Args)]
pub(crate) struct EvalArgs {
    /// The manifest (TSV with `file` and `ground_truth_mrz` columns).
    #[arg(value_name = "MANIFEST")]
    manifest: PathBuf,
    /// The folder the manifest's file names are relative to.
    #[arg(value_name = "IMAGE_DIR")]
    image_dir: PathBuf,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
    /// List every image that was not read exactly.
    #[arg(long, short)]
    verbose: bool,
    /// Read each photo also cut at 50, 65 and 80 % of the line length and above its last
    /// line, shrunk to 6, 8 and 10 px per line, as a JPEG of quality 20, blurred, struck
    /// through with a pen, framed and under a plastic sleeve's glare, and report per kind: exact,
    /// read, read but wrong, valid over a wrong covered cell. Exits 1 when any variant is read
    /// wrongly or valid over a wrong covered cell.
    #[arg(long)]
    robustness: bool,
    /// With --robustness: also write each variant into this folder, named after its photo
    /// and kind, to look at what the reader was given.
    #[arg(long, value_name = "DIR", requires = "robustness")]
    save_variants: Option<PathBuf>,
}

struct Case {
    file: String,
    truth: Vec<String>,
}

fn parse_manifest(text: &str) -> anyhow::Result<Vec<Case>> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().context("the manifest is empty")?.split('\t').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h.trim() == name)
            .with_context(|| format!("the manifest has no {name:?} column"))
    };
    let file_idx = column("file")?;
    let truth_idx = column("ground_truth_mrz")?;
    let mut cases = Vec::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let cells: Vec<&str> = line.split('\t').collect();
        let file = cells.get(file_idx).context("a manifest row has no file")?.trim().to_owned();
        let truth_text = cells.get(truth_idx).map_or("", |t| t.trim());
        let truth = if truth_text.is_empty() {
            Vec::new()
        } else {
            truth_text.split('|').map(str::to_owned).collect()
        };
        cases.push(Case { file, truth });
    }
    Ok(cases)
}

fn percentile(sorted: &[f64], fraction: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// Runs `mrtd eval`.
pub(crate) fn run(args: EvalArgs) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(&args.manifest).map_err(|error| {
        CliError::Unusable(format!("cannot read {}: {error}", args.manifest.display()))
    })?;
    let cases = parse_manifest(&text)
        .map_err(|error| CliError::Unusable(format!("{}: {error:#}", args.manifest.display())))?;
    if args.robustness {
        return run_robustness(&args, &cases);
    }
    let engine = EngineBuilder::new().build();
    let options = ParseOptions::default();
    let (mut n_mrz, mut n_exact, mut n_read_exact, mut n_valid, mut n_valid_wrong) =
        (0, 0, 0, 0, 0);
    let (mut n_read_wrong, mut n_valid_over_wrong_covered) = (0, 0);
    let (mut n_negative, mut n_false_positive, mut n_errors) = (0, 0, 0);
    let (mut chars_right, mut chars_total) = (0usize, 0usize);
    let mut timings = Vec::new();
    let mut failures = Vec::new();
    let mut calibration = Calibration::default();
    for case in &cases {
        let path = args.image_dir.join(&case.file);
        let outcome = read_file(&engine, &path, &options);
        let (status, lines, valid) = match &outcome {
            FileOutcome::Reading(image) => {
                timings.push(image.timing_ms);
                let lines = image.reading.as_ref().map(|r| r.lines.clone()).unwrap_or_default();
                (Some(image.status), lines, image.reading.as_ref().is_some_and(|r| r.valid))
            }
            FileOutcome::Error(message) => {
                n_errors += 1;
                failures.push(format!("{}: error: {message}", case.file));
                (None, Vec::new(), false)
            }
        };
        if case.truth.is_empty() {
            n_negative += 1;
            if status.is_some_and(|s| s != Status::NoMrz) {
                n_false_positive += 1;
                failures.push(format!("{}: false positive {}", case.file, lines.join("|")));
            }
            continue;
        }
        n_mrz += 1;
        if let FileOutcome::Reading(image) = &outcome
            && let Some(reading) = &image.reading
        {
            calibration.add(reading, &case.truth, &options);
        }
        let exact = lines == case.truth;
        n_exact += usize::from(exact);
        n_read_exact += usize::from(exact && status == Some(Status::Read));
        n_valid += usize::from(valid);
        n_valid_wrong += usize::from(valid && !exact);
        let over_covered = matches!(&outcome,
            FileOutcome::Reading(image) if crate::robustness::valid_over_wrong_covered_cell(image, &case.truth));
        n_valid_over_wrong_covered += usize::from(over_covered);
        n_read_wrong += usize::from(status == Some(Status::Read) && !exact);
        for (idx, truth_line) in case.truth.iter().enumerate() {
            chars_total += truth_line.len();
            if let Some(line) = lines.get(idx) {
                chars_right += truth_line.bytes().zip(line.bytes()).filter(|(a, b)| a == b).count();
            }
        }
        if !exact && status.is_some() {
            let flag = match (valid, over_covered) {
                (true, true) => ", valid over a wrong covered cell",
                (true, false) => ", valid",
                _ => "",
            };
            failures.push(format!(
                "{}: {:?}{flag}\n    got  {}\n    want {}",
                case.file,
                status.unwrap_or(Status::NoMrz),
                lines.join("|"),
                case.truth.join("|")
            ));
        }
    }
    timings.sort_by(f64::total_cmp);
    let mut report = Vec::new();
    let ratio = |n: usize, d: usize| if d == 0 { 0.0 } else { 100.0 * n as f64 / d as f64 };
    let median = percentile(&timings, 0.5);
    let p95 = percentile(&timings, 0.95);
    if args.json {
        let summary = json!({
            "images": cases.len(),
            "with_mrz": n_mrz,
            "exact": n_exact,
            "read_and_exact": n_read_exact,
            "all_check_digits_valid": n_valid,
            "valid_but_wrong": n_valid_wrong,
            "valid_over_wrong_covered_cell": n_valid_over_wrong_covered,
            "read_but_wrong": n_read_wrong,
            "character_accuracy": ratio(chars_right, chars_total) / 100.0,
            "without_mrz": n_negative,
            "false_positives": n_false_positive,
            "errors": n_errors,
            "median_ms": median,
            "p95_ms": p95,
            "field_confidence": calibration.to_json(),
        });
        report.push(summary.to_string());
    } else {
        if args.verbose {
            for failure in &failures {
                report.push(failure.clone());
            }
        }
        report.push(format!("images                     {}", cases.len()));
        report.push(format!("with an MRZ                {n_mrz}"));
        report
            .push(format!("every line exact           {n_exact} ({:.1} %)", ratio(n_exact, n_mrz)));
        report.push(format!("  of which status read     {n_read_exact}"));
        report
            .push(format!("all check digits valid     {n_valid} ({:.1} %)", ratio(n_valid, n_mrz)));
        report.push(format!("valid but wrong            {n_valid_wrong}"));
        report.push(format!("  over a covered cell      {n_valid_over_wrong_covered}"));
        report.push(format!("read but wrong             {n_read_wrong}"));
        report.push(format!("character accuracy         {:.2} %", ratio(chars_right, chars_total)));
        report.push(format!("without an MRZ             {n_negative}"));
        report.push(format!("false positives            {n_false_positive}"));
        report.push(format!("unreadable files           {n_errors}"));
        report.push(format!("median ms per image        {median:.1}"));
        report.push(format!("p95 ms per image           {p95:.1}"));
        calibration.render(&mut report);
    }
    crate::output::print_text(&report.join("\n"))?;
    Ok(ExitCode::SUCCESS)
}

/// `mrtd eval --robustness`: the variants of every photo read exactly as it is.
fn run_robustness(args: &EvalArgs, cases: &[Case]) -> anyhow::Result<ExitCode> {
    use crate::robustness::{Kind, Tally, measure};
    let engine = EngineBuilder::new().build();
    let options = ParseOptions::default();
    let mut tallies = vec![Tally::default(); Kind::ALL.len()];
    let mut calibration = Calibration::default();
    let (mut photos, mut without_baseline) = (0, Vec::new());
    if let Some(dir) = &args.save_variants {
        std::fs::create_dir_all(dir).map_err(|error| {
            CliError::Unusable(format!("cannot create {}: {error}", dir.display()))
        })?;
    }
    for case in cases.iter().filter(|case| !case.truth.is_empty()) {
        let path = args.image_dir.join(&case.file);
        let bytes = std::fs::read(&path).map_err(|error| {
            CliError::Unusable(format!("cannot read {}: {error}", path.display()))
        })?;
        match measure(
            &engine,
            &options,
            &case.file,
            &bytes,
            &case.truth,
            &mut tallies,
            &mut calibration,
            args.save_variants.as_deref(),
        )? {
            Some(()) => photos += 1,
            None => without_baseline.push(case.file.clone()),
        }
    }
    let wrong: usize = tallies.iter().map(|t| t.read_wrong + t.valid_over_wrong_covered).sum();
    let mut report = Vec::new();
    if args.json {
        let kinds: Vec<serde_json::Value> =
            Kind::ALL.iter().zip(&tallies).map(|(kind, tally)| tally.to_json(*kind)).collect();
        let summary = json!({
            "photos": photos,
            "not_read_exactly_as_they_are": without_baseline,
            "kinds": kinds,
            "field_confidence": calibration.to_json(),
        });
        report.push(summary.to_string());
    } else {
        report.push(format!("photos read exactly as they are, so varied: {photos}"));
        for file in &without_baseline {
            report.push(format!("  not varied (not read exactly as it is): {file}"));
        }
        report.push(format!(
            "{:<15} {:>8} {:>6} {:>6} {:>11} {:>22}",
            "variant", "photos", "exact", "read", "wrong read", "valid over wrong cell"
        ));
        for (kind, tally) in Kind::ALL.iter().zip(&tallies) {
            report.push(format!(
                "{:<15} {:>8} {:>6} {:>6} {:>11} {:>22}",
                kind.name(),
                tally.variants,
                tally.exact,
                tally.read,
                tally.read_wrong,
                tally.valid_over_wrong_covered
            ));
        }
        calibration.render(&mut report);
        if args.verbose || wrong > 0 {
            for line in tallies.iter().flat_map(|t| &t.wrong) {
                report.push(line.clone());
            }
        }
    }
    crate::output::print_text(&report.join("\n"))?;
    Ok(if wrong == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
