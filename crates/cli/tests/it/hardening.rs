//! The server against slow, large and hostile clients, through the real binary: every
//! connection and body bounded in time and size, uploads that stall hold no recognition
//! slot, files read only from inside the image directory, no document data in any log,
//! private files at rest. Callers with keys, sessions and proxies are in `callers`.

use crate::support;

use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpStream},
    process::Stdio,
    sync::Arc,
    time::{Duration, Instant},
};

use serde_json::json;
use support::{
    MRZ_LINE1, MRZ_LINE2, PASSPORT, PASSPORT_NUMBER, ServerProcess, client::Revision, transport,
};

/// Sends `bytes` on a new connection and returns it.
fn send_raw(addr: SocketAddr, bytes: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(addr).expect("connect to the server");
    stream.write_all(bytes).expect("send");
    stream
}

/// Waits until the server closes `stream` (end of file or reset), returning what it sent
/// and how long that took; panics after `limit`.
fn closed_within(mut stream: TcpStream, limit: Duration) -> (Vec<u8>, Duration) {
    let started = Instant::now();
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => received.extend_from_slice(&buffer[..n]),
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                panic!(
                    "the connection was still open after {limit:?} ({} bytes read)",
                    received.len()
                )
            }
            Err(_) => break,
        }
    }
    (received, started.elapsed())
}

