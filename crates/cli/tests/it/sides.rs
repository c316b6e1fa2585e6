//! `mrtd scan --other-side`: two photos of one document's sides read together, through the
//! real binary, and the advice a side without an MRZ gets alone.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn sides() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/sides")
}

fn scan(args: &[&Path]) -> (Output, Option<Value>) {
    let output = Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .args(["scan", "--json", "--today", "2026-01-01"])
        .args(args)
        .output()
        .expect("mrtd runs");
    let json = serde_json::from_slice(&output.stdout).ok();
    (output, json)
}

#[test]
fn the_side_with_the_mrz_gives_the_reading_and_the_other_its_portrait_in_either_order() {
    let portrait_side = sides().join("portrait-side.jpg");
    let mrz_side = sides().join("mrz-side.jpg");
    let flag = Path::new("--other-side");
    for (first, second, other_photo) in
        [(&portrait_side, &mrz_side, 1), (&mrz_side, &portrait_side, 2)]
    {
        let (output, result) = scan(&[first, flag, second]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let result = result.expect("one JSON object");
        assert_eq!(result["status"], "read", "{result}");
        assert_eq!(result["fields"]["surname"], "MUSTERMANN");
        assert_eq!(result["file"], mrz_side.display().to_string());
        assert!(result.get("portrait").is_none(), "the MRZ side shows no portrait: {result}");
        let other = &result["other_side"];
        assert_eq!(other["photo"], other_photo);
        assert_eq!(other["status"], "no_mrz");
        assert_eq!(other["file"], portrait_side.display().to_string());
        assert_eq!(other["portrait"]["face_found"], true, "{other}");
        assert_eq!(other["image"]["width"], 937);
        let codes = crate::support::diagnostic_codes(&result);
        assert!(!codes.contains(&"turn_over"), "both sides were given: {codes:?}");
    }
}

#[test]
fn the_portrait_side_alone_is_advised_to_be_turned_over() {
    let (output, result) =
        scan(&[&sides().join("portrait-side.jpg"), Path::new("--include-images")]);
    assert_eq!(output.status.code(), Some(1), "not read");
    let result = result.expect("one JSON object");
    assert_eq!(result["status"], "no_mrz");
    assert_eq!(result["diagnostics"][0]["code"], "turn_over", "{result}");
    assert_eq!(result["portrait"]["face_found"], true);
    assert!(result["images"].get("page").is_none(), "no zone, no page");
    assert!(result["images"]["portrait"]["width"].as_u64().is_some_and(|width| width > 100));
    assert!(result.get("other_side").is_none());
}

#[test]
fn the_other_side_goes_with_one_photo_and_a_missing_one_is_unusable() {
    let portrait_side = sides().join("portrait-side.jpg");
    let mrz_side = sides().join("mrz-side.jpg");
    let flag = Path::new("--other-side");
    let (output, _) = scan(&[&portrait_side, &mrz_side, flag, &mrz_side]);
    assert_eq!(output.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&output.stderr).contains("--other-side goes with one photo"));
    let missing = sides().join("no-such-side.jpg");
    let (output, result) = scan(&[&mrz_side, flag, &missing]);
    assert_eq!(output.status.code(), Some(3), "{}", String::from_utf8_lossy(&output.stderr));
    let result = result.expect("one JSON object");
    assert_eq!(result["status"], "error");
    let message = result["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("the other side"), "{message}");
}

fn side_base64(name: &str) -> String {
    use base64::Engine as _;
    let bytes = std::fs::read(sides().join(name)).expect("the side's photo exists");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[test]
fn scan_document_reads_both_sides_in_one_call_and_keeps_the_merged_result() {
    use crate::support::{ServerProcess, client::Revision, scan_id};
    use serde_json::json;

    let mut server = ServerProcess::http(&[]);
    let mut client = server.client(Revision::Modern, json!({}));
    let arguments = json!({
        "image_base64": side_base64("portrait-side.jpg"),
        "other_side_base64": side_base64("mrz-side.jpg"),
        "retain_hours": 1,
        "reference_date": "2026-01-01",
        "include_images": true,
    });
    // The client checks the structured content against the published output schema.
    let structured = client.call("scan_document", arguments).ok().clone();
    assert_eq!(structured["status"], "read", "{structured}");
    assert_eq!(structured["fields"]["surname"], "MUSTERMANN");
    assert_eq!(structured["other_side"]["photo"], 1);
    assert_eq!(structured["other_side"]["portrait"]["face_found"], true);
    // The page of the MRZ's side, and the portrait of the other: the face found, as a JPEG.
    assert_eq!(structured["images"]["pixels_per_mm"], 8.0);
    assert_eq!(
        structured["images"]["page"]["width"], 1000,
        "{}",
        structured["images"]["page"]["width"]
    );
    let portrait = &structured["other_side"]["images"]["portrait"];
    assert_eq!(portrait["mime_type"], "image/jpeg");
    assert!(
        portrait["data_base64"].as_str().is_some_and(|data| data.starts_with("/9j/")),
        "a JPEG"
    );
    let id = scan_id(&structured);
    let kept = client.call("get_scan", json!({ "scan_id": id })).ok().clone();
    assert_eq!(kept["other_side"]["photo"], 1, "the pair is kept as one result");
    assert_eq!(kept["fields"], structured["fields"]);
    assert!(kept.get("images").is_none(), "images are answered, not kept in the result: {kept}");
    assert!(kept["other_side"].get("images").is_none(), "nor the other side's");
    // The portrait alone is kept, beside the result, and linked from the part it is of.
    let uri = format!("mrtd://scans/{id}/portrait");
    assert_eq!(structured["other_side"]["portrait"]["image"], uri.as_str());
    assert_eq!(kept["other_side"]["portrait"]["image"], uri.as_str());
    let read = client.result("resources/read", json!({ "uri": uri }));
    assert_eq!(read["contents"][0]["mimeType"], "image/jpeg", "{read}");
    assert_eq!(read["contents"][0]["blob"], portrait["data_base64"], "the portrait answered");

    let both = json!({
        "image_base64": side_base64("mrz-side.jpg"),
        "other_side_base64": side_base64("portrait-side.jpg"),
        "other_side_path": "portrait-side.jpg",
    });
    let refused = client.call("scan_document", both);
    let text = refused.error_text();
    assert!(text.contains("the other side as exactly one of other_side_base64"), "{text}");
}
