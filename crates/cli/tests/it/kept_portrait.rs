//! The portrait kept with a scan, through the real binary: in the database files while the
//! scan is kept, in no file once it is deleted, and in no log line at any level.

use crate::support;

use std::{
    path::{Path, PathBuf},
    process::Stdio,
};

use base64::Engine as _;
use serde_json::json;
use support::{PASSPORT, ServerProcess, client::Revision};

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

fn holds(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}

#[test]
fn a_kept_portrait_is_in_the_files_until_deleted_and_never_in_the_log() {
    let parent = tempfile::tempdir().unwrap();
    let data_dir = parent.path().join("data");
    let mut child = support::serve_command(&data_dir)
        .env("RUST_LOG", "trace")
        .args(["--listen", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mrtd serve starts");
    let (addr, lines) = support::Log::of(child.stderr.take().unwrap());
    let mut server = ServerProcess::adopt(child, tempfile::tempdir().unwrap(), addr);
    let mut client = server.client(Revision::Modern, json!({}));

    let arguments = json!({
        "image_base64": support::image_base64(PASSPORT),
        "retain_hours": 1,
        "include_images": true,
    });
    let kept = client.call("scan_document", arguments);
    let id = support::scan_id(kept.ok());
    let uri = format!("mrtd://scans/{id}/portrait");
    assert_eq!(kept.ok()["portrait"]["image"], uri.as_str(), "{}", kept.ok());
    assert!(
        kept.content().iter().any(|block| block["type"] == "resource_link" && block["uri"] == uri),
        "the reply links the portrait: {:?}",
        kept.content()
    );
    let answered = kept.ok()["images"]["portrait"]["data_base64"].as_str().unwrap().to_owned();
    let read = client.result("resources/read", json!({ "uri": uri }));
    assert_eq!(read["contents"][0]["mimeType"], "image/jpeg", "{read}");
    assert_eq!(read["contents"][0]["blob"], answered.as_str(), "the portrait answered is kept");

    // Some bytes from the middle of the JPEG, and of its base64.
    let jpeg = base64::engine::general_purpose::STANDARD.decode(&answered).unwrap();
    let middle = &jpeg[jpeg.len() / 2..][..64];
    let in_files = || {
        files_under(&data_dir).iter().any(|f| holds(&std::fs::read(f).unwrap_or_default(), middle))
    };
    assert!(in_files(), "the kept portrait is in the database files");

    let deleted = client.call("delete_scan", json!({ "scan_id": id }));
    assert_eq!(deleted.ok()["deleted"], true);
    assert!(!in_files(), "no copy of the portrait is left in the database files");
    client.assert_no_resource(&uri);

    let log = lines.after_exit(server);
    assert!(log.lines().count() > 10, "trace logging is on: {log}");
    let encoded_middle = &answered[answered.len() / 2..][..40];
    assert!(!log.contains(encoded_middle), "the log holds the portrait");
}