/// Waits until `count` requests besides the asking one are in the server (its own gauge of
/// requests in flight): a barrier, not a guess at how long they take to arrive.
fn await_in_flight(addr: SocketAddr, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let metrics = transport::request(addr, "GET", "/metrics", &[], "").body;
        let in_flight = metrics
            .lines()
            .find_map(|line| line.strip_prefix("mrtd_http_requests_in_flight "))
            .and_then(|value| value.trim().parse::<f64>().ok())
            .unwrap_or(0.0);
        // The scrape is itself in flight while it is answered.
        if in_flight >= (count + 1) as f64 {
            return;
        }
        assert!(Instant::now() < deadline, "{count} requests never reached the server");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn status_of(response: &[u8]) -> u16 {
    let text = String::from_utf8_lossy(response);
    text.split_whitespace().nth(1).and_then(|code| code.parse().ok()).unwrap_or(0)
}

/// The start of a REST upload that declares `length` bytes and sends `sent` of them.
fn stalled_upload(addr: SocketAddr, length: usize, sent: usize) -> TcpStream {
    let head = format!(
        "POST /v1/scans HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {length}\r\n\r\n"
    );
    let mut stream = send_raw(addr, head.as_bytes());
    stream.write_all(&vec![b' '; sent]).unwrap();
    stream
}

#[test]
fn slow_and_idle_connections_are_closed_by_default() {
    let server = ServerProcess::http(&[]);
    let addr = server.addr.unwrap();
    // Twenty connections that send half a request head, and five that send nothing.
    let mut sockets: Vec<TcpStream> = (0..20)
        .map(|_| send_raw(addr, format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n").as_bytes()))
        .collect();
    sockets.extend((0..5).map(|_| send_raw(addr, b"")));
    let waiters: Vec<_> = sockets
        .into_iter()
        .map(|socket| std::thread::spawn(move || closed_within(socket, Duration::from_secs(35))))
        .collect();
    for waiter in waiters {
        let (_, took) = waiter.join().unwrap();
        assert!(took < Duration::from_secs(35), "closed after {took:?}");
    }
}

#[test]
fn heads_bodies_and_kept_alive_connections_are_bounded_in_time() {
    let server = ServerProcess::http(&[
        "--header-timeout-secs",
        "2",
        "--body-idle-timeout-secs",
        "2",
        "--body-timeout-secs",
        "4",
    ]);
    let addr = server.addr.unwrap();

    let half_head = send_raw(addr, format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\n").as_bytes());
    let (_, took) = closed_within(half_head, Duration::from_secs(6));
    assert!(took >= Duration::from_millis(1500), "closed too early: {took:?}");

    // A kept-alive connection is closed once it has been idle for the header timeout.
    let mut kept =
        send_raw(addr, format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes());
    let mut first = [0u8; 12];
    kept.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    closed_within(kept, Duration::from_secs(6));

    // A body that stalls is answered 408 and closed.
    let stalled = stalled_upload(addr, 1000, 1);
    let (response, took) = closed_within(stalled, Duration::from_secs(6));
    assert_eq!(status_of(&response), 408, "{}", String::from_utf8_lossy(&response));
    assert!(took < Duration::from_secs(4), "{took:?}");

    // A body that trickles in is cut off when its whole time is up.
    let mut trickle = stalled_upload(addr, 1000, 1);
    let started = Instant::now();
    let mut response = Vec::new();
    trickle.set_read_timeout(Some(Duration::from_millis(500))).unwrap();
    while started.elapsed() < Duration::from_secs(8) {
        let _ = trickle.write_all(b" ");
        let mut buffer = [0u8; 1024];
        match trickle.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                response.extend_from_slice(&buffer[..n]);
                break;
            }
            Err(_) => {}
        }
    }
    assert_eq!(status_of(&response), 408, "{}", String::from_utf8_lossy(&response));
    assert!(started.elapsed() < Duration::from_secs(7), "{:?}", started.elapsed());
}

#[test]
fn stalled_uploads_hold_no_recognition_slot() {
    let server = ServerProcess::http(&["--max-concurrent-scans", "1", "--rate-limit", "0"]);
    let addr = server.addr.unwrap();
    let stalled: Vec<TcpStream> = (0..4).map(|_| stalled_upload(addr, 1_000_000, 1)).collect();
    await_in_flight(addr, 4);
    let body = json!({ "image_base64": support::image_base64(PASSPORT) }).to_string();
    let started = Instant::now();
    let reply = transport::request(
        addr,
        "POST",
        "/v1/scans",
        &[("Content-Type", "application/json")],
        &body,
    );
    let took = started.elapsed();
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["fields"]["document_number"], PASSPORT_NUMBER);
    assert!(took < Duration::from_secs(5), "the scan waited {took:?} behind stalled uploads");
    drop(stalled);
}

#[test]
fn oversized_heads_and_declared_bodies_are_refused_unread() {
    let server = ServerProcess::http(&[]);
    let addr = server.addr.unwrap();

    let big_header = format!(
        "GET /healthz HTTP/1.1\r\nHost: {addr}\r\nX-Padding: {}\r\n\r\n",
        "a".repeat(200 * 1024)
    );
    let (response, _) =
        closed_within(send_raw(addr, big_header.as_bytes()), Duration::from_secs(5));
    assert_eq!(status_of(&response), 431, "{}", String::from_utf8_lossy(&response));

    // 40 MiB declared, nothing sent: the answer comes at once, for REST and MCP alike.
    for path in ["/v1/scans", "/mcp"] {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
            40 * 1024 * 1024
        );
        let started = Instant::now();
        let mut stream = send_raw(addr, head.as_bytes());
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut first = [0u8; 12];
        stream.read_exact(&mut first).expect("an answer before any body byte");
        assert_eq!(&first, b"HTTP/1.1 413", "{path}");
        assert!(started.elapsed() < Duration::from_secs(1), "{path}: {:?}", started.elapsed());
    }
}

