//! One request per connection (`Connection: close`), the whole response read and decoded.

use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpStream},
    time::Duration,
};

use serde_json::Value;

/// How long a test waits for any one response; a scan takes about a second in debug
/// builds.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(30);

/// A response: status, headers (names in lower case, in order) and the de-chunked body.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked.
    pub bytes: Vec<u8>,
}

impl Reply {
    /// The first header called `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    /// The body as JSON; panics, showing the body, when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.bytes)
            .unwrap_or_else(|e| panic!("the body is not JSON ({e}): {}", self.text()))
    }

    /// The JSON-RPC messages in the body: one for a JSON body, one per `data:` line of a
    /// server-sent event stream, none for an empty body.
    pub fn messages(&self) -> Vec<Value> {
        let text = self.text();
        let is_stream =
            self.header("content-type").is_some_and(|t| t.starts_with("text/event-stream"));
        if is_stream {
            text.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .filter_map(|data| serde_json::from_str(data.trim()).ok())
                .collect()
        } else if text.trim().is_empty() {
            Vec::new()
        } else {
            vec![self.json()]
        }
    }

    /// The JSON-RPC reply (the message carrying a result or an error), sent as JSON or in
    /// an event stream; panics when there is none.
    pub fn rpc(&self) -> Value {
        let messages = self.messages();
        messages
            .iter()
            .find(|m| m.get("result").is_some() || m.get("error").is_some())
            .cloned()
            .unwrap_or_else(|| panic!("no JSON-RPC reply in: {}", self.text()))
    }
}

/// Sends `method path` to `addr` with `headers` and `body` (with `Host`, `Content-Length`
/// and `Connection: close` added) and reads the whole response.
///
/// A server may answer (`413`, `401`) before it has read the whole body and close; the
/// failed write is then expected, and the answer is still read.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut raw = head.into_bytes();
    raw.extend_from_slice(body);
    send_raw(addr, &raw)
}

/// Sends `raw` (a whole request, byte for byte) on a fresh connection and reads the
/// response until the server closes it.
pub fn send_raw(addr: SocketAddr, raw: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).expect("connect to the server");
    stream.set_read_timeout(Some(REPLY_TIMEOUT)).expect("set a read timeout");
    let _ = stream.write_all(raw);
    let mut response = Vec::new();
    // A reset after the answer (the server closed with unread request bytes) still leaves
    // the answer in what was read.
    let _ = stream.read_to_end(&mut response);
    parse(&response)
}

/// Decodes a whole HTTP/1.1 response; panics, showing it, when it is incomplete.
pub fn parse(raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("incomplete HTTP response: {}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no HTTP status line in: {head}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let mut bytes = raw[split + 4..].to_vec();
    let chunked =
        headers.iter().any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    if chunked {
        bytes = dechunk(&bytes);
    }
    Reply { status, headers, bytes }
}

/// Decodes a `Transfer-Encoding: chunked` body (as much of it as arrived).
pub fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&body[..end]);
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let Ok(size) = usize::from_str_radix(size_text, 16) else { break };
        let start = end + 2;
        if size == 0 || body.len() < start + size {
            break;
        }
        out.extend_from_slice(&body[start..start + size]);
        body = body.get(start + size + 2..).unwrap_or_default();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_and_event_stream_responses_are_decoded() {
        let raw = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n\
            10\r\ndata: {\"id\":1}\n\n\r\n1c\r\ndata: {\"id\":2,\"result\":{}}\n\n\r\n0\r\n\r\n";
        let reply = parse(raw);
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("CONTENT-TYPE"), Some("text/event-stream"));
        assert_eq!(reply.messages().len(), 2);
        assert_eq!(reply.rpc()["id"], 2);
    }

    #[test]
    fn a_json_body_is_one_message_and_an_empty_one_none() {
        let reply = parse(
            b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n\r\n{\"error\":{}}",
        );
        assert_eq!(reply.messages(), [serde_json::json!({"error": {}})]);
        assert!(parse(b"HTTP/1.1 202 Accepted\r\n\r\n").messages().is_empty());
    }
}
