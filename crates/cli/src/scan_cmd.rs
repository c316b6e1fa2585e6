//! `mrtd scan`: reads the MRZ in image files, folders and globs.
//!
//! Output: a table on a terminal, otherwise one JSON object per image per line
//! (`--format` chooses). Exit status: the worst outcome of the batch: 0 when every
//! image was read, 1 when some image was only partly read or had no MRZ, 3 when some
//! file could not be used (missing, not an image, over the limits).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use mrtd_engine::{Engine, EngineBuilder, ImageReading, ParseOptions};
use mrtd_service::ops::Extras;
use mrtd_service::read::{PhotoRead, read_photo};
use mrtd_service::result::DocumentResult;
use serde_json::{Value, json};

use crate::exit::{CliError, Exit, usage};
use crate::output::{Format, reading_table};

/// Arguments of `mrtd scan`.
#[derive(Debug, clap::Args)]
pub(crate) struct ScanArgs {
    /// Image files, folders (searched recursively) or glob patterns; `-` reads one image
    /// from standard input.
    #[arg(value_name = "PATH", required = true)]
    paths: Vec<String>,
    /// Reference date for centuries, expiry and age, as YYYY-MM-DD (default: today, UTC).
    #[arg(long, value_name = "YYYY-MM-DD")]
    today: Option<String>,
    /// Output format (default: table on a terminal, ndjson otherwise).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// The same as `--format ndjson`.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// Do not show a progress bar.
    #[arg(long)]
    no_progress: bool,
    /// A photo of the document's other side (a card's front or back, either order), read
    /// together with the one PATH: the result is of the side with the MRZ, and
    /// `other_side` names the other.
    #[arg(long, value_name = "PATH")]
    other_side: Option<PathBuf>,
    /// Also give the document's page, straightened, and the holder's portrait as JPEG images
    /// (`images` in the JSON, base64, 8 pixels per page millimetre).
    #[arg(long)]
    include_images: bool,
    /// Also read the visual zone, the fields printed for people (date of issue, place of
    /// birth, issuing authority, personal number, names as printed), and compare those the
    /// MRZ holds with it (`visual_zone` in the JSON; seconds more a photo).
    #[arg(long)]
    visual_zone: bool,
}

/// The path that stands for standard input.
const STDIN: &str = "-";

/// Image extensions picked up when a folder is scanned.
use mrtd_service::IMAGE_EXTENSIONS as EXTENSIONS;

/// The files to read, and the files found in folders that were left out because their
/// extension is not an image's (hidden files aside).
#[derive(Debug, Default)]
pub(crate) struct Expanded {
    pub(crate) files: Vec<PathBuf>,
    pub(crate) skipped: Vec<PathBuf>,
}

/// Expands the arguments into a sorted list of files.
pub(crate) fn expand_paths(patterns: &[String]) -> anyhow::Result<Expanded> {
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    let mut missing = Vec::new();
    for pattern in patterns {
        let path = Path::new(pattern);
        if pattern == STDIN {
            files.push(path.to_path_buf());
        } else if path.is_dir() {
            let before = files.len();
            collect_dir(path, &mut files, &mut skipped)?;
            if files.len() == before {
                return Err(CliError::Unusable(format!(
                    "{pattern}: no image files in this folder (looked for {})",
                    EXTENSIONS.join(", ")
                ))
                .into());
            }
        } else if path.exists() {
            files.push(path.to_path_buf());
        } else {
            let matches: Vec<PathBuf> = glob::glob(pattern)
                .map_err(|error| {
                    CliError::Usage(format!("invalid glob pattern {pattern:?}: {error}"))
                })?
                .filter_map(Result::ok)
                .collect();
            if matches.is_empty() {
                // Kept in the batch, where reading it fails with the reason, so that one
                // mistyped name does not cost the rest their readings.
                missing.push(pattern.as_str());
                files.push(path.to_path_buf());
                continue;
            }
            for matched in matches {
                if matched.is_dir() {
                    collect_dir(&matched, &mut files, &mut skipped)?;
                } else {
                    files.push(matched);
                }
            }
        }
    }
    if let Some(first) = missing.first().filter(|_| missing.len() == files.len()) {
        return Err(
            CliError::Unusable(format!("{first}: no such file, folder or matching glob")).into()
        );
    }
    for pattern in missing {
        eprintln!("mrtd: {pattern}: no such file, folder or matching glob; the rest are read");
    }
    Ok(Expanded { files, skipped })
}