#[test]
fn bodies_held_at_once_are_bounded() {
    let server = ServerProcess::http(&[
        "--max-body-memory-mib",
        "40",
        "--rate-limit",
        "0",
        "--scan-wait-secs",
        "1",
    ]);
    let addr = server.addr.unwrap();
    // One upload declares 30 MiB and stalls; a second 30 MiB one does not fit beside it.
    // It waits for room a second, then its body is read and thrown away (so that the
    // client, still sending, reads the answer rather than a reset): 503 with Retry-After.
    let first = stalled_upload(addr, 30 * 1024 * 1024, 10);
    await_in_flight(addr, 1);
    let mut second = stalled_upload(addr, 30 * 1024 * 1024, 0);
    let started = Instant::now();
    let sender = {
        let mut stream = second.try_clone().unwrap();
        std::thread::spawn(move || {
            let chunk = vec![b' '; 1 << 20];
            for _ in 0..30 {
                if stream.write_all(&chunk).is_err() {
                    return false;
                }
            }
            true
        })
    };
    second.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut response = Vec::new();
    let _ = second.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response);
    assert_eq!(status_of(&response), 503, "{text}");
    assert!(text.to_ascii_lowercase().contains("retry-after:"), "{text}");
    assert!(started.elapsed() >= Duration::from_millis(900), "{:?}", started.elapsed());
    assert!(sender.join().unwrap(), "the whole body was taken, not refused with a reset");
    // Small requests still pass.
    let small = transport::request(
        addr,
        "POST",
        "/v1/parse",
        &[("Content-Type", "application/json")],
        &json!({ "lines": [MRZ_LINE1, MRZ_LINE2] }).to_string(),
    );
    assert_eq!(small.status, 200, "{}", small.body);
    drop(first);
}

/// The peak resident memory of a process, in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM in /proc");
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

#[test]
fn a_huge_image_file_is_refused_at_once_without_reading_it() {
    let images = tempfile::tempdir().unwrap();
    let huge = std::fs::File::create(images.path().join("huge.jpg")).unwrap();
    huge.set_len(1 << 30).unwrap();
    let mut server = ServerProcess::http(&["--image-dir", images.path().to_str().unwrap()]);
    let pid = server.pid();
    let mut client = server.client(Revision::Modern, json!({}));
    let started = Instant::now();
    let refused = client.call("scan_document", json!({ "image_path": "huge.jpg" }));
    assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    assert!(refused.error_text().contains("larger than"), "{}", refused.error_text());
    assert!(peak_rss(pid) < 200 * 1024 * 1024, "peak RSS {} bytes", peak_rss(pid));
}

