//! `mrtd scan` and `mrtd eval` through the real binary, on the specimens in `tests/data/images`.

use std::path::PathBuf;
use std::process::Command;

fn images() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/images")
}

fn mrtd() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mrtd"))
}

#[test]
fn scan_prints_one_json_object_per_image() {
    let output = mrtd()
        .args(["scan", "--json"])
        .arg(images().join("100_pass-uto.jpg"))
        .arg(images().join("100_id-si.jpg"))
        .output()
        .expect("mrtd runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let objects: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect();
    assert_eq!(objects.len(), 2);
    let passport = &objects[0];
    assert_eq!(passport["status"], "read");
    assert_eq!(passport["format"], "TD3");
    assert_eq!(passport["valid"], true);
    assert_eq!(passport["lines"][1], "L898902C36UTO7408122F1204159ZE184226B<<<<<10");
    for key in ["file", "fields", "checks", "corrections", "diagnostics", "timing_ms"] {
        assert!(passport.get(key).is_some(), "missing {key}");
    }
    assert_eq!(passport["document"]["corners"].as_array().map(Vec::len), Some(4), "{passport}");
    assert_eq!(passport["document"]["complete"], true, "the page is wholly in the photo");
    assert_eq!(passport["portrait"]["box"].as_array().map(Vec::len), Some(4), "{passport}");
    assert_eq!(passport["portrait"]["face_found"], true);
    assert_eq!(objects[1]["format"], "TD1");
    assert!(objects[1].get("portrait").is_none(), "a TD1 card's back shows no portrait");
    assert!(objects[1]["document"]["corners"].is_array());
}

#[test]
fn scan_of_a_folder_reports_files_that_are_not_images() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::copy(images().join("100_pass2-uto.jpg"), dir.path().join("a.jpg")).expect("copy");
    std::fs::write(dir.path().join("b.png"), b"not a png").expect("write");
    let output = mrtd().args(["scan", "--json"]).arg(dir.path()).output().expect("mrtd runs");
    // Exit status 3: a file could not be used at all.
    assert_eq!(output.status.code(), Some(3));
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    let first: serde_json::Value = serde_json::from_str(lines[0]).expect("JSON");
    let second: serde_json::Value = serde_json::from_str(lines[1]).expect("JSON");
    assert_eq!(first["status"], "read");
    assert_eq!(second["status"], "error");
    assert!(second["diagnostics"][0]["message"].as_str().is_some_and(|m| m.contains("format")));
}

#[test]
fn eval_scores_the_specimen_manifest() {
    let output = mrtd()
        .args(["eval", "--json"])
        .arg(images().join("MANIFEST.tsv"))
        .arg(images())
        .output()
        .expect("mrtd runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summary: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert_eq!(summary["images"], 12);
    assert_eq!(summary["exact"], 12);
    assert_eq!(summary["read_but_wrong"], 0);
    assert_eq!(summary["valid_over_wrong_covered_cell"], 0);
    assert_eq!(summary["false_positives"], 0);
}

#[test]
fn scan_reads_a_photo_from_standard_input_with_a_reference_date() {
    let photo = std::fs::read(images().join("100_pass-uto.jpg")).unwrap();
    let mut child = mrtd()
        .args(["scan", "--json", "--today", "2010-01-01", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("mrtd runs");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &photo).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one object");
    assert_eq!(result["file"], "-");
    assert_eq!(result["status"], "read");
    assert_eq!(result["derived"]["reference_date"], "2010-01-01");
    assert_eq!(result["derived"]["expired"], false, "the passport expires in 2012");
}

#[test]
fn an_empty_folder_is_reported_and_exits_three() {
    let empty = tempfile::tempdir().unwrap();
    let output = mrtd().args(["scan", "--json"]).arg(empty.path()).output().expect("mrtd runs");
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no image files in this folder"), "{stderr}");
}

#[test]
fn the_table_of_a_partly_read_photo_gives_the_advice_and_never_says_valid() {
    let dir = tempfile::tempdir().unwrap();
    let picture = image::open(images().join("100_pass-uto.jpg")).unwrap();
    let table_of_cut = |tenths: u32| {
        let cut = picture.crop_imm(0, 0, picture.width() * tenths / 10, picture.height());
        let path = dir.path().join(format!("cut-{tenths}.png"));
        cut.save(&path).unwrap();
        let output = mrtd().args(["scan", "--format", "table"]).arg(&path).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "partly read");
        String::from_utf8(output.stdout).unwrap()
    };
    // The MRZ's last character runs off the right edge: read, with the advice to retake.
    let table = table_of_cut(9);
    assert!(table.contains("partial"), "{table}");
    assert!(table.contains("NOT VALID"), "{table}");
    assert!(table.lines().any(|line| line.starts_with("Advice")), "{table}");
    assert!(table.contains("runs off the right edge"), "{table}");
    // The page runs off the photo too, and its portrait is still placed.
    assert!(table.contains("partly outside the photo"), "{table}");
    assert!(table.lines().any(|line| line.starts_with("Portrait box")), "{table}");
    // The photo is upright: the turn is measured along the cells read, not the search angle.
    assert!(!table.contains("turned"), "{table}");
    // Cut at two thirds, the lines could be a shorter format's: no reading is given.
    let table = table_of_cut(6);
    assert!(table.contains("partial"), "{table}");
    assert!(!table.contains("VALID"), "{table}");
    assert!(table.contains("no reading is given"), "{table}");
    assert!(!table.contains("verify"), "no advice on characters not given: {table}");
}

#[test]
fn scan_writes_csv_for_spreadsheets() {
    let dir = tempfile::tempdir().unwrap();
    let not_image = dir.path().join("notes.png");
    std::fs::write(&not_image, "not a picture, just text").unwrap();
    let output = mrtd()
        .args(["scan", "--format", "csv"])
        .arg(images().join("100_pass-uto.jpg"))
        .arg(images().join("100_id-si.jpg"))
        .arg(&not_image)
        .output()
        .expect("mrtd runs");
    assert_eq!(output.status.code(), Some(3), "a file that is no image");
    let text = String::from_utf8(output.stdout).unwrap();
    let rows: Vec<Vec<String>> =
        text.lines().map(|line| line.split(',').map(str::to_owned).collect()).collect();
    assert_eq!(rows.len(), 4, "{text}");
    let column =
        |name: &str| rows[0].iter().position(|c| c == name).unwrap_or_else(|| panic!("{name}"));
    assert_eq!(rows[1][column("status")], "read");
    assert_eq!(rows[1][column("document_number")], "L898902C3");
    assert_eq!(rows[1][column("surname")], "ERIKSSON");
    assert_eq!(rows[1][column("valid")], "true");
    assert_eq!(rows[2][column("format")], "TD1");
    assert_eq!(rows[3][column("status")], "error");
    assert!(!rows[3][column("error")].is_empty(), "{text}");
}
