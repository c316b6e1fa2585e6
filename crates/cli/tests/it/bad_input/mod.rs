//! The bad-input catalogue: malformed and hostile requests sent to the real `mrtd serve`
//! over HTTP (and a few over stdio). Every case states the HTTP status and the JSON-RPC error
//! code or tool-error text it must get; after every case the server must still answer
//! `tools/list`. No answer may be a 5xx or show internal detail (paths, backend errors,
//! panics).

use crate::support;

mod catalogue;

use std::{
    io::{Read, Write},
    net::{Shutdown, SocketAddr, TcpStream},
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, SystemTime},
};

use base64::Engine as _;
use mrtd_testkit::http::{Reply, parse};
use serde_json::{Value, json};
use support::{PASSPORT, image_path};

const MODERN: &str = "2026-07-28";
/// The body limit the server under test runs with, so oversized bodies stay cheap to send.
const BODY_LIMIT_MIB: usize = 2;
/// What every refused image path gets, whatever the reason.
const PATH_REFUSED: &str =
    "image_path must name an existing file inside the server's image directory";
const NOT_FOUND: &str = "No scan with this scan_id";

/// One HTTP request, byte for byte.
#[derive(Clone)]
struct Raw {
    method: &'static str,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// Overrides the `Content-Length` header (`None`: the body's length).
    content_length: Option<String>,
    /// Bytes of the body actually sent before the write side is closed.
    send_only: Option<usize>,
}

impl Raw {
    fn post(body: impl Into<Vec<u8>>, method: &str, name: Option<&str>) -> Raw {
        let mut headers = vec![
            ("Content-Type".to_owned(), "application/json".to_owned()),
            ("Accept".to_owned(), "application/json, text/event-stream".to_owned()),
            ("MCP-Protocol-Version".to_owned(), MODERN.to_owned()),
            ("Mcp-Method".to_owned(), method.to_owned()),
        ];
        if let Some(name) = name {
            headers.push(("Mcp-Name".to_owned(), name.to_owned()));
        }
        Raw {
            method: "POST",
            path: "/mcp".to_owned(),
            headers,
            body: body.into(),
            content_length: None,
            send_only: None,
        }
    }

    /// Sets (or adds) a header.
    fn with(mut self, name: &str, value: &str) -> Raw {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    fn without(mut self, name: &str) -> Raw {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    fn method(mut self, method: &'static str) -> Raw {
        self.method = method;
        self
    }
}

/// A well-formed 2026-07-28 request for `method` with `params` (plus the required `_meta`).
fn rpc(method: &str, mut params: Value) -> Raw {
    if let Some(object) = params.as_object_mut() {
        object.insert(
            "_meta".into(),
            json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            }),
        );
    }
    let name = ["name", "uri"].iter().find_map(|k| params.get(*k).and_then(Value::as_str));
    let name = name.map(str::to_owned);
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    Raw::post(body.to_string(), method, name.as_deref())
}

fn tool(name: &str, arguments: Value) -> Raw {
    rpc("tools/call", json!({ "name": name, "arguments": arguments }))
}

/// A body sent as-is, headed as a `tools/call`.
fn body(bytes: impl Into<Vec<u8>>) -> Raw {
    Raw::post(bytes, "tools/call", None)
}

fn scan_bytes(bytes: &[u8]) -> Raw {
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    tool("scan_document", json!({ "image_base64": encoded }))
}

