//! The two ways a test reaches the server: HTTP/1.1 POSTs on loopback and JSON lines on
//! the stdio of a child process.
//!
//! HTTP goes through the tests' one client (`mrtd_testkit::http`), which shows what the
//! server really sends, JSON or SSE.

use std::{
    io::{BufRead, BufReader, Write},
    net::SocketAddr,
    process::{ChildStdin, ChildStdout},
    sync::mpsc::{self, Receiver},
};

use serde_json::Value;

pub use mrtd_testkit::http::REPLY_TIMEOUT;

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
    let mut all = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    all.extend(headers.iter().map(|(name, value)| (*name, value.as_str())));
    let reply =
        mrtd_testkit::http::request(addr, "POST", "/mcp", &all, body.to_string().as_bytes());
    let messages = reply.messages();
    HttpReply { status: reply.status, headers: reply.headers, messages }
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
    let reply = mrtd_testkit::http::request(addr, method, path, headers, body.as_bytes());
    let body = reply.text();
    TextReply { status: reply.status, headers: reply.headers, body }
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
        self.send_line(message.to_string().as_bytes());
    }

    /// Writes `line` as it is (any bytes, malformed ones included) and a line end.
    pub fn send_line(&mut self, line: &[u8]) {
        self.stdin.write_all(line).expect("write a line to the server's stdin");
        self.stdin.write_all(b"\n").expect("write a line to the server's stdin");
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
