//! Callers through the real binary: scans belong to a key, not to its name; failed logins
//! are throttled while valid keys are served, also behind a trusted proxy; legacy sessions
//! and request states belong to whoever opened them; forwarded headers from an untrusted
//! peer are ignored.

use crate::{
    hardening::{contains, keys, start_in},
    support,
};

use std::{
    net::{SocketAddr, TcpStream},
    process::Stdio,
};

use serde_json::json;
use support::{
    PASSPORT, ServerProcess,
    client::{Client, Revision},
    transport,
};

fn create_key(data_dir: &std::path::Path, name: &str) -> String {
    let output = keys(data_dir, &["create", name]);
    let text = String::from_utf8_lossy(&output.stdout);
    text.split_whitespace()
        .find(|word| word.starts_with("mrtd_"))
        .expect("the key is printed")
        .to_owned()
}

fn keyed_client(addr: SocketAddr, key: &str) -> Client {
    Client::http(
        addr,
        Revision::Modern,
        json!({}),
        vec![("Authorization", format!("Bearer {key}"))],
    )
}

#[test]
fn scans_belong_to_a_key_not_to_its_name_and_failed_logins_are_throttled_but_valid_keys_served() {
    let data_dir = tempfile::tempdir().unwrap();
    let first = create_key(data_dir.path(), "ci");
    let (child, addr) =
        start_in(data_dir.path(), &["--auth", "api-key", "--rate-limit", "0"], |_| {});
    let server = ServerProcess::adopt(child, data_dir, addr);
    let data_dir = server.data_dir.path();

    let mut client = keyed_client(addr, &first);
    let kept = client.call(
        "scan_document",
        json!({ "image_base64": support::image_base64(PASSPORT), "retain_hours": 1 }),
    );
    let id = support::scan_id(kept.ok());
    keys(data_dir, &["revoke", "ci"]);
    let second = create_key(data_dir, "ci");
    let mut successor = keyed_client(addr, &second);
    let hidden = successor.call("get_scan", json!({ "scan_id": id }));
    assert!(hidden.error_text().contains(support::NOT_FOUND), "{}", hidden.error_text());

    // Twenty bad keys are refused one by one; then the address must wait.
    let ping = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping", "params": {
        "_meta": { "io.modelcontextprotocol/protocolVersion": support::client::MODERN } } });
    let mut statuses = Vec::new();
    for n in 0..25 {
        let reply = transport::post(
            addr,
            &[
                ("Authorization", format!("Bearer mrtd_not-a-key-{n}")),
                ("Mcp-Protocol-Version", support::client::MODERN.to_owned()),
            ],
            &ping,
        );
        statuses.push(reply.status);
    }
    assert!(statuses[..20].iter().all(|s| *s == 401), "{statuses:?}");
    assert!(statuses[20..].iter().all(|s| *s == 429), "{statuses:?}");
    // A valid key from that address is still served: behind a proxy every client shares one
    // address, and one client's bad keys must not lock out the others.
    let mut colleague = keyed_client(addr, &second);
    let listed = colleague.call("list_scans", json!({}));
    assert!(!listed.is_error(), "{:?}", listed.0);
    let refused = transport::post(
        addr,
        &[("Mcp-Protocol-Version", support::client::MODERN.to_owned())],
        &ping,
    );
    assert_eq!(refused.status, 429, "{:?}", refused.messages);
}

#[test]
fn a_legacy_session_belongs_to_the_key_that_opened_it() {
    let data_dir = tempfile::tempdir().unwrap();
    let alice = create_key(data_dir.path(), "alice");
    let mallory = create_key(data_dir.path(), "mallory");
    let (child, addr) =
        start_in(data_dir.path(), &["--auth", "api-key", "--legacy-sessions"], |_| {});
    let _server = ServerProcess::adopt(child, data_dir, addr);

    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": support::client::LEGACY, "capabilities": {},
        "clientInfo": { "name": "t", "version": "1" } } });
    let opened =
        transport::post(addr, &[("Authorization", format!("Bearer {alice}"))], &initialize);
    assert_eq!(opened.status, 200);
    let session = opened.header("mcp-session-id").expect("a session id").to_owned();
    for method in ["GET", "DELETE"] {
        let foreign = transport::request(
            addr,
            method,
            "/mcp",
            &[
                ("Authorization", &format!("Bearer {mallory}")),
                ("Mcp-Session-Id", &session),
                ("Accept", "text/event-stream, application/json"),
                ("Mcp-Protocol-Version", support::client::LEGACY),
            ],
            "",
        );
        assert_eq!(foreign.status, 404, "{method}: {}", foreign.body);
    }
    let closed = transport::request(
        addr,
        "DELETE",
        "/mcp",
        &[
            ("Authorization", &format!("Bearer {alice}")),
            ("Mcp-Session-Id", &session),
            ("Mcp-Protocol-Version", support::client::LEGACY),
        ],
        "",
    );
    // 204, as the SDKs expect of a closed session (not the protocol layer's 202).
    assert_eq!(closed.status, 204, "{}", closed.body);
}

