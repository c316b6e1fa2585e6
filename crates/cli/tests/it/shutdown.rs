//! Graceful shutdown through the real binary: SIGTERM while scans are in flight lets every
//! one of them finish with a complete answer, refuses new connections, and the process
//! exits 0.

#![cfg(unix)]

use crate::support;

use std::{
    net::{SocketAddr, TcpStream},
    process::{Child, Command, Stdio},
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use serde_json::{Value, json};
use support::{PASSPORT, PASSPORT_NUMBER, image_base64, transport};

const MODERN: &str = "2026-07-28";
/// Scans sent before the signal; with one recognition slot they run one after another.
const SCANS: usize = 4;

/// `mrtd serve` with one recognition slot, so queued scans are in flight for a while.
fn start_server(data_dir: &std::path::Path) -> (Child, SocketAddr) {
    let mut child = support::serve_command(data_dir)
        .args(["--listen", "127.0.0.1:0", "--max-concurrent-scans", "1"])
        .args(["--scan-wait-secs", "60", "--rate-limit", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mrtd serve starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let addr = support::announced_address(stderr, |_| {});
    (child, addr)
}

fn scan_request(id: usize, image: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {
            "name": "scan_document",
            "arguments": { "image_base64": image },
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    })
}

fn headers() -> Vec<(&'static str, String)> {
    vec![
        ("MCP-Protocol-Version", MODERN.to_owned()),
        ("Mcp-Method", "tools/call".to_owned()),
        ("Mcp-Name", "scan_document".to_owned()),
    ]
}

fn wait_for_exit(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().expect("poll the child") {
            return Some(status);
        }
        thread::sleep(Duration::from_millis(50));
    }
    None
}

#[test]
fn sigterm_lets_scans_in_flight_finish_and_exits_cleanly() {
    let data_dir = tempfile::tempdir().unwrap();
    let (mut child, addr) = start_server(data_dir.path());
    let image = image_base64(PASSPORT);

    // Every scan is sent before the signal; each reports when its answer arrived.
    let (done, answers) = mpsc::channel();
    for id in 0..SCANS {
        let body = scan_request(id, &image);
        let done = done.clone();
        thread::spawn(move || {
            let reply = transport::post(addr, &headers(), &body);
            let _ = done.send((id, reply.status, reply.messages, Instant::now()));
        });
    }
    drop(done);

    // The first answer means the rest are queued behind the single slot: in flight.
    let first = answers.recv_timeout(Duration::from_secs(120)).expect("the first scan answers");
    let signalled = Instant::now();
    let kill =
        Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
    assert!(kill.success());

    // New connections are refused once the signal is handled, while the scans still run.
    let refused_by = Instant::now() + Duration::from_secs(5);
    loop {
        match TcpStream::connect_timeout(&addr, Duration::from_millis(200)) {
            // Refused once the listener is closed; reset when the connection reached the
            // backlog in the instant before it closed.
            Err(error) => {
                assert!(
                    matches!(
                        error.kind(),
                        std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::ConnectionReset
                    ),
                    "{error}"
                );
                break;
            }
            Ok(_) if Instant::now() < refused_by => thread::sleep(Duration::from_millis(20)),
            Ok(_) => panic!("the server still accepts connections 5 s after SIGTERM"),
        }
    }

    let mut replies = vec![first];
    for _ in 1..SCANS {
        replies.push(answers.recv_timeout(Duration::from_secs(120)).expect("a scan answers"));
    }
    let after_signal = replies.iter().filter(|(_, _, _, at)| *at > signalled).count();
    assert!(after_signal >= 1, "at least one scan was still running when the signal came");
    for (id, status, messages, _) in &replies {
        assert_eq!(*status, 200, "scan {id}");
        let reply = messages.iter().find(|m| m["id"] == json!(id)).expect("the scan's reply");
        let result = &reply["result"];
        assert_eq!(result["isError"], json!(false), "scan {id}: {reply}");
        assert_eq!(result["structuredContent"]["status"], "read", "scan {id}");
        assert_eq!(
            result["structuredContent"]["fields"]["document_number"], PASSPORT_NUMBER,
            "scan {id} is complete"
        );
    }

    let status = wait_for_exit(&mut child, Duration::from_secs(30)).unwrap_or_else(|| {
        let _ = child.kill();
        panic!("mrtd serve did not exit after SIGTERM")
    });
    assert!(status.success(), "mrtd serve exits 0 after SIGTERM: {status:?}");
}