/// What a case must get.
#[derive(Debug)]
enum Expect {
    /// A JSON-RPC error with this code.
    Rpc(i64),
    /// A tool result with `isError: true` whose text contains this.
    Tool(&'static str),
    /// A refusal by the HTTP layer itself, before any JSON-RPC handling.
    Http,
    /// A successful JSON-RPC result.
    Fine,
}

struct Case {
    name: &'static str,
    request: Raw,
    status: u16,
    expect: Expect,
}

fn case(name: &'static str, request: Raw, status: u16, expect: Expect) -> Case {
    Case { name, request, status, expect }
}

/// The JSON-RPC message of a body: plain JSON, or the last `data:` line of SSE.
fn message(reply: &Reply) -> Option<Value> {
    if let Ok(value) = serde_json::from_slice(&reply.bytes) {
        return Some(value);
    }
    String::from_utf8_lossy(&reply.bytes)
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .next_back()
}

/// Sends `raw` on a fresh connection and reads the whole answer.
fn send(addr: SocketAddr, raw: &Raw) -> Reply {
    let mut head = format!("{} {} HTTP/1.1\r\nConnection: close\r\n", raw.method, raw.path);
    // The Host header is the case's own when it sets one.
    if !raw.headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    let length = raw.content_length.clone().unwrap_or_else(|| raw.body.len().to_string());
    head.push_str(&format!("Content-Length: {length}\r\n"));
    for (name, value) in &raw.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut stream = TcpStream::connect(addr).expect("the server accepts a connection");
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let body = &raw.body[..raw.send_only.unwrap_or(raw.body.len()).min(raw.body.len())];
    // The server may answer and close before reading everything (a declared length over
    // the limit); the answer is read either way.
    let writer = {
        let mut stream = stream.try_clone().unwrap();
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(body);
        let close_write = raw.send_only.is_some();
        std::thread::spawn(move || {
            let _ = stream.write_all(&bytes);
            if close_write {
                let _ = stream.shutdown(Shutdown::Write);
            }
        })
    };
    let mut bytes = Vec::new();
    let read = stream.read_to_end(&mut bytes);
    let _ = writer.join();
    if bytes.is_empty() {
        panic!("no answer at all ({read:?})");
    }
    parse(&bytes)
}

/// Texts that must never reach a client.
fn assert_no_internal_detail(name: &str, reply: &Reply, data_dir: &Path) {
    let text = String::from_utf8_lossy(&reply.bytes).to_ascii_lowercase();
    let data_dir = data_dir.to_string_lossy().to_ascii_lowercase();
    for leak in [
        "panicked",
        "backtrace",
        "sqlx",
        "sqlite",
        "database",
        "os error",
        ".rs:",
        "thread '",
        "/home/",
        "/tmp/",
    ] {
        assert!(!text.contains(leak), "{name}: the answer shows {leak:?}: {text}");
    }
    assert!(!text.contains(&data_dir), "{name}: the answer shows the data directory");
}

fn check(case: &Case, reply: &Reply, data_dir: &Path) {
    let name = case.name;
    let shown = String::from_utf8_lossy(&reply.bytes);
    let shown = &shown[..shown.len().min(600)];
    assert!(reply.status < 500, "{name}: HTTP {} {shown}", reply.status);
    assert_eq!(reply.status, case.status, "{name}: {shown}");
    assert_no_internal_detail(name, reply, data_dir);
    if reply.status == 405 {
        assert_eq!(
            reply.header("allow"),
            Some("POST, OPTIONS"),
            "{name}: 405 says what is allowed"
        );
    }
    match &case.expect {
        Expect::Http => {}
        Expect::Rpc(code) => {
            let message = message(reply).unwrap_or_else(|| panic!("{name}: not JSON: {shown}"));
            assert_eq!(message["jsonrpc"], "2.0", "{name}: {message}");
            assert_eq!(message["error"]["code"], json!(code), "{name}: {message}");
            let text = message["error"]["message"].as_str().unwrap_or("");
            assert!(!text.is_empty(), "{name}: an error says what is wrong");
            // However large the request, the error does not echo it back.
            assert!(reply.bytes.len() <= 8192, "{name}: {} bytes of error", reply.bytes.len());
        }
        Expect::Tool(text) => {
            let message = message(reply).unwrap_or_else(|| panic!("{name}: not JSON: {shown}"));
            let result = &message["result"];
            assert_eq!(result["isError"], json!(true), "{name}: {message}");
            let said: Vec<&str> = result["content"]
                .as_array()
                .map(|blocks| blocks.iter().filter_map(|b| b["text"].as_str()).collect())
                .unwrap_or_default();
            assert!(said.iter().any(|t| t.contains(text)), "{name}: {said:?} lacks {text:?}");
        }
        Expect::Fine => {
            let message = message(reply).unwrap_or_else(|| panic!("{name}: not JSON: {shown}"));
            assert!(message.get("result").is_some(), "{name}: {message}");
            assert_ne!(message["result"]["isError"], json!(true), "{name}: {message}");
        }
    }
}

/// `tools/list` still answers with the seven tools.
fn assert_still_serving(addr: SocketAddr, after: &str) {
    let reply = send(addr, &rpc("tools/list", json!({})));
    assert_eq!(reply.status, 200, "tools/list after {after}");
    let message = message(&reply).expect("a JSON answer");
    let tools = message["result"]["tools"].as_array().map_or(0, Vec::len);
    assert_eq!(tools, 7, "tools/list after {after}: {message}");
}

// --- Images made to measure ----------------------------------------------------------------

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&u32::try_from(data.len()).unwrap().to_be_bytes());
    let mut tagged = kind.to_vec();
    tagged.extend_from_slice(data);
    out.extend_from_slice(&tagged);
    out.extend_from_slice(&crc32fast::hash(&tagged).to_be_bytes());
}