#[test]
fn the_request_state_key_comes_from_a_file_never_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("state.key");
    std::fs::write(&key_file, "ab".repeat(32)).unwrap();
    let key_arg = key_file.to_str().unwrap();
    let (child, addr) = start_in(dir.path(), &["--request-state-key-file", key_arg], |_| {});
    let server = ServerProcess::adopt(child, tempfile::tempdir().unwrap(), addr);
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", server.pid())).unwrap();
    assert!(!contains(&cmdline, &"ab".repeat(32)), "the key is not in the process list");
    // The data directory holds no key of its own: the file's key is the one in use.
    assert!(!dir.path().join("request-state.key").exists());
    drop(server);

    // A key file that cannot be read, or holds a short key, stops the server with status 2.
    for (contents, expected) in [(None, "cannot read"), (Some("abcd"), "at least 32 bytes")] {
        let path = dir.path().join("bad.key");
        let _ = std::fs::remove_file(&path);
        if let Some(contents) = contents {
            std::fs::write(&path, contents).unwrap();
        }
        let output = support::serve_command(dir.path())
            .args(["--listen", "127.0.0.1:0", "--request-state-key-file"])
            .arg(&path)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{expected}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{stderr}");
    }
}

/// A `tools/list` with `headers`, as a proxy on loopback would pass it on: its status.
fn list_status(addr: SocketAddr, headers: &[(&str, String)]) -> u16 {
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {
        "_meta": { "io.modelcontextprotocol/protocolVersion": support::client::MODERN,
                   "io.modelcontextprotocol/clientCapabilities": {} } } });
    let mut all = vec![
        ("Mcp-Protocol-Version", support::client::MODERN.to_owned()),
        ("Mcp-Method", "tools/list".to_owned()),
    ];
    all.extend(headers.iter().cloned());
    transport::post(addr, &all, &list).status
}

#[test]
fn behind_a_trusted_proxy_failures_count_per_reported_client_and_valid_keys_are_served() {
    let data_dir = tempfile::tempdir().unwrap();
    let key = create_key(data_dir.path(), "ci");
    let mut command = support::serve_command(data_dir.path());
    command.env("RUST_LOG", "warn,mrtd::access=info");
    let mut child = command
        .args(["--listen", "127.0.0.1:0", "--auth", "api-key", "--rate-limit", "0"])
        .args(["--trusted-proxy", "127.0.0.0/8", "--max-connections-per-address", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mrtd serve starts");
    let (addr, log) = support::Log::of(child.stderr.take().unwrap());
    let server = ServerProcess::adopt(child, data_dir, addr);
    let from = |client: &str| ("X-Forwarded-For", format!("192.0.2.200, {client}"));
    let bad = |n: usize| ("Authorization", format!("Bearer mrtd_not-a-key-{n}"));
    let good = ("Authorization", format!("Bearer {key}"));
    // The test is the proxy (on loopback); it holds a connection open besides its requests,
    // as a proxy's pool does, which the per-address cap of 1 would otherwise refuse.
    let _pooled = TcpStream::connect(addr).unwrap();
    // One client behind the proxy sends bad keys; each of its requests is followed by a
    // valid one from another client behind the same proxy, and by its own valid one.
    let mut attacker = Vec::new();
    for n in 0..25 {
        attacker.push(list_status(addr, &[from("203.0.113.7"), bad(n)]));
        assert_eq!(list_status(addr, &[from("203.0.113.8"), good.clone()]), 200, "request {n}");
        assert_eq!(list_status(addr, &[from("203.0.113.7"), good.clone()]), 200, "request {n}");
    }
    assert!(attacker[..20].iter().all(|s| *s == 401), "{attacker:?}");
    assert!(attacker[20..].iter().all(|s| *s == 429), "{attacker:?}");
    // Another client's bad key is its own first failure, not the throttled one's.
    assert_eq!(list_status(addr, &[from("203.0.113.8"), bad(99)]), 401);
    // The access log names the client the proxy reported, never the claim left of it.
    let log = log.after_exit(server);
    assert!(log.contains("client=203.0.113.7"), "{log}");
    assert!(!log.contains("192.0.2.200"), "{log}");
}

#[test]
fn forwarded_headers_from_an_untrusted_peer_are_ignored() {
    let data_dir = tempfile::tempdir().unwrap();
    let key = create_key(data_dir.path(), "ci");
    let (child, addr) = start_in(
        data_dir.path(),
        &["--auth", "api-key", "--rate-limit", "0", "--trusted-proxy", "10.0.0.0/8"],
        |_| {},
    );
    let _server = ServerProcess::adopt(child, data_dir, addr);
    // A client that names a fresh address for every bad key is still one address.
    let statuses: Vec<u16> = (0..25)
        .map(|n| {
            list_status(
                addr,
                &[
                    ("X-Forwarded-For", format!("198.51.100.{n}")),
                    ("Forwarded", format!("for=198.51.100.{n}")),
                    ("Authorization", format!("Bearer mrtd_not-a-key-{n}")),
                ],
            )
        })
        .collect();
    assert!(statuses[..20].iter().all(|s| *s == 401), "{statuses:?}");
    assert!(statuses[20..].iter().all(|s| *s == 429), "{statuses:?}");
    let valid = ("Authorization", format!("Bearer {key}"));
    assert_eq!(list_status(addr, &[valid]), 200);
}
