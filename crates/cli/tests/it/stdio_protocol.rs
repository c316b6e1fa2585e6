//! Wire-level tests of `mrtd serve --stdio`: one JSON-RPC message per line, through the real
//! binary, for the 2025 handshake revisions and the stateless 2026-07-28 revision.

use std::{
    io::{BufRead, BufReader, Write},
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc,
    time::Duration,
};

use base64::Engine as _;
use serde_json::{Value, json};

struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    data_dir: std::path::PathBuf,
}

impl Server {
    fn start(name: &str) -> Server {
        Server::start_with(name, &[])
    }

    /// `mrtd serve --stdio ARGS` over a data directory of its own.
    fn start_with(name: &str, args: &[&str]) -> Server {
        let data_dir =
            std::env::temp_dir().join(format!("mrtd-stdio-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&data_dir);
        let mut child = Command::new(env!("CARGO_BIN_EXE_mrtd"))
            .args(["serve", "--stdio", "--data-dir"])
            .arg(&data_dir)
            .args(args)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("mrtd starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Server { child, stdin, lines, data_dir }
    }

    fn send(&mut self, message: &str) {
        writeln!(self.stdin, "{message}").expect("write to stdin");
        self.stdin.flush().expect("flush stdin");
    }

    /// Reads lines until one is the response with `id` (`null` for id-less errors).
    fn response(&self, id: Value) -> Value {
        loop {
            let line =
                self.lines.recv_timeout(Duration::from_secs(20)).expect("a response within 20 s");
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|_| panic!("stdout carries only JSON, got {line:?}"));
            if message.get("id") == Some(&id) {
                return message;
            }
        }
    }

    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(
            &json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string(),
        );
        self.response(json!(id))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}

fn modern_meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "stdio-test", "version": "1" }
    })
}

const TD3: [&str; 2] = [
    "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
    "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
];

#[test]
fn discover_and_stateless_call_on_2026_07_28() {
    let mut server = Server::start("modern");
    let discovered =
        server.request(1, "server/discover", json!({ "_meta": modern_meta("2026-07-28") }));
    let result = &discovered["result"];
    assert_eq!(result["resultType"], "complete");
    assert!(result["supportedVersions"].as_array().unwrap().contains(&json!("2026-07-28")));
    assert!(result["capabilities"]["tools"].is_object());
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "mrtd");

    let listed = server.request(2, "tools/list", json!({ "_meta": modern_meta("2026-07-28") }));
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "scan_document",
            "get_scan",
            "list_scans",
            "delete_scan",
            "parse_mrz",
            "check_document",
            "verify_chip"
        ]
    );
    assert!(listed["result"]["ttlMs"].is_u64());
    assert_eq!(listed["result"]["cacheScope"], "public");

    let called = server.request(
        3,
        "tools/call",
        json!({
            "name": "parse_mrz",
            "arguments": { "lines": TD3 },
            "_meta": modern_meta("2026-07-28")
        }),
    );
    let result = &called["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["isError"], false);
    assert_eq!(result["structuredContent"]["format"], "TD3");
    assert_eq!(result["structuredContent"]["valid"], true);
    assert_eq!(result["structuredContent"]["fields"]["document_number"], "L898902C3");
}

#[test]
fn unsupported_version_names_the_supported_ones() {
    let mut server = Server::start("mismatch");
    let answer =
        server.request(7, "server/discover", json!({ "_meta": modern_meta("1999-01-01") }));
    assert_eq!(answer["error"]["code"], -32022);
    assert_eq!(answer["error"]["data"]["requested"], "1999-01-01");
    let supported = answer["error"]["data"]["supported"].as_array().unwrap();
    assert!(supported.contains(&json!("2026-07-28")));
}

#[test]
fn missing_meta_is_invalid_params() {
    let mut server = Server::start("nometa");
    // A modern method without any _meta is malformed (VER-26-01).
    let answer = server.request(8, "server/discover", json!({}));
    assert_eq!(answer["error"]["code"], -32602);
}