fn collect_dir(
    dir: &Path,
    files: &mut Vec<PathBuf>,
    skipped: &mut Vec<PathBuf>,
) -> anyhow::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|error| CliError::Unusable(format!("cannot list {}: {error}", dir.display())))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for entry in entries {
        let hidden = entry.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if entry.is_dir() {
            collect_dir(&entry, files, skipped)?;
        } else if entry
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        {
            files.push(entry);
        } else if !hidden {
            skipped.push(entry);
        }
    }
    Ok(())
}

/// The outcome of one file: a reading, or why the file could not be used.
pub(crate) enum FileOutcome {
    Reading(Box<ImageReading>),
    Error(String),
}

/// The bytes of a file, or of standard input for `-`.
fn file_bytes(path: &Path) -> Result<Vec<u8>, String> {
    let bytes = if path == Path::new(STDIN) {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes).map(|_| bytes)
    } else {
        std::fs::read(path)
    };
    bytes.map_err(|error| format!("cannot read the file: {error}"))
}

/// Reads one file with the engine.
pub(crate) fn read_file(engine: &Engine, path: &Path, options: &ParseOptions) -> FileOutcome {
    let read = file_bytes(path)
        .and_then(|bytes| engine.read(&bytes, options).map_err(|error| error.to_string()));
    match read {
        Ok(reading) => FileOutcome::Reading(Box::new(reading)),
        Err(message) => FileOutcome::Error(message),
    }
}

/// One file read by `scan`: the document result every front end returns, with the page and
/// portrait images when asked for, or why the file could not be used.
type Scanned = Result<DocumentResult, String>;

fn scan_file(engine: &Engine, path: &Path, options: &ParseOptions, extras: Extras) -> Scanned {
    read_photo_file(engine, path, options, extras).map(|read| read.result)
}

/// The photo in `path` read as every door reads one ([`mrtd_service::read::read_photo`]).
fn read_photo_file(
    engine: &Engine,
    path: &Path,
    options: &ParseOptions,
    extras: Extras,
) -> Result<PhotoRead, String> {
    let bytes = file_bytes(path)?;
    read_photo(engine, bytes, options, extras).map_err(|error| error.to_string())
}

/// The JSON object printed for one file: the document result every front end returns
/// (`mrtd_service::result::DocumentResult`), with the file's name.
fn to_json(file: &Path, scanned: &Scanned) -> Value {
    let mut result = match scanned {
        Err(message) => json!({
            "status": "error",
            "format": null,
            "lines": [],
            "valid": false,
            "fields": null,
            "checks": [],
            "corrections": [],
            "warnings": [],
            "diagnostics": [{"code": "error", "message": message}],
        }),
        Ok(result) => result.to_value(),
    };
    if let Value::Object(object) = &mut result {
        object.insert("file".into(), json!(file.display().to_string()));
    }
    result
}

/// Reads a photo and one of the document's other side, as `scan_document` does with
/// `other_side` ([`mrtd_service::read::sides`]), and the exit status the pair earns.
fn scan_sides(
    engine: &Engine,
    (file, other): (&Path, &Path),
    options: &ParseOptions,
    extras: Extras,
) -> (Exit, Value) {
    let alone = Extras { visual_zone: false, ..extras };
    let read = |path: &Path| read_photo_file(engine, path, options, alone);
    // A side that cannot be used makes the pair unusable.
    match (read(file), read(other)) {
        (Ok(first), Ok(second)) => {
            let result = mrtd_service::read::sides(engine, first, second, extras.visual_zone);
            pair_json(file, result, other)
        }
        (Err(message), _) => (Exit::Unusable, to_json(file, &Err(message))),
        (_, Err(message)) => {
            let message = format!("the other side, {}: {message}", other.display());
            (Exit::Unusable, to_json(file, &Err(message)))
        }
    }
}

