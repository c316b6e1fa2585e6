//! `mrtd eval --robustness` on the repository's real photos, through the binary: every
//! photo cut, shrunk, compressed and blurred; none of the variants may come back `read`
//! with a wrong character or `valid` over a wrong character a check digit covers.

use std::{path::Path, process::Command};

use serde_json::Value;

#[test]
fn no_variant_of_a_real_photo_is_read_wrongly_or_valid_over_a_wrong_cell() {
    let images = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/images");
    let output = Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .args(["eval", "--robustness", "--json"])
        .arg(images.join("MANIFEST.tsv"))
        .arg(&images)
        .output()
        .expect("mrtd eval runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|error| {
        panic!("{error}: {stdout}\n{}", String::from_utf8_lossy(&output.stderr))
    });
    // Every specimen reads exactly as it is, so every one is varied.
    assert_eq!(report["photos"], 12, "{report}");
    let kinds = report["kinds"].as_array().expect("one entry per kind");
    assert_eq!(kinds.len(), 12, "{report}");
    for kind in kinds {
        assert!(kind["variants"].as_u64().unwrap() >= 11, "{kind}");
        assert_eq!(kind["read_but_wrong"], 0, "{kind}");
        assert_eq!(kind["valid_over_wrong_covered_cell"], 0, "{kind}");
    }
    // A dark blue ballpoint stroke through every line: 3 of 12 exact with the colour looked
    // at by its brightest channel alone, 4 once it is lifted by its colour too.
    let pen = kinds.iter().find(|kind| kind["kind"] == "pen_line").expect("a pen line");
    assert!(pen["exact"].as_u64().unwrap() >= 4, "{pen}");
    // Field confidence over every variant says how far to trust each field: measured at
    // 0.045 expected calibration error when it was introduced; 0.08 leaves room for retraining.
    let calibration = &report["field_confidence"];
    assert!(calibration["fields"].as_u64().unwrap() > 500, "{calibration}");
    let error = calibration["expected_calibration_error"].as_f64().unwrap();
    assert!(error < 0.08, "field confidence is poorly calibrated: {calibration}");
    let bins = calibration["reliability"].as_array().unwrap();
    let top = bins.last().unwrap();
    assert!(top["exact"].as_f64().unwrap() > 0.97, "fields at confidence 1 are right: {top}");
    assert!(output.status.success(), "{report}");
}

#[test]
fn save_variants_writes_each_variant_of_each_photo() {
    let images = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/images");
    let manifest = std::fs::read_to_string(images.join("MANIFEST.tsv")).unwrap();
    let mut lines = manifest.lines();
    let header = lines.next().unwrap();
    let uto = lines.find(|line| line.starts_with("100_pass-uto.jpg\t")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("MANIFEST.tsv"), format!("{header}\n{uto}\n")).unwrap();
    let out = dir.path().join("variants");
    let output = Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .args(["eval", "--robustness", "--json", "--save-variants"])
        .arg(&out)
        .arg(dir.path().join("MANIFEST.tsv"))
        .arg(&images)
        .output()
        .expect("mrtd eval runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 12, "{names:?}");
    for kind in ["cut_50", "lines_8px", "pen_line", "frame", "sleeve_glare"] {
        assert!(names.contains(&format!("100_pass-uto.{kind}.png")), "{kind}: {names:?}");
    }
    assert!(names.contains(&"100_pass-uto.jpeg_q20.jpg".to_owned()), "{names:?}");
    let saved = std::fs::read(out.join("100_pass-uto.pen_line.png")).unwrap();
    assert!(saved.starts_with(b"\x89PNG"), "a PNG");

    // A folder that cannot be made is a clear error, not a run without the variants.
    let blocked = dir.path().join("a-file");
    std::fs::write(&blocked, "").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .args(["eval", "--robustness", "--save-variants"])
        .arg(blocked.join("variants"))
        .arg(dir.path().join("MANIFEST.tsv"))
        .arg(&images)
        .output()
        .expect("mrtd eval runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot create"), "{stderr}");
}