#[test]
fn initialize_handshake_for_each_2025_revision() {
    for version in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut server = Server::start(&format!("legacy-{version}"));
        let initialized = server.request(
            1,
            "initialize",
            json!({
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": { "name": "stdio-test", "version": "1" }
            }),
        );
        let result = &initialized["result"];
        assert_eq!(result["protocolVersion"], version, "negotiates the client's revision");
        assert_eq!(result["serverInfo"]["name"], "mrtd");
        assert!(result.get("resultType").is_none(), "no 2026 fields in a legacy result");
        server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);

        let listed = server.request(2, "tools/list", json!({}));
        assert_eq!(listed["result"]["tools"].as_array().unwrap().len(), 7);
        assert!(listed["result"].get("ttlMs").is_none(), "no caching hints before 2026-07-28");
        assert!(listed["result"].get("resultType").is_none());

        let pong = server.request(3, "ping", json!({}));
        assert_eq!(pong["result"], json!({}));
    }
}

#[test]
fn an_unknown_revision_in_initialize_gets_a_supported_one() {
    let mut server = Server::start("counter-offer");
    let initialized = server.request(
        1,
        "initialize",
        json!({
            "protocolVersion": "2031-01-01",
            "capabilities": {},
            "clientInfo": { "name": "stdio-test", "version": "1" }
        }),
    );
    let offered = initialized["result"]["protocolVersion"].as_str().unwrap();
    assert!(["2025-03-26", "2025-06-18", "2025-11-25"].contains(&offered), "offered {offered}");
}

#[test]
fn bad_json_gets_a_parse_error_and_the_connection_survives() {
    let mut server = Server::start("badjson");
    server.send("{this is not json");
    let error = server.response(Value::Null);
    assert_eq!(error["error"]["code"], -32700);
    server.send("[1, 2, 3]");
    let error = server.response(Value::Null);
    assert_eq!(error["error"]["code"], -32600);
    // Still serving afterwards.
    let discovered =
        server.request(9, "server/discover", json!({ "_meta": modern_meta("2026-07-28") }));
    assert_eq!(discovered["result"]["resultType"], "complete");
}

#[test]
fn stdin_closing_ends_the_process() {
    let mut server = Server::start("eof");
    let _ = server.request(1, "server/discover", json!({ "_meta": modern_meta("2026-07-28") }));
    // Dropping stdin closes the pipe.
    let Server { child, stdin, .. } = &mut server;
    drop(std::mem::replace(stdin, {
        // Replace with a handle to a fresh, immediately closed pipe so Drop stays simple.
        let mut sink = Command::new("true").stdin(Stdio::piped()).spawn().expect("true runs");
        let handle = sink.stdin.take().expect("stdin");
        let _ = sink.wait();
        handle
    }));
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            assert!(status.success(), "exits cleanly, got {status}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "still running 10 s after stdin closed");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn reads_over_stdio_pass_the_one_recognition_gate() {
    // One slot and no wait for it: of four large photos sent at once, the first read holds
    // the slot while the others arrive, and they are refused with advice to retry. The pixel
    // budget holds all four, so only the slot can refuse one.
    let args = ["--max-concurrent-scans", "1", "--scan-wait-secs", "0"];
    let mut server =
        Server::start_with("gate", &[&args[..], &["--max-decoded-megapixels", "400"]].concat());
    let large =
        base64::engine::general_purpose::STANDARD.encode(crate::limits::blank_png(6000, 6000));
    let ids = 11..15;
    for id in ids.clone() {
        let call = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "tools/call",
            "params": {
                "name": "scan_document",
                "arguments": { "image_base64": large },
                "_meta": modern_meta("2026-07-28")
            }
        });
        server.send(&call.to_string());
    }
    let (mut read, mut refused) = (0, 0);
    for _ in ids {
        let line = server.lines.recv_timeout(Duration::from_secs(60)).expect("an answer");
        let answer: Value = serde_json::from_str(&line).expect("JSON");
        let result = &answer["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        if text.contains("busy reading other photos") {
            assert_eq!(result["isError"], true, "{answer}");
            assert!(text.contains("retry in"), "{answer}");
            refused += 1;
        } else {
            assert_eq!(result["structuredContent"]["status"], "no_mrz", "{answer}");
            read += 1;
        }
    }
    assert!(read >= 1, "no photo was read");
    assert!(refused >= 1, "no photo was refused: the gate did not bound stdio");
}