#[cfg(unix)]
#[test]
fn swapping_a_file_for_a_link_never_reads_outside_the_directory() {
    let root = tempfile::tempdir().unwrap();
    let images = root.path().join("images");
    std::fs::create_dir(&images).unwrap();
    // Outside: a passport that reads. Inside: a picture without an MRZ.
    let outside = root.path().join("outside.jpg");
    std::fs::copy(support::image_path(PASSPORT), &outside).unwrap();
    let blank = {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.decode(support::blank_png_base64()).unwrap()
    };
    let target = images.join("photo.png");
    std::fs::write(&target, &blank).unwrap();

    let mut server =
        ServerProcess::http(&["--image-dir", images.to_str().unwrap(), "--rate-limit", "0"]);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (stop, images, target, outside) =
            (stop.clone(), images.clone(), target.clone(), outside.clone());
        std::thread::spawn(move || {
            let (file, link) = (images.join("file.tmp"), images.join("link.tmp"));
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                std::fs::write(&file, &blank).unwrap();
                std::fs::rename(&file, &target).unwrap();
                let _ = std::fs::remove_file(&link);
                std::os::unix::fs::symlink(&outside, &link).unwrap();
                std::fs::rename(&link, &target).unwrap();
            }
        })
    };
    let mut client = server.client(Revision::Modern, json!({}));
    let mut outside_reads = 0;
    for _ in 0..3000 {
        let reply = client.call_with(
            json!({ "name": "scan_document", "arguments": { "image_path": "photo.png" } }),
        );
        if reply.to_string().contains(PASSPORT_NUMBER) {
            outside_reads += 1;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    assert_eq!(outside_reads, 0, "calls that read the file outside the directory");
}

/// `mrtd serve --listen 127.0.0.1:0 ARGS` over `data_dir`, its stderr lines handed to
/// `on_line`: the process and the address it serves.
pub(crate) fn start_in(
    data_dir: &std::path::Path,
    args: &[&str],
    on_line: impl FnMut(String) + Send + 'static,
) -> (std::process::Child, SocketAddr) {
    let mut child = support::serve_command(data_dir)
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mrtd serve starts");
    let addr = support::announced_address(child.stderr.take().unwrap(), on_line);
    (child, addr)
}

/// `mrtd keys ARGS --data-dir DATA_DIR`, which must succeed.
pub(crate) fn keys(data_dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .arg("keys")
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .env_remove("MRTD_DATABASE_URL")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    output
}

/// Starts `mrtd serve EXTRA` with `RUST_LOG=trace`, collecting its stderr.
fn traced_server(extra: &[&str]) -> (ServerProcess, support::Log) {
    let data_dir = tempfile::tempdir().unwrap();
    let mut child = support::serve_command(data_dir.path())
        .env("RUST_LOG", "trace")
        .args(["--listen", "127.0.0.1:0"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mrtd serve starts");
    let (addr, log) = support::Log::of(child.stderr.take().unwrap());
    (ServerProcess::adopt(child, data_dir, addr), log)
}

#[test]
fn trace_logs_hold_no_document_data() {
    let (mut server, lines) = traced_server(&[]);
    let mut client = server.client(Revision::Modern, json!({}));
    let name_line = "P<UTOQUIXOTANDER<<ZEBEDIAH<<<<<<<<<<<<<<<<<<<";
    let parsed = client.call("parse_mrz", json!({ "lines": [name_line, MRZ_LINE2] }));
    assert_eq!(parsed.ok()["fields"]["surname"], "QUIXOTANDER");
    let read = client.call(
        "scan_document",
        json!({ "image_base64": support::image_base64(PASSPORT), "retain_hours": 1 }),
    );
    assert_eq!(read.ok()["fields"]["document_number"], PASSPORT_NUMBER);
    let image_start = &support::image_base64(PASSPORT)[100..140];
    let log = lines.after_exit(server);
    assert!(log.lines().count() > 10, "trace logging is on: {log}");
    for secret in ["QUIXOTANDER", "ZEBEDIAH", "ERIKSSON", PASSPORT_NUMBER, "7408122", image_start] {
        assert!(!log.contains(secret), "the log holds {secret:?}");
    }
}

#[test]
fn a_stdio_line_over_the_library_default_is_answered() {
    let mut server = ServerProcess::stdio();
    let mut client = server.client(Revision::Modern, json!({}));
    // 17 MiB of base64 that is no image: over rmcp's own 16 MiB default, under our 36 MiB.
    let reply = client.call_with(json!({
        "name": "scan_document",
        "arguments": { "image_base64": "A".repeat(17 * 1024 * 1024) }
    }));
    assert_eq!(
        reply["result"]["isError"],
        true,
        "{}",
        &reply.to_string()[..200.min(reply.to_string().len())]
    );
    // Over our limit: an error that carries the request's id, and the connection goes on.
    let too_long = client.call_with(json!({
        "name": "scan_document",
        "arguments": { "image_base64": "A".repeat(37 * 1024 * 1024) }
    }));
    assert_eq!(too_long["error"]["code"], -32600, "{too_long}");
    assert!(too_long["id"].is_number(), "{too_long}");
    let parsed = client.call("parse_mrz", json!({ "lines": [MRZ_LINE1, MRZ_LINE2] }));
    assert_eq!(parsed.ok()["fields"]["document_number"], PASSPORT_NUMBER);
}

/// Every file under `dir`, recursively.
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
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

pub(crate) fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[cfg(unix)]
#[test]
fn data_files_are_private_and_a_deleted_scan_leaves_no_trace() {
    use std::os::unix::fs::PermissionsExt;
    let parent = tempfile::tempdir().unwrap();
    let data_dir = parent.path().join("data");
    let (child, addr) = start_in(&data_dir, &[], |_| {});
    let mut server = ServerProcess::adopt(child, tempfile::tempdir().unwrap(), addr);
    let mut client = server.client(Revision::Modern, json!({}));
    let kept = client.call(
        "scan_document",
        json!({ "image_base64": support::image_base64(PASSPORT), "retain_hours": 1 }),
    );
    let id = support::scan_id(kept.ok());

    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data_dir), 0o700);
    let files = files_under(&data_dir);
    assert!(files.len() >= 2, "{files:?}");
    for file in &files {
        assert_eq!(mode(file), 0o600, "{}", file.display());
    }
    let holds_it = |files: &[std::path::PathBuf]| {
        files.iter().any(|f| contains(&std::fs::read(f).unwrap_or_default(), "ERIKSSON"))
    };
    assert!(holds_it(&files), "the kept scan is in the database files");

    let deleted = client.call("delete_scan", json!({ "scan_id": id }));
    assert_eq!(deleted.ok()["deleted"], true);
    let files = files_under(&data_dir);
    for file in &files {
        let bytes = std::fs::read(file).unwrap_or_default();
        for secret in ["ERIKSSON", PASSPORT_NUMBER] {
            assert!(!contains(&bytes, secret), "{} still holds {secret}", file.display());
        }
    }
}

#[test]
fn a_wildcard_origin_needs_authentication() {
    let data_dir = tempfile::tempdir().unwrap();
    let output = support::serve_command(data_dir.path())
        .args(["--listen", "127.0.0.1:0", "--allowed-origin", "*"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("refused without authentication"));
}

#[test]
fn mcp_responses_are_not_cached_and_public_paths_check_the_host() {
    let server = ServerProcess::http(&[]);
    let addr = server.addr.unwrap();
    let reply = transport::post(
        addr,
        &[("Mcp-Protocol-Version", support::client::MODERN.to_owned())],
        &json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {
            "_meta": { "io.modelcontextprotocol/protocolVersion": support::client::MODERN } } }),
    );
    assert_eq!(reply.header("cache-control"), Some("no-store"), "{}", reply.status);
    for path in ["/readyz", "/healthz", "/", "/openapi.json"] {
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n");
        let (response, _) =
            closed_within(send_raw(addr, request.as_bytes()), Duration::from_secs(5));
        assert_eq!(status_of(&response), 403, "{path}: {}", String::from_utf8_lossy(&response));
        let allowed = transport::request(addr, "GET", path, &[], "");
        assert_eq!(allowed.status, 200, "{path}");
    }
}