/// A PNG whose header declares `width` x `height` but whose data is a few stored zeros:
/// tiny on the wire, huge if a decoder believed the header.
fn png_header_only(width: u32, height: u32, bit_depth: u8, color_type: u8) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::new();
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    header.extend_from_slice(&[bit_depth, color_type, 0, 0, 0]);
    png_chunk(&mut png, b"IHDR", &header);
    // A zlib stream with one stored block of 16 zero bytes, and its Adler-32.
    let zeros = [0u8; 16];
    let mut idat = vec![0x78, 0x01, 0x01, 16, 0, !16u8, 0xff];
    idat.extend_from_slice(&zeros);
    idat.extend_from_slice(&(16u32 << 16 | 1).to_be_bytes());
    png_chunk(&mut png, b"IDAT", &idat);
    png_chunk(&mut png, b"IEND", &[]);
    png
}

/// A real, fully compressed grey PNG: kilobytes on the wire, `width * height` bytes decoded.
fn png_bomb(width: u32, height: u32) -> Vec<u8> {
    let picture = image::GrayImage::from_pixel(width, height, image::Luma([255]));
    let mut bytes = std::io::Cursor::new(Vec::new());
    picture.write_to(&mut bytes, image::ImageFormat::Png).expect("encode a PNG");
    bytes.into_inner()
}

// --- The server under test ------------------------------------------------------------------

struct Fixture {
    child: Child,
    addr: SocketAddr,
    data_dir: tempfile::TempDir,
    /// Holds the image directory and, beside it, a file that must stay out of reach.
    _files: tempfile::TempDir,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Fixture {
    let files = tempfile::tempdir().unwrap();
    let images = files.path().join("images");
    std::fs::create_dir_all(images.join("sub")).unwrap();
    std::fs::copy(image_path(PASSPORT), images.join("passport.jpg")).unwrap();
    std::fs::write(files.path().join("secret.txt"), b"top secret, outside the image directory")
        .unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(files.path().join("secret.txt"), images.join("link.jpg"))
            .unwrap();
        std::os::unix::fs::symlink(files.path(), images.join("up")).unwrap();
    }
    let data_dir = tempfile::tempdir().unwrap();
    let mut child = support::serve_command(data_dir.path())
        .args(["--listen", "127.0.0.1:0", "--rate-limit", "0"])
        .args(["--max-body-mib", &BODY_LIMIT_MIB.to_string(), "--image-dir"])
        .arg(&images)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mrtd serve starts");
    let stderr = child.stderr.take().unwrap();
    let addr = support::announced_address(stderr, |line| {
        if line.contains("panicked") {
            eprintln!("server: {line}");
        }
    });
    Fixture { child, addr, data_dir, _files: files }
}

/// Scans kept before the catalogue runs: one expired, one of another caller.
fn plant_scans(data_dir: &Path) -> (String, String) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let store = mrtd_store::open(&mrtd_store::default_sqlite_url(data_dir)).await.unwrap();
        let result = json!({ "status": "read", "fields": { "document_number": "L898902C3" } });
        let expired = store
            .insert(mrtd_store::NewScan {
                owner: "local".into(),
                result: result.clone(),
                retain_until: SystemTime::now() - Duration::from_secs(60),
                portrait: None,
            })
            .await
            .unwrap();
        let foreign = store
            .insert(mrtd_store::NewScan {
                owner: "key:someone-else".into(),
                result,
                retain_until: SystemTime::now() + Duration::from_secs(3600),
                portrait: None,
            })
            .await
            .unwrap();
        (expired.id.as_str().to_owned(), foreign.id.as_str().to_owned())
    })
}

#[test]
fn every_bad_request_gets_a_clear_error_and_the_server_keeps_serving() {
    let fixture = start();
    let (expired, foreign) = plant_scans(fixture.data_dir.path());
    let cases = catalogue::catalogue(&expired, &foreign);
    assert!(cases.len() >= 50, "the catalogue holds {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let reply = send(fixture.addr, &case.request);
        if let Err(panic) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check(case, &reply, fixture.data_dir.path())
        })) {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            failures.push(message);
        }
        assert_still_serving(fixture.addr, case.name);
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );

    // The planted scans are untouched: the foreign one is still there for its owner.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let url = mrtd_store::default_sqlite_url(fixture.data_dir.path());
        let store = mrtd_store::open(&url).await.unwrap();
        store.get("key:someone-else", &foreign, SystemTime::now()).await.expect("still kept");
    });
    // A legitimate scan through the image directory still works after all of it.
    let reply = send(fixture.addr, &tool("scan_document", json!({ "image_path": "passport.jpg" })));
    let message = message(&reply).unwrap();
    assert_eq!(message["result"]["structuredContent"]["status"], "read", "{message}");
}

// --- stdio ------------------------------------------------------------------------------------

