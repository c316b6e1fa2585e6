//! `mrtd scan`: reads the MRZ in image files, folders and globs.
//!
//! Output: a table on a terminal, otherwise (or with `--json`) one JSON object
//! per image per line. Exit status: 0 when every image was read, 2 when any
//! image was only partly read, had no MRZ or could not be decoded.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use mrtd_engine::{Engine, EngineBuilder, ImageReading, ParseOptions, Status};
use serde_json::{Value, json};

/// Arguments of `mrtd scan`.
#[derive(Debug, clap::Args)]
pub(crate) struct ScanArgs {
    /// Image files, folders (searched recursively) or glob patterns.
    #[arg(value_name = "PATH", required = true)]
    paths: Vec<String>,
    /// Print one JSON object per image per line (the default when stdout is not a terminal).
    #[arg(long)]
    json: bool,
    /// Do not show a progress bar.
    #[arg(long)]
    no_progress: bool,
}

/// Exit status when some image was not read.
const EXIT_NOT_READ: u8 = 2;

/// Image extensions picked up when a folder is scanned.
const EXTENSIONS: [&str; 8] = ["jpg", "jpeg", "png", "webp", "tif", "tiff", "bmp", "jfif"];

/// Expands the arguments into a sorted list of files.
pub(crate) fn expand_paths(patterns: &[String]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for pattern in patterns {
        let path = Path::new(pattern);
        if path.is_dir() {
            collect_dir(path, &mut files)?;
        } else if path.exists() {
            files.push(path.to_path_buf());
        } else {
            let matches: Vec<PathBuf> = glob::glob(pattern)
                .with_context(|| format!("invalid glob pattern {pattern:?}"))?
                .filter_map(Result::ok)
                .collect();
            if matches.is_empty() {
                anyhow::bail!("{pattern}: no such file, folder or matching glob");
            }
            for matched in matches {
                if matched.is_dir() {
                    collect_dir(&matched, &mut files)?;
                } else {
                    files.push(matched);
                }
            }
        }
    }
    Ok(files)
}

fn collect_dir(dir: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            collect_dir(&entry, files)?;
        } else if entry
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        {
            files.push(entry);
        }
    }
    Ok(())
}

/// The outcome of one file: a reading, or why the file could not be used.
pub(crate) enum FileOutcome {
    Reading(Box<ImageReading>),
    Error(String),
}

/// Reads one file with the engine.
pub(crate) fn read_file(engine: &Engine, path: &Path, options: &ParseOptions) -> FileOutcome {
    match std::fs::read(path) {
        Ok(bytes) => match engine.read(&bytes, options) {
            Ok(reading) => FileOutcome::Reading(Box::new(reading)),
            Err(error) => FileOutcome::Error(error.to_string()),
        },
        Err(error) => FileOutcome::Error(format!("cannot read the file: {error}")),
    }
}

fn status_name(status: Status) -> &'static str {
    match status {
        Status::Read => "read",
        Status::Partial => "partial",
        Status::NoMrz => "no_mrz",
    }
}

/// The JSON object printed for one file.
pub(crate) fn to_json(file: &Path, outcome: &FileOutcome) -> Value {
    match outcome {
        FileOutcome::Error(message) => json!({
            "file": file.display().to_string(),
            "status": "error",
            "format": null,
            "lines": [],
            "valid": false,
            "fields": {},
            "checks": [],
            "corrections": [],
            "diagnostics": [{"code": "error", "message": message}],
            "timing_ms": null,
        }),
        FileOutcome::Reading(image) => {
            let reading = image.reading.as_ref();
            json!({
                "file": file.display().to_string(),
                "status": status_name(image.status),
                "format": reading.map(|r| r.format.as_str()),
                "lines": reading.map(|r| r.lines.clone()).unwrap_or_default(),
                "valid": reading.is_some_and(|r| r.valid),
                "fields": reading.map(|r| json!(r.fields)).unwrap_or(json!({})),
                "checks": reading.map(|r| json!(r.checks)).unwrap_or(json!([])),
                "corrections": reading.map(|r| json!(r.corrections)).unwrap_or(json!([])),
                "ambiguities": reading.map(|r| json!(r.ambiguities)).unwrap_or(json!([])),
                "warnings": reading.map(|r| json!(r.warnings)).unwrap_or(json!([])),
                "diagnostics": image.diagnostics,
                "rotation_degrees": image.rotation_degrees,
                "region": image.region,
                "image": {"width": image.image_width, "height": image.image_height, "format": image.image_format},
                "timing_ms": (image.timing_ms * 10.0).round() / 10.0,
            })
        }
    }
}

fn table_row(file: &Path, outcome: &FileOutcome) -> String {
    let name = file.display().to_string();
    match outcome {
        FileOutcome::Error(message) => format!("{name:<36} {:<8} {message}", "error"),
        FileOutcome::Reading(image) => {
            let status = status_name(image.status);
            match &image.reading {
                Some(reading) => {
                    let fields = &reading.fields;
                    let name_text = format!("{}, {}", fields.surname, fields.given_names);
                    format!(
                        "{name:<36} {status:<8} {:<6} {:<12} {:<30} {:>6.0} ms",
                        reading.format.as_str(),
                        fields.document_number,
                        name_text,
                        image.timing_ms
                    )
                }
                None => {
                    let why = image.diagnostics.first().map(|d| d.message.as_str()).unwrap_or("");
                    format!("{name:<36} {status:<8} {why}")
                }
            }
        }
    }
}

/// Runs `mrtd scan`.
pub(crate) fn run(args: ScanArgs) -> anyhow::Result<ExitCode> {
    let files = expand_paths(&args.paths)?;
    let engine = EngineBuilder::new().build();
    let options = ParseOptions::default();
    let stdout = std::io::stdout();
    let as_json = args.json || !stdout.is_terminal();
    let progress = if files.len() > 1 && !args.no_progress && std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(files.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed_precise} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Some(bar)
    } else {
        None
    };
    let mut out = stdout.lock();
    if !as_json {
        let header = format!(
            "{:<36} {:<8} {:<6} {:<12} {:<30} {:>9}",
            "FILE", "STATUS", "FORMAT", "NUMBER", "NAME", "TIME"
        );
        write_line(&mut out, &header, progress.as_ref())?;
    }
    let mut all_read = true;
    for file in &files {
        let outcome = read_file(&engine, file, &options);
        all_read &= matches!(&outcome, FileOutcome::Reading(r) if r.status == Status::Read);
        let line =
            if as_json { to_json(file, &outcome).to_string() } else { table_row(file, &outcome) };
        if !write_line(&mut out, &line, progress.as_ref())? {
            // The reader went away (a closed pipe): stop quietly.
            return Ok(ExitCode::SUCCESS);
        }
        if let Some(bar) = &progress {
            bar.inc(1);
        }
    }
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    Ok(if all_read { ExitCode::SUCCESS } else { ExitCode::from(EXIT_NOT_READ) })
}

/// Writes a line above the progress bar; returns false when stdout is closed.
fn write_line(
    out: &mut impl Write,
    line: &str,
    progress: Option<&indicatif::ProgressBar>,
) -> anyhow::Result<bool> {
    let result = match progress {
        Some(bar) => bar.suspend(|| writeln!(out, "{line}")),
        None => writeln!(out, "{line}"),
    };
    match result {
        Ok(()) => Ok(true),
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(error) => Err(error).context("writing to standard output"),
    }
}
