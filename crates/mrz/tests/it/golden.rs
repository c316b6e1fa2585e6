//! Golden tests: every `tests/data/vectors/<case>.txt` (one MRZ line per text line) is read with
//! reference date 2026-11-29 and its JSON compared with `<case>.json`.
//!
//! `UPDATE_GOLDEN=1 cargo test -p mrtd-mrz --test it -- golden::` rewrites the JSON files; review
//! the diff against the expected fields in `tests/it/vectors.rs` before committing it.

use std::fs;
use std::path::{Path, PathBuf};

use mrtd_mrz::{Date, ParseOptions, parse_text};

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/vectors")
}

fn render(case: &Path) -> String {
    let text = fs::read_to_string(case).expect("readable case");
    let lines: Vec<&str> = text.lines().filter(|line| !line.trim().is_empty()).collect();
    let options = ParseOptions::new(Date::parse_iso("2026-11-29").expect("valid date"));
    let reading = parse_text(&lines, &options).expect("every golden case is an MRZ");
    let mut json = serde_json::to_string_pretty(&reading).expect("serialisable");
    json.push('\n');
    json
}

/// Compares one case with its golden file, or rewrites it under `UPDATE_GOLDEN`.
fn check(case: &Path) -> Result<(), String> {
    let actual = render(case);
    let golden = case.with_extension("json");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        fs::write(&golden, &actual).expect("writable golden");
        return Ok(());
    }
    let expected = fs::read_to_string(&golden)
        .map_err(|error| format!("{}: {error} (run with UPDATE_GOLDEN=1)", golden.display()))?;
    if expected == actual {
        Ok(())
    } else {
        Err(format!("{} differs:\n{actual}", golden.display()))
    }
}

#[test]
fn golden_vectors() {
    let mut cases: Vec<PathBuf> = fs::read_dir(vectors_dir())
        .expect("vectors directory")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 22, "expected the 21 ICAO vectors and the OCR fixture");
    let failures: Vec<String> = cases.iter().filter_map(|case| check(case).err()).collect();
    assert!(failures.is_empty(), "{} golden mismatches:\n{}", failures.len(), failures.join("\n"));
}