/// The JSON of a pair's result ([`DocumentResult::from_sides`]) and the exit status it earns.
fn pair_json(file: &Path, result: DocumentResult, other: &Path) -> (Exit, Value) {
    let exit = if result.is_read() { Exit::Success } else { Exit::NotRead };
    // The result is of the side with the better reading; each side names its file.
    let (this, that) = match result.other_side.as_ref().map(|side| side.photo) {
        Some(1) => (other, file),
        _ => (file, other),
    };
    let mut value = result.to_value();
    value["other_side"]["file"] = json!(that.display().to_string());
    if let Value::Object(object) = &mut value {
        object.insert("file".into(), json!(this.display().to_string()));
    }
    (exit, value)
}

/// The exit status one file earns.
fn outcome_exit(scanned: &Scanned) -> Exit {
    match scanned {
        Err(_) => Exit::Unusable,
        Ok(result) if result.is_read() => Exit::Success,
        Ok(_) => Exit::NotRead,
    }
}

/// The columns of the batch table, sized to the longest file name.
struct Table {
    file_width: usize,
}

impl Table {
    fn new(files: &[PathBuf]) -> Table {
        let longest = files.iter().map(|f| f.display().to_string().chars().count()).max();
        Table { file_width: longest.unwrap_or(4).clamp(4, 60) }
    }

    fn header(&self) -> String {
        format!(
            "{:<w$}  {:<7}  {:<6}  {:<7}  {:<12}  {:<30}  {:>7}",
            "FILE",
            "STATUS",
            "FORMAT",
            "CHECKS",
            "NUMBER",
            "NAME",
            "TIME",
            w = self.file_width
        )
    }

    /// One row: the file, what was read and the verdict of its check digits.
    fn row(&self, result: &Value) -> String {
        let file = result["file"].as_str().unwrap_or("");
        let status = result["status"].as_str().unwrap_or("");
        let text = |v: &Value| v.as_str().unwrap_or("").to_owned();
        if result["format"].is_null() {
            let why = result["diagnostics"][0]["message"].as_str().unwrap_or("");
            return format!("{file:<w$}  {status:<7}  {why}", w = self.file_width);
        }
        let checks = result["checks"].as_array().map(Vec::as_slice).unwrap_or_default();
        let printed = checks.iter().filter(|c| c["status"] != "absent").count();
        let verified = checks.iter().filter(|c| c["status"] == "verified").count();
        let verdict = format!("{verified}/{printed}");
        let fields = &result["fields"];
        let name = format!("{}, {}", text(&fields["surname"]), text(&fields["given_names"]));
        let time = result["timing_ms"].as_f64().map(|ms| format!("{ms:.0} ms")).unwrap_or_default();
        format!(
            "{file:<w$}  {status:<7}  {:<6}  {verdict:<7}  {:<12}  {name:<30}  {time:>7}",
            text(&result["format"]),
            text(&fields["document_number"]),
            w = self.file_width
        )
    }
}

/// Counts of each outcome, for the JSON document and the table's last line.
fn summary(results: &[Value], skipped: usize) -> Value {
    let count = |status: &str| results.iter().filter(|r| r["status"] == status).count();
    json!({
        "files": results.len(),
        "skipped": skipped,
        "read": count("read"),
        "partial": count("partial"),
        "no_mrz": count("no_mrz"),
        "error": count("error"),
    })
}