/// `mrtd keys create NAME` in `data_dir`: the new key.
/// The resident memory of a process now, in bytes.
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS in /proc");
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

/// The sockets a process holds open (its listener and connections among them).
fn sockets(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .flatten()
        .filter(|entry| {
            std::fs::read_link(entry.path())
                .is_ok_and(|target| target.to_string_lossy().starts_with("socket:"))
        })
        .count()
}

/// An image directory holding one large "photo" (random bytes: only its extension makes it
/// one) of `mib` MiB.
fn large_image_dir(mib: usize) -> tempfile::TempDir {
    use rand::Rng as _;
    let images = tempfile::tempdir().unwrap();
    let mut bytes = vec![0u8; mib << 20];
    rand::rng().fill_bytes(&mut bytes);
    std::fs::write(images.path().join("large.jpg"), bytes).unwrap();
    images
}

/// A `resources/read` of `uri` as its raw request bytes.
fn resource_read_request(addr: SocketAddr, uri: &str) -> Vec<u8> {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {
        "uri": uri, "_meta": { "io.modelcontextprotocol/protocolVersion": support::client::MODERN,
                               "io.modelcontextprotocol/clientCapabilities": {} } } })
    .to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: {}\r\n\
         Mcp-Method: resources/read\r\nMcp-Name: {uri}\r\nContent-Length: {}\r\n\r\n{body}",
        support::client::MODERN,
        body.len()
    )
    .into_bytes()
}

