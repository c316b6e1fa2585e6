//! The two ways a test reaches the server: HTTP/1.1 POSTs on loopback and JSON lines on
//! the stdio of a child process.
//!
//! The HTTP client is hand-written over `std::net::TcpStream` (one connection per request,
//! `Connection: close`), so the tests see what the server really sends, JSON or SSE.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{SocketAddr, TcpStream},
    process::{ChildStdin, ChildStdout},
    sync::mpsc::{self, Receiver},
    time::Duration,
};

use serde_json::Value;

/// How long a test waits for any one reply; a scan takes about a second in debug builds.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(30);

/// A decoded HTTP response.
pub struct HttpReply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// The JSON-RPC messages in the body: one for JSON, any number for SSE.
    pub messages: Vec<Value>,
}

impl HttpReply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// POSTs `body` to `http://addr/mcp` with `headers` and decodes the response.
pub fn post(addr: SocketAddr, headers: &[(&str, String)], body: &Value) -> HttpReply {
    let body = body.to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = TcpStream::connect(addr).expect("connect to the server");
    stream.set_read_timeout(Some(REPLY_TIMEOUT)).expect("set a read timeout");
    stream.write_all(request.as_bytes()).expect("send the request");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the whole response");
    parse_response(&raw)
}

/// A response whose body is kept as text (the web page, the REST API, probes).
pub struct TextReply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl TextReply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("the body is not JSON ({e}): {}", self.body))
    }
}

/// Sends any request to `http://addr{path}` and returns the response with its body as text.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> TextReply {
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    let mut stream = TcpStream::connect(addr).expect("connect to the server");
    stream.set_read_timeout(Some(REPLY_TIMEOUT)).expect("set a read timeout");
    stream.write_all(request.as_bytes()).expect("send the request");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the whole response");
    let (status, headers, body) = split_response(&raw);
    TextReply { status, headers, body: String::from_utf8_lossy(&body).into_owned() }
}

/// The status, the headers (names in lower case) and the de-chunked body of a response.
fn split_response(raw: &[u8]) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("incomplete HTTP response: {}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut body = raw[split + 4..].to_vec();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .expect("an HTTP status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let chunked =
        headers.iter().any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    (status, headers, body)
}

fn parse_response(raw: &[u8]) -> HttpReply {
    let (status, headers, body) = split_response(raw);
    let content_type =
        headers.iter().find(|(n, _)| n == "content-type").map_or("", |(_, v)| v.as_str());
    let text = String::from_utf8_lossy(&body);
    let messages = if content_type.starts_with("text/event-stream") {
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    } else if text.trim().is_empty() {
        Vec::new()
    } else {
        vec![
            serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("the body is not JSON ({e}): {text}")),
        ]
    };
    HttpReply { status, headers, messages }
}

/// Decodes a `Transfer-Encoding: chunked` body.
fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&body[..end]);
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16).expect("a chunk size");
        if size == 0 {
            break;
        }
        let start = end + 2;
        out.extend_from_slice(&body[start..start + size]);
        body = &body[start + size + 2..];
    }
    out
}

/// The protocol side of `mrtd serve --stdio`: lines in, lines out.
pub struct StdioPipe {
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl StdioPipe {
    pub fn new(stdin: ChildStdin, stdout: ChildStdout) -> StdioPipe {
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        StdioPipe { stdin, lines }
    }

    pub fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).expect("write a line to the server's stdin");
        self.stdin.flush().expect("flush the server's stdin");
    }

    /// The next line the server writes, which must be a JSON message.
    pub fn receive(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(REPLY_TIMEOUT)
            .unwrap_or_else(|_| panic!("the stdio server wrote no line within {REPLY_TIMEOUT:?}"));
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carried a line that is not JSON ({e}): {line}"))
    }
}
