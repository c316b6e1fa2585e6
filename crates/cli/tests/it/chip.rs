//! Chip verification on every door: `mrtd verify-chip`, `POST /v1/chip/verify` and the
//! `verify_chip` tool answer the same report for chip data OpenSSL signed (the fixtures in
//! `crates/chip/tests/data`), with the trust store `--csca-dir` loads; DG1 is matched to a
//! kept scan of the same passport; bad input gets a clear error.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use serde_json::{Value, json};
use support::{
    MRZ_LINE1, MRZ_LINE2, PASSPORT, ServerProcess, client::Revision, image_path, transport::request,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../chip/tests/data").join(name)
}

fn base64_of(name: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(std::fs::read(fixture(name)).expect("fixture"))
}

/// A folder holding only `files` from the fixtures.
fn trust_dir(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("dir");
    for file in files {
        std::fs::copy(fixture(file), dir.path().join(file)).expect("copy");
    }
    dir
}

fn verify_chip(args: &[&str]) -> (i32, Value, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .arg("verify-chip")
        .args(args)
        .output()
        .expect("running mrtd verify-chip");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let report = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (output.status.code().unwrap_or(-1), report, stderr)
}

fn path(name: &str) -> String {
    fixture(name).display().to_string()
}

#[test]
fn the_cli_rest_and_mcp_return_the_same_chip_report() {
    let trust = trust_dir(&["utopia-csca.pem"]);
    let trust_path = trust.path().display().to_string();
    let (code, from_cli, stderr) = verify_chip(&[
        "--sod",
        &path("EF.SOD"),
        "--dg",
        &path("EF.DG1"),
        "--dg",
        &path("EF.DG14"),
        "--csca-dir",
        &trust_path,
        "--mrz",
        MRZ_LINE1,
        "--mrz",
        MRZ_LINE2,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(from_cli["authentic"], true, "{from_cli}");
    assert_eq!(from_cli["mrz_match"]["matches"], true, "{from_cli}");

    let mut server = ServerProcess::http(&["--csca-dir", &trust_path]);
    let addr = server.addr.expect("an HTTP server");
    let body = json!({
        "sod_base64": base64_of("EF.SOD"),
        "data_groups_base64": [base64_of("EF.DG1"), base64_of("EF.DG14")],
        "mrz_lines": [MRZ_LINE1, MRZ_LINE2],
    });
    let reply = request(
        addr,
        "POST",
        "/v1/chip/verify",
        &[("Content-Type", "application/json")],
        &body.to_string(),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let from_rest = reply.json();
    let mut client = server.client(Revision::Modern, json!({}));
    let tool = client.call("verify_chip", body);
    assert!(!tool.is_error(), "{}", tool.0);
    let from_mcp = tool.0["structuredContent"].clone();
    assert_eq!(from_cli, from_rest, "the CLI and REST differ");
    assert_eq!(from_cli, from_mcp, "the CLI and MCP differ");
    let summary = tool.0["content"][1]["text"].as_str().unwrap_or_default();
    assert!(summary.starts_with("Authentic"), "{summary}");
    assert!(!summary.contains("L898902C3"), "the summary names no document data: {summary}");
}

#[test]
fn dg1_is_matched_to_a_kept_scan_of_the_same_passport() {
    let trust = trust_dir(&["utopia.ml"]);
    let mut server = ServerProcess::http(&["--csca-dir", &trust.path().display().to_string()]);
    let mut client = server.client(Revision::Modern, json!({}));
    let photo = base64::engine::general_purpose::STANDARD
        .encode(std::fs::read(image_path(PASSPORT)).unwrap());
    let scan = client.call("scan_document", json!({ "image_base64": photo, "retain_hours": 1 }));
    let structured = &scan.0["structuredContent"];
    let scan_id = structured["scan_id"].as_str().expect("kept").to_owned();
    assert_eq!(
        structured["chip_access"]["mrz_information"], "L898902C3674081221204159",
        "a read scan carries what opens the chip"
    );
    let report = client.call(
        "verify_chip",
        json!({
            "sod_base64": base64_of("EF.SOD"),
            "data_groups_base64": [base64_of("EF.DG1")],
            "scan_id": scan_id,
        }),
    );
    let report = &report.0["structuredContent"];
    assert_eq!(report["authentic"], true, "{report}");
    assert_eq!(report["not_supplied"], json!([14]));
    assert_eq!(report["mrz_match"]["source"], "scan");
    assert_eq!(report["mrz_match"]["matches"], true, "{report}");

    // Another passport's printed zone: DG1 differs, and says where.
    let other_line2 = MRZ_LINE2.replace("7408122", "7508129");
    let report = client.call(
        "verify_chip",
        json!({
            "sod_base64": base64_of("EF.SOD"),
            "data_groups_base64": [base64_of("EF.DG1")],
            "mrz_lines": [MRZ_LINE1, other_line2],
        }),
    );
    let report = &report.0["structuredContent"];
    assert_eq!(report["mrz_match"]["matches"], false, "{report}");
    let different: Vec<&Value> = report["mrz_match"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] == "different")
        .map(|f| &f["field"])
        .collect();
    assert_eq!(different, [&json!("birth_date")]);

    let unknown = client.call(
        "verify_chip",
        json!({
            "sod_base64": base64_of("EF.SOD"),
            "data_groups_base64": [base64_of("EF.DG1")],
            "scan_id": "no-such-scan",
        }),
    );
    assert!(unknown.is_error(), "{}", unknown.0);
}

#[test]
fn verify_chip_exits_by_its_verdict() {
    let dg = ["--dg", &path("EF.DG1"), "--dg", &path("EF.DG14")];
    let run = |extra: &[&str]| {
        let mut args = vec!["--sod".to_owned(), path("EF.SOD")];
        args.extend(dg.iter().map(|s| s.to_string()));
        args.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        verify_chip(&refs)
    };
    let (code, report, _) = run(&["--trust", &path("utopia-csca.pem")]);
    assert_eq!((code, &report["chain"]), (0, &json!("trusted")));
    let (code, report, _) = run(&["--trust", &path("other-csca.pem")]);
    assert_eq!((code, &report["chain"]), (1, &json!("untrusted")));
    let (code, report, _) = run(&[]);
    assert_eq!((code, &report["chain"]), (1, &json!("no_trust_anchor")));
    assert_eq!(report["signature"], "verified");

    let (code, _, stderr) = verify_chip(&["--sod", &path("EF.DG1"), "--dg", &path("EF.DG1")]);
    assert_eq!(code, 3, "DG1 given as EF.SOD: {stderr}");
    assert!(stderr.contains("this file is EF.DG1 (tag 0x61), not EF.SOD (tag 0x77)"), "{stderr}");
    let (code, _, stderr) = run(&["--trust", &path("EF.DG1")]);
    assert_eq!(code, 3, "a data group given as a trust file: {stderr}");
    assert!(stderr.contains("EF.DG1"), "the error names the file: {stderr}");
    // EF.SOD alone: its signature and chain, every data group not supplied.
    let (code, report, stderr) =
        verify_chip(&["--sod", &path("EF.SOD"), "--trust", &path("utopia-csca.pem")]);
    assert_eq!(code, 0, "no --dg: {stderr}");
    assert_eq!(report["authentic"], true, "{report}");
    assert_eq!(report["data_groups"], json!([]));
    assert_eq!(report["not_supplied"], json!([1, 14]));
}

#[test]
fn bad_chip_data_gets_a_clear_error_on_rest_and_mcp() {
    let mut server = ServerProcess::http(&[]);
    let addr = server.addr.expect("an HTTP server");
    let post = |body: Value| {
        request(
            addr,
            "POST",
            "/v1/chip/verify",
            &[("Content-Type", "application/json")],
            &body.to_string(),
        )
    };
    let garbage =
        post(json!({ "sod_base64": "AAEC", "data_groups_base64": [base64_of("EF.DG1")] }));
    assert_eq!(garbage.status, 422, "{}", garbage.body);
    assert_eq!(garbage.json()["error"]["code"], "unreadable_chip_data");
    let not_base64 =
        post(json!({ "sod_base64": "%%%", "data_groups_base64": [base64_of("EF.DG1")] }));
    assert_eq!(not_base64.status, 400, "{}", not_base64.body);
    assert!(not_base64.body.contains("sod_base64"), "{}", not_base64.body);
    let unknown_field = post(json!({ "sod": "AAEC", "data_groups_base64": [] }));
    assert_eq!(unknown_field.status, 400, "{}", unknown_field.body);
    let long_lines = post(json!({
        "sod_base64": base64_of("EF.SOD"),
        "data_groups_base64": [base64_of("EF.DG1")],
        "mrz_lines": ["<".repeat(5_000)],
    }));
    assert_eq!(long_lines.status, 400, "{}", long_lines.body);
    assert!(long_lines.body.contains("mrz_lines"), "{}", long_lines.body);

    let mut client = server.client(Revision::Modern, json!({}));
    // EF.SOD alone (no data groups, or the argument left out) is checked too.
    for arguments in [
        json!({ "sod_base64": base64_of("EF.SOD"), "data_groups_base64": [] }),
        json!({ "sod_base64": base64_of("EF.SOD") }),
    ] {
        let alone = client.call("verify_chip", arguments.clone());
        assert!(!alone.is_error(), "{}", alone.0);
        assert_eq!(alone.0["structuredContent"]["not_supplied"], json!([1, 14]));
        assert_eq!(alone.0["structuredContent"]["signature"], "verified");
        let rest = post(arguments);
        assert_eq!(rest.status, 200, "{}", rest.body);
        assert_eq!(rest.json(), alone.0["structuredContent"]);
    }
    let wrong_tag = client.call(
        "verify_chip",
        json!({ "sod_base64": base64_of("EF.SOD"), "data_groups_base64": [base64_of("EF.SOD")] }),
    );
    assert!(wrong_tag.is_error());
    assert!(wrong_tag.0.to_string().contains("data group"), "{}", wrong_tag.0);
    // Served without --csca-dir: checked, but never called authentic.
    let report = client.call(
        "verify_chip",
        json!({ "sod_base64": base64_of("EF.SOD"), "data_groups_base64": [base64_of("EF.DG1")] }),
    );
    assert_eq!(report.0["structuredContent"]["chain"], "no_trust_anchor");
    assert_eq!(report.0["structuredContent"]["authentic"], false);
}

#[test]
fn a_trust_folder_survives_a_file_it_cannot_use_and_serve_refuses_one_where_nothing_loads() {
    // The German-style list (its CSCA on brainpoolP512r1) beside the Utopian one, and a file
    // that is no trust file.
    let dir = trust_dir(&["utopia.ml", "EF.DG1"]);
    std::fs::copy(fixture("de/de.ml"), dir.path().join("de.ml")).expect("copy");
    let data = tempfile::tempdir().unwrap();
    let mut child = support::serve_command(data.path())
        .args(["--listen", "127.0.0.1:0", "--csca-dir"])
        .arg(dir.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mrtd serve starts");
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = lines.clone();
    let addr = support::announced_address(child.stderr.take().expect("stderr"), move |line| {
        kept.lock().expect("lines").push(line);
    });
    let mut server = ServerProcess::adopt(child, data, addr);
    let warned = lines.lock().expect("lines").join("\n");
    assert!(warned.contains("EF.DG1") && warned.contains("trust file not loaded"), "{warned}");

    let ready = request(addr, "GET", "/readyz", &[], "");
    assert_eq!(ready.status, 200, "{}", ready.body);
    let unusable = &ready.json()["details"]["trust_store"]["unusable_files"];
    assert_eq!(unusable[0]["file"], "EF.DG1", "{}", ready.body);
    assert!(unusable[0]["reason"].as_str().is_some_and(|r| r.contains("not a certificate")));

    let body = json!({
        "sod_base64": base64_of("de/EF.SOD"),
        "data_groups_base64": [base64_of("EF.DG1"), base64_of("EF.DG14")],
    });
    let reply = request(
        addr,
        "POST",
        "/v1/chip/verify",
        &[("Content-Type", "application/json")],
        &body.to_string(),
    );
    let report = reply.json();
    assert_eq!(report["authentic"], true, "{report}");
    assert_eq!(report["trust_anchor"]["public_key"], "ECDSA brainpoolP512r1");
    assert!(
        report["diagnostics"]
            .as_array()
            .is_some_and(|d| d.iter().any(|d| d["code"] == "trust_file_unusable"
                && d["message"].as_str().is_some_and(|m| m.contains("EF.DG1")))),
        "{report}"
    );
    let mut client = server.client(Revision::Modern, json!({}));
    let tool = client.call(
        "verify_chip",
        json!({ "sod_base64": base64_of("EF.SOD"), "data_groups_base64": [base64_of("EF.DG1")] }),
    );
    assert_eq!(tool.0["structuredContent"]["authentic"], true, "{}", tool.0);

    // verify-chip reports the file too, and verifies with the rest.
    let (code, report, stderr) = verify_chip(&[
        "--sod",
        &path("de/EF.SOD"),
        "--dg",
        &path("EF.DG1"),
        "--csca-dir",
        &dir.path().display().to_string(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(report["diagnostics"].to_string().contains("EF.DG1"), "{report}");

    // A folder where nothing loads stops the server.
    let junk = trust_dir(&["EF.DG1"]);
    let data = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(data.path())
        .arg("--csca-dir")
        .arg(junk.path())
        .output()
        .expect("running mrtd serve");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("EF.DG1") && stderr.contains("could be loaded"), "{stderr}");
}

#[test]
fn active_authentication_is_checked_the_same_on_every_door() {
    // A chip's answer OpenSSL made (crates/chip/tests/data/aa), its CSCA in the trust folder.
    let trust = trust_dir(&[]);
    std::fs::copy(fixture("de/csca.pem"), trust.path().join("csca.pem")).expect("copy");
    let trust_path = trust.path().display().to_string();
    let challenge = "0011223344556677";
    let cli = |challenge: &str| {
        verify_chip(&[
            "--sod",
            &path("aa/EF.SOD"),
            "--dg",
            &path("EF.DG1"),
            "--dg",
            &path("EF.DG14"),
            "--dg",
            &path("aa/EF.DG15"),
            "--csca-dir",
            &trust_path,
            "--aa-challenge",
            challenge,
            "--aa-response",
            &path("aa/response"),
        ])
    };
    let (code, from_cli, stderr) = cli(challenge);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(from_cli["active_authentication"]["status"], "verified", "{from_cli}");
    assert_eq!(from_cli["authentic_chip"], true);

    let mut server = ServerProcess::http(&["--csca-dir", &trust_path]);
    let addr = server.addr.expect("an HTTP server");
    let body = json!({
        "sod_base64": base64_of("aa/EF.SOD"),
        "data_groups_base64": [base64_of("EF.DG1"), base64_of("EF.DG14"), base64_of("aa/EF.DG15")],
        "aa_challenge_base64": "ABEiM0RVZnc=",
        "aa_response_base64": base64_of("aa/response"),
    });
    let reply = request(
        addr,
        "POST",
        "/v1/chip/verify",
        &[("Content-Type", "application/json")],
        &body.to_string(),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json(), from_cli, "REST and the CLI differ");
    let mut client = server.client(Revision::Modern, json!({}));
    let tool = client.call("verify_chip", body.clone());
    assert_eq!(tool.0["structuredContent"], from_cli, "MCP and the CLI differ");

    // Another challenge: the answer does not fit it.
    let (code, report, _) = cli("0011223344556678");
    assert_eq!(code, 0, "Passive Authentication still holds");
    assert_eq!(report["active_authentication"]["status"], "failed", "{report}");
    assert_eq!(report["authentic_chip"], false);
    // One of the pair alone is refused.
    let mut half = body;
    half.as_object_mut().expect("object").remove("aa_response_base64");
    let refused = client.call("verify_chip", half);
    assert!(refused.is_error(), "{}", refused.0);
    let (code, _, stderr) =
        verify_chip(&["--sod", &path("aa/EF.SOD"), "--aa-challenge", challenge]);
    assert_eq!(code, 2, "{stderr}");
}
