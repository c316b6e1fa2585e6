//! The visual zone through the real binary: `mrtd scan --visual-zone` and `scan_document`
//! with `visual_zone: true` read the page's printed fields and compare them with the MRZ;
//! without the flag nothing is read.

use crate::support;

use std::process::Command;

use serde_json::{Value, json};
use support::{ServerProcess, client::Revision};

/// The German specimen passport: every field labelled in three languages.
const GERMAN: &str = "100_pass-bdr.jpg";

fn scan(flags: &[&str]) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .args(["scan", "--json"])
        .args(flags)
        .arg(support::image_path(GERMAN))
        .output()
        .expect("mrtd runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

/// The specimen's page as a person reads it.
fn assert_german_page(zone: &Value) {
    assert_eq!(zone["status"], "read", "{zone}");
    for (field, value) in [
        ("surname", "MUSTERMANN"),
        ("given_names", "ERIKA"),
        ("birth_date", "12.08.1964"),
        ("place_of_birth", "BERLIN"),
        ("date_of_issue", "22.02.2008"),
        ("issuing_authority", "BUNDESDRUCKEREI"),
    ] {
        assert_eq!(zone["fields"][field]["value"], value, "{field} in {zone}");
    }
    let surname = &zone["fields"]["surname"];
    assert!(surname["label"].as_str().is_some_and(|label| label.contains("Surname")));
    assert!(surname["confidence"].as_f64().is_some_and(|c| c > 0.5 && c <= 1.0));
    assert_eq!(surname["box"].as_array().map(Vec::len), Some(4));
    assert_eq!(zone["matches_mrz"], true, "{zone}");
    assert_eq!(zone["agreement"]["surname"], "agrees");
    assert_eq!(zone["agreement"]["birth_date"], "agrees");
}

#[test]
fn scan_reads_the_visual_zone_only_when_asked() {
    let result = scan(&["--visual-zone"]);
    assert_german_page(&result["visual_zone"]);
    let codes = support::diagnostic_codes(&result);
    assert!(!codes.contains(&"visual_zone_differs"), "{codes:?}");

    let plain = scan(&[]);
    assert!(plain.get("visual_zone").is_none(), "read without being asked: {plain}");
}

#[test]
fn scan_document_reads_the_visual_zone_when_asked_and_refuses_a_flag_that_is_no_boolean() {
    let mut server = ServerProcess::http(&[]);
    let mut client = server.client(Revision::Modern, json!({}));
    let image = support::image_base64(GERMAN);
    let scanned =
        client.call("scan_document", json!({ "image_base64": image, "visual_zone": true }));
    assert_german_page(&scanned.ok()["visual_zone"]);
    let refused =
        client.call("scan_document", json!({ "image_base64": image, "visual_zone": "yes" }));
    assert!(refused.error_text().contains("visual_zone"), "{:?}", refused.error_text());
}

#[test]
fn scan_of_both_sides_reads_the_fields_of_the_side_without_the_mrz() {
    // The German specimen's page cut in two, as a card's front (the printed fields) and
    // back (the MRZ), given in either order.
    let sides = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/sides");
    let (front, back) = (sides.join("portrait-side.jpg"), sides.join("mrz-side.jpg"));
    for (first, second) in [(&back, &front), (&front, &back)] {
        let output = Command::new(env!("CARGO_BIN_EXE_mrtd"))
            .args(["scan", "--json", "--visual-zone"])
            .arg(first)
            .arg("--other-side")
            .arg(second)
            .output()
            .expect("mrtd runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let result: Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
        assert_eq!(result["status"], "read", "{result}");
        let zone = &result["visual_zone"];
        assert_eq!(zone["status"], "read", "{zone}");
        for (field, value) in
            [("surname", "MUSTERMANN"), ("given_names", "ERIKA"), ("place_of_birth", "BERLIN")]
        {
            assert_eq!(zone["fields"][field]["value"], value, "{field} in {zone}");
            assert_eq!(zone["fields"][field]["other_side"], true, "{field} in {zone}");
        }
        // Its box lies on the front's photo (937 pixels wide).
        let right = zone["fields"]["surname"]["box"][2].as_f64().expect("a box");
        assert!(right < 937.0, "{zone}");
        assert_eq!(zone["matches_mrz"], true, "{zone}");
        assert_eq!(zone["agreement"]["surname"], "agrees", "{zone}");
        assert_eq!(result["other_side"]["status"], "no_mrz", "{result}");
    }

    // The front alone: its fields, compared with nothing, and the advice to turn it over.
    let output = Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .args(["scan", "--json", "--visual-zone"])
        .arg(&front)
        .output()
        .expect("mrtd runs");
    assert_eq!(output.status.code(), Some(1), "not read");
    let result: Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert_eq!(support::diagnostic_codes(&result).first(), Some(&"turn_over"), "{result}");
    let zone = &result["visual_zone"];
    assert_eq!(zone["status"], "read", "{zone}");
    assert_eq!(zone["fields"]["surname"]["value"], "MUSTERMANN", "{zone}");
    assert!(zone["fields"]["surname"].get("other_side").is_none(), "the photo itself: {zone}");
    assert_eq!(zone["matches_mrz"], Value::Null, "{zone}");
    assert!(zone.get("agreement").is_none(), "{zone}");
}