/// Runs `mrtd scan`.
pub(crate) fn run(args: ScanArgs) -> anyhow::Result<ExitCode> {
    let Expanded { files, skipped } = expand_paths(&args.paths)?;
    if !skipped.is_empty() {
        // Said once, before the results, so a batch's output stays one result per file.
        let shown: Vec<String> = skipped.iter().take(5).map(|p| p.display().to_string()).collect();
        let more = skipped.len().saturating_sub(shown.len());
        eprintln!(
            "mrtd: skipped {} file(s) in the folders given that are not images by their name ({}): {}{}",
            skipped.len(),
            EXTENSIONS.join(", "),
            shown.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        );
    }
    if args.other_side.is_some() && files.len() != 1 {
        usage!(
            "--other-side goes with one photo, the document's first side; {} were given",
            files.len()
        );
    }
    let engine = EngineBuilder::new().build();
    let options = match args.today.as_deref() {
        Some(text) => match mrtd_mrz::Date::parse_iso(text) {
            Ok(date) => ParseOptions::new(date),
            Err(error) => usage!("--today: {error}"),
        },
        None => ParseOptions::default(),
    };
    let format =
        if args.json { Format::Ndjson } else { Format::resolve(args.format, Format::Ndjson) };
    // One file in a table gets the full field view; a batch gets one row per file.
    let detailed = format == Format::Table && files.len() == 1;
    let table = Table::new(&files);
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
    let mut out = std::io::stdout().lock();
    let header = match format {
        Format::Table if !detailed => Some(table.header()),
        Format::Csv => Some(crate::output::csv_header()),
        _ => None,
    };
    if let Some(header) = header
        && !write_line(&mut out, &header, progress.as_ref())?
    {
        return Ok(ExitCode::SUCCESS);
    }
    let mut worst = Exit::Success;
    let mut results = Vec::new();
    for file in &files {
        let extras = Extras { images: args.include_images, visual_zone: args.visual_zone };
        let (exit, result) = match &args.other_side {
            Some(other) => scan_sides(&engine, (file, other), &options, extras),
            None => {
                let scanned = scan_file(&engine, file, &options, extras);
                (outcome_exit(&scanned), to_json(file, &scanned))
            }
        };
        worst = worst.max(exit);
        let line = match format {
            Format::Json => None,
            Format::Ndjson => Some(result.to_string()),
            Format::Csv => Some(crate::output::csv_line(&result)),
            Format::Table if detailed => Some(detailed_view(&result)),
            Format::Table => Some(table.row(&result)),
        };
        if let Some(line) = line
            && !write_line(&mut out, &line, progress.as_ref())?
        {
            // The reader went away (a closed pipe): stop quietly.
            return Ok(ExitCode::SUCCESS);
        }
        if let Some(bar) = &progress {
            bar.inc(1);
        }
        results.push(result);
    }
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    let summary = summary(&results, skipped.len());
    let closing = match format {
        Format::Json => {
            let document = json!({"results": results, "summary": summary});
            Some(serde_json::to_string_pretty(&document).context("serialising the results")?)
        }
        Format::Table if !detailed => Some(format!(
            "{} files: {} read, {} partly read, {} without an MRZ, {} unusable{}",
            summary["files"],
            summary["read"],
            summary["partial"],
            summary["no_mrz"],
            summary["error"],
            if skipped.is_empty() {
                String::new()
            } else {
                format!("; {} skipped (not images)", skipped.len())
            }
        )),
        _ => None,
    };
    if let Some(text) = closing {
        write_line(&mut out, &text, None)?;
    }
    Ok(worst.into())
}

/// The full view of one file: its status, then the reading's fields and verdicts.
fn detailed_view(result: &Value) -> String {
    let mut text = format!(
        "{:<20} {}\n{:<20} {}\n",
        "File",
        result["file"].as_str().unwrap_or(""),
        "Status",
        result["status"].as_str().unwrap_or("")
    );
    if result["format"].is_null() {
        for diagnostic in result["diagnostics"].as_array().map(Vec::as_slice).unwrap_or_default() {
            text.push_str(&format!(
                "{:<20} {}\n",
                "Diagnostic",
                diagnostic["message"].as_str().unwrap_or("")
            ));
        }
    } else {
        text.push_str(&reading_table(result));
    }
    let other = &result["other_side"];
    if let Some(file) = other["file"].as_str() {
        let portrait = match other["portrait"]["box"].as_array() {
            Some(bbox) if other["portrait"]["face_found"] == true => {
                let numbers: Vec<String> = bbox.iter().map(Value::to_string).collect();
                format!("; a face at [{}]", numbers.join(", "))
            }
            _ => String::new(),
        };
        let status = other["status"].as_str().unwrap_or("");
        text.push_str(&format!("{:<20} {file} ({status}{portrait})\n", "Other side"));
    }
    text.trim_end().to_owned()
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