struct StdioServer {
    child: Child,
    pipe: support::transport::StdioPipe,
    _data_dir: tempfile::TempDir,
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl StdioServer {
    fn start() -> StdioServer {
        let data_dir = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_mrtd"))
            .args(["serve", "--stdio", "--data-dir"])
            .arg(data_dir.path())
            .env("RUST_LOG", "warn")
            .env_remove("MRTD_DATABASE_URL")
            .env_remove("MRTD_IMAGE_DIR")
            .env_remove("MRTD_CONFIG")
            .env("XDG_CONFIG_HOME", data_dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("mrtd serve --stdio starts");
        let pipe = support::transport::StdioPipe::new(
            child.stdin.take().unwrap(),
            child.stdout.take().unwrap(),
        );
        StdioServer { child, pipe, _data_dir: data_dir }
    }

    fn send_line(&mut self, line: &[u8]) {
        self.pipe.send_line(line);
    }

    /// The next message that is not a notification.
    fn receive(&mut self) -> Value {
        loop {
            let message = self.pipe.receive();
            if message.get("method").is_none() {
                return message;
            }
        }
    }
}

fn stdio_message(id: u64, method: &str, mut params: Value) -> Vec<u8> {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
        .to_string()
        .into_bytes()
}

#[test]
fn stdio_survives_bad_lines() {
    let mut server = StdioServer::start();
    let tools_call = |name: &str, arguments: Value| {
        stdio_message(9, "tools/call", json!({ "name": name, "arguments": arguments }))
    };
    let cases: Vec<(&str, Vec<u8>, Expect)> = vec![
        ("not JSON", b"hello there".to_vec(), Expect::Rpc(-32700)),
        (
            "truncated JSON",
            br#"{"jsonrpc":"2.0","id":9,"method":"tools/li"#.to_vec(),
            Expect::Rpc(-32700),
        ),
        (
            "invalid UTF-8",
            b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"\xff\"}".to_vec(),
            Expect::Rpc(-32700),
        ),
        (
            "100000 nested arrays",
            catalogue::nested(100_000, "[", "]", "").into_bytes(),
            Expect::Rpc(-32700),
        ),
        ("unknown tool", tools_call("format_disk", json!({})), Expect::Rpc(-32602)),
        // Params the protocol layer cannot read are invalid params here too, not an
        // unknown method.
        (
            "tools/call without a name",
            stdio_message(9, "tools/call", json!({ "arguments": {} })),
            Expect::Rpc(-32602),
        ),
        (
            "tool name is a number",
            stdio_message(9, "tools/call", json!({ "name": 5 })),
            Expect::Rpc(-32602),
        ),
        ("arguments is a string", tools_call("parse_mrz", json!("lines")), Expect::Rpc(-32602)),
        (
            "prompts/get without a name",
            stdio_message(9, "prompts/get", json!({})),
            Expect::Rpc(-32602),
        ),
        (
            "resources/read without a uri",
            stdio_message(9, "resources/read", json!({})),
            Expect::Rpc(-32602),
        ),
        (
            "invalid base64",
            tools_call("scan_document", json!({ "image_base64": "%%%" })),
            Expect::Tool("not valid base64"),
        ),
        (
            "image_path without an image directory",
            tools_call("scan_document", json!({ "image_path": "../../etc/passwd" })),
            Expect::Tool("image_path is disabled"),
        ),
        (
            "PNG header of 100000 x 100000",
            tools_call(
                "scan_document",
                json!({ "image_base64": base64::engine::general_purpose::STANDARD.encode(png_header_only(100_000, 100_000, 8, 0)) }),
            ),
            Expect::Tool("pixels"),
        ),
    ];
    for (index, (name, line, expect)) in cases.into_iter().enumerate() {
        server.send_line(&line);
        let answer = server.receive();
        match expect {
            Expect::Rpc(code) => {
                assert_eq!(answer["error"]["code"], json!(code), "{name}: {answer}");
                // A request that parsed gets its own id back.
                if code == -32602 {
                    assert_eq!(answer["id"], json!(9), "{name}: {answer}");
                }
            }
            Expect::Tool(text) => {
                assert_eq!(answer["result"]["isError"], json!(true), "{name}: {answer}");
                let said = answer["result"]["content"].to_string();
                assert!(said.contains(text), "{name}: {said}");
            }
            Expect::Http | Expect::Fine => unreachable!("stdio cases expect errors"),
        }
        let id = 100 + index as u64;
        server.send_line(&stdio_message(id, "tools/list", json!({})));
        let listed = server.receive();
        assert_eq!(listed["id"], json!(id), "tools/list after {name}: {listed}");
        assert_eq!(listed["result"]["tools"].as_array().map_or(0, Vec::len), 7, "after {name}");
    }
}