#[test]
fn concurrent_reads_of_a_large_image_file_stay_within_the_answer_budget() {
    let images = large_image_dir(16);
    let budget_mib = 64;
    let mut server = ServerProcess::http(&[
        "--image-dir",
        images.path().to_str().unwrap(),
        "--max-answer-memory-mib",
        &budget_mib.to_string(),
        "--rate-limit",
        "0",
        "--scan-wait-secs",
        "60",
        // A read waits for room at most one response timeout: here long enough for all.
        "--response-timeout-secs",
        "120",
    ]);
    let addr = server.addr.unwrap();
    let pid = server.pid();
    let mut lister = server.client(Revision::Modern, json!({}));
    lister.result("tools/list", json!({}));
    let before = rss(pid);
    // 16 reads at once of a 16 MiB file: about 48 MiB each as file, base64 and message, so
    // the 64 MiB budget lets one through at a time and the others wait their turn.
    let readers: Vec<_> = (0..16)
        .map(|_| {
            std::thread::spawn(move || {
                let mut stream =
                    send_raw(addr, &resource_read_request(addr, "mrtd://images/large.jpg"));
                stream.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
                let mut response = Vec::new();
                let _ = stream.read_to_end(&mut response);
                response
            })
        })
        .collect();
    // Meanwhile tools/list is answered.
    let mut latencies = Vec::new();
    while !readers.iter().all(|reader| reader.is_finished()) {
        let started = Instant::now();
        lister.result("tools/list", json!({}));
        latencies.push(started.elapsed());
        std::thread::sleep(Duration::from_millis(20));
    }
    let encoded_len = (16usize << 20).div_ceil(3) * 4;
    for reader in readers {
        let response = reader.join().unwrap();
        assert_eq!(status_of(&response), 200);
        assert!(response.len() > encoded_len, "a whole answer: {} bytes", response.len());
    }
    let peak = peak_rss(pid);
    latencies.sort();
    let p99 = latencies[(latencies.len() * 99 / 100).min(latencies.len() - 1)];
    eprintln!(
        "16 reads of 16 MiB: peak RSS {} MiB ({} MiB before), tools/list p99 {p99:?} over {} calls",
        peak >> 20,
        before >> 20,
        latencies.len()
    );
    // Without the budget the answers alone held over a gigabyte at once.
    let ceiling = before + ((budget_mib + 96) << 20);
    assert!(peak < ceiling, "peak RSS {} MiB, before {} MiB", peak >> 20, before >> 20);
    assert!(p99 < Duration::from_secs(1), "tools/list p99 {p99:?}");
}

/// What became of clients that never read their answers: when the server had closed
/// them all, its memory at the peak and after, and what each connection received.
struct NeverRead {
    closed: Duration,
    peak: u64,
    after: u64,
    received: Vec<Vec<u8>>,
}

