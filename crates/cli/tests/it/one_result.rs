//! One document result on every door: `mrtd scan --json`, `POST /v1/scans` and the
//! `scan_document` tool's `structuredContent` give the same JSON (timing and file name
//! aside) for a photo read exactly, one read in part and one without an MRZ.

use crate::support;

use std::process::Command;

use base64::Engine as _;
use serde_json::{Value, json};
use support::{PASSPORT, ServerProcess, client::Revision, image_path, transport::request};

/// The photos, as files: the specimen passport, the same photo shrunk to two fifths (its
/// MRZ characters too small for `read`, but read in full), and a blank grey picture.
fn photos(dir: &std::path::Path) -> Vec<(&'static str, std::path::PathBuf)> {
    let passport = image_path(PASSPORT);
    let picture = image::open(&passport).expect("the specimen decodes");
    let (width, height) = (picture.width() * 2 / 5, picture.height() * 2 / 5);
    let small = picture.resize(width, height, image::imageops::FilterType::Lanczos3);
    let small_path = dir.join("small.png");
    small.save(&small_path).expect("writing the small photo");
    let blank_path = dir.join("blank.png");
    image::RgbImage::from_pixel(320, 200, image::Rgb([200, 200, 200]))
        .save(&blank_path)
        .expect("writing the blank photo");
    vec![("read", passport), ("partial", small_path), ("no_mrz", blank_path)]
}

/// The result without what differs by nature between two reads of one photo.
fn comparable(mut result: Value) -> Value {
    let object = result.as_object_mut().expect("a result object");
    object.remove("timing_ms");
    object.remove("file");
    result
}

#[test]
fn the_cli_rest_and_mcp_return_the_same_result() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = ServerProcess::http(&[]);
    let addr = server.addr.expect("an HTTP server");
    let mut client = server.client(Revision::Modern, json!({}));
    for (expected, path) in photos(dir.path()) {
        let output = Command::new(env!("CARGO_BIN_EXE_mrtd"))
            .args(["scan", "--json"])
            .arg(&path)
            .output()
            .expect("running mrtd scan");
        let from_cli: Value =
            serde_json::from_slice(&output.stdout).expect("mrtd scan --json prints one object");
        assert_eq!(from_cli["status"], expected, "{}", from_cli);

        let encoded =
            base64::engine::general_purpose::STANDARD.encode(std::fs::read(&path).unwrap());
        let reply = request(
            addr,
            "POST",
            "/v1/scans",
            &[("Content-Type", "application/json")],
            &json!({ "image_base64": encoded }).to_string(),
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        let from_rest = reply.json();

        let tool = client.call("scan_document", json!({ "image_base64": encoded }));
        // isError is for a call that could not be carried out, never for a partial reading.
        assert!(!tool.is_error(), "{expected}: {}", tool.0);
        let from_mcp = tool.0["structuredContent"].clone();

        let cli = comparable(from_cli);
        assert_eq!(cli, comparable(from_rest), "{expected}: the CLI and REST differ");
        assert_eq!(cli, comparable(from_mcp), "{expected}: the CLI and MCP differ");
        for key in ["fields", "checks", "corrections", "diagnostics", "region", "image"] {
            assert!(cli.get(key).is_some(), "{expected}: '{key}' is missing: {cli}");
        }
        // Asked to keep it: a photo not read in full is not kept, and REST and MCP both say
        // why; a read one is kept by both (each under its own id).
        let rest_kept = request(
            addr,
            "POST",
            "/v1/scans",
            &[("Content-Type", "application/json")],
            &json!({ "image_base64": encoded, "retain_hours": 1 }).to_string(),
        )
        .json();
        let mcp_kept = client
            .call("scan_document", json!({ "image_base64": encoded, "retain_hours": 1 }))
            .0["structuredContent"]
            .clone();
        for kept in [&rest_kept, &mcp_kept] {
            if expected == "read" {
                assert!(kept["scan_id"].is_string() && kept.get("not_kept").is_none(), "{kept}");
            } else {
                assert!(kept.get("scan_id").is_none(), "{kept}");
                assert!(
                    kept["not_kept"].as_str().is_some_and(|why| why.contains(expected)),
                    "{kept}"
                );
            }
        }
        if expected == "read" {
            // The page and the portrait come through every door alike (compared above).
            assert!(cli["document"]["corners"].is_array() && cli["portrait"]["box"].is_array());
        }
        if expected == "no_mrz" {
            assert_eq!(cli["fields"], Value::Null, "no MRZ, no fields");
        } else {
            for key in ["codes", "dates", "residual_risk", "evidence"] {
                assert!(cli.get(key).is_some(), "{expected}: '{key}' is missing: {cli}");
            }
        }
    }
}