/// `clients` connections ask `server` for `uri` and never read; waits (up to `limit`)
/// until the server has closed them all, then checks that each got less than `whole` bytes.
fn never_reading(
    server: &ServerProcess,
    uri: &str,
    clients: usize,
    whole: usize,
    limit: Duration,
) -> NeverRead {
    let (addr, pid) = (server.addr.unwrap(), server.pid());
    let open_before = sockets(pid);
    let started = Instant::now();
    let request = resource_read_request(addr, uri);
    let streams: Vec<TcpStream> = (0..clients).map(|_| send_raw(addr, &request)).collect();
    let mut peak = 0;
    let mut opened = false;
    let closed = loop {
        let open = sockets(pid);
        peak = peak.max(rss(pid));
        opened |= open >= open_before + clients;
        if opened && open == open_before {
            break started.elapsed();
        }
        assert!(
            started.elapsed() < limit,
            "{} connections still open after {limit:?} (peak {} MiB)",
            open - open_before,
            peak >> 20
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    // Each connection was closed before its answer was sent: what the socket holds ends early.
    let received: Vec<Vec<u8>> = streams
        .into_iter()
        .map(|stream| {
            let (received, _) = closed_within(stream, Duration::from_secs(20));
            assert!(received.len() < whole, "{} of {whole} bytes arrived", received.len());
            received
        })
        .collect();
    NeverRead { closed, peak, after: rss(pid), received }
}

#[test]
fn clients_that_never_read_a_large_answer_are_closed_within_the_response_timeout() {
    let images = large_image_dir(16);
    let whole = (16usize << 20).div_ceil(3) * 4;
    let timeout = Duration::from_secs(2);
    let server = |budget_mib: &str| {
        ServerProcess::http(&[
            "--image-dir",
            images.path().to_str().unwrap(),
            "--response-timeout-secs",
            &timeout.as_secs().to_string(),
            "--max-answer-memory-mib",
            budget_mib,
            "--rate-limit",
            "0",
        ])
    };
    // Room for all twelve answers at once: each connection's own timeout is measured.
    let roomy = server("1024");
    let before = rss(roomy.pid());
    let seen = never_reading(&roomy, "mrtd://images/large.jpg", 12, whole, timeout * 10);
    eprintln!(
        "12 clients that never read: closed after {:?}; peak {} MiB, {} MiB before, {} MiB after",
        seen.closed,
        seen.peak >> 20,
        before >> 20,
        seen.after >> 20
    );
    assert!(seen.peak > before + (256 << 20), "the answers were built: {} MiB", seen.peak >> 20);
    assert!(seen.after < before + (64 << 20), "their memory returns: {} MiB", seen.after >> 20);
    assert!(seen.closed < timeout + Duration::from_secs(10), "{:?}", seen.closed);

    // With the default answer budget (192 MiB) three of these answers fit at once. The
    // others waited for room until earlier ones were closed, so the group was closed a
    // budget's worth at a time, one timeout after another (four timeouts and more for
    // twelve); now a read waits for room at most one response timeout and is then
    // refused, 503 with Retry-After, and its connection closed: the whole group is closed
    // within about one timeout of the first request.
    let timeout = Duration::from_secs(4);
    let default_budget = ServerProcess::http(&[
        "--image-dir",
        images.path().to_str().unwrap(),
        "--response-timeout-secs",
        &timeout.as_secs().to_string(),
        "--rate-limit",
        "0",
    ]);
    let before = rss(default_budget.pid());
    let seen = never_reading(&default_budget, "mrtd://images/large.jpg", 12, whole, timeout * 10);
    let built = seen.received.iter().filter(|r| status_of(r) == 200).count();
    let refused: Vec<&Vec<u8>> = seen.received.iter().filter(|r| status_of(r) == 503).collect();
    eprintln!(
        "12 clients that never read, default answer budget, {timeout:?} response timeout: \
         all closed after {:?} ({built} answers built, {} refused); peak {} MiB, {} MiB \
         before, {} MiB after",
        seen.closed,
        refused.len(),
        seen.peak >> 20,
        before >> 20,
        seen.after >> 20
    );
    assert_eq!(built + refused.len(), 12, "each got an answer or a refusal");
    assert!((1..=3).contains(&built), "{built} answers built within 192 MiB");
    for refusal in refused {
        let text = String::from_utf8_lossy(refusal).to_ascii_lowercase();
        assert!(text.contains("retry-after:"), "{text}");
        assert!(text.contains("\"retryafter\""), "{text}");
    }
    // Before, the group was closed after 25 s: three waves of answers, one timeout each,
    // and the last refusals kept alive until the idle timeout.
    assert!(seen.closed < timeout * 5 / 2, "all closed after {:?}", seen.closed);
    assert!(seen.peak < before + (192 << 20) + (96 << 20), "peak {} MiB", seen.peak >> 20);
    assert!(seen.after < before + (64 << 20), "their memory returns: {} MiB", seen.after >> 20);
}
