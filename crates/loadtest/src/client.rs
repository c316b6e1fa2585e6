//! A minimal MCP 2026-07-28 client over one keep-alive HTTP/1.1 connection.
//!
//! Every request is a stateless POST: the protocol version, client info and capabilities
//! travel in `params._meta`, and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
//! headers repeat what routing needs. Replies may be plain JSON or an SSE stream; both
//! are decoded. Nothing here panics on a bad reply: every way a request can go wrong is a
//! [`Failure`] with a kind a report can count.

use std::{sync::Arc, time::Duration};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, client::conn::http1::SendRequest};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;

use crate::error::LoadError;

/// The protocol revision every request declares.
pub const PROTOCOL_VERSION: &str = "2026-07-28";
/// The response header nginx sets in `deploy/` to name the replica that answered.
pub const UPSTREAM_HEADER: &str = "x-mrtd-upstream";
/// Longest sample of a failure message kept for reports.
const SAMPLE_CHARS: usize = 240;

/// Where the MCP endpoint is: `http://HOST:PORT/PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// `HOST:PORT`, also sent as the `Host` header.
    pub authority: String,
    /// The request path, `/mcp` by default.
    pub path: String,
}

impl Endpoint {
    /// Parses a plain `http://` URL; TLS is out of scope for a loopback load driver.
    pub fn parse(url: &str) -> Result<Endpoint, LoadError> {
        let invalid = || LoadError::Url(url.to_owned());
        let rest = url.strip_prefix("http://").ok_or_else(invalid)?;
        let (authority, path) = match rest.find('/') {
            Some(slash) => (&rest[..slash], &rest[slash..]),
            None => (rest, "/mcp"),
        };
        if authority.is_empty() {
            return Err(invalid());
        }
        let authority =
            if authority.contains(':') { authority.to_owned() } else { format!("{authority}:80") };
        Ok(Endpoint { authority, path: path.to_owned() })
    }
}

/// Why a request did not produce a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// A short class for counting: `connect`, `io`, `timeout`, `http 503`,
    /// `jsonrpc -32602`, `tool error`, `bad reply`.
    pub kind: String,
    /// What the server (or the socket) said, shortened.
    pub message: String,
}

impl Failure {
    pub fn new(kind: impl Into<String>, message: impl AsRef<str>) -> Failure {
        let message: String = message.as_ref().chars().take(SAMPLE_CHARS).collect();
        Failure { kind: kind.into(), message }
    }
}

/// `params._meta` for a 2026-07-28 request.
pub fn meta(capabilities: &Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientInfo": {
            "name": "mrtd-load",
            "version": env!("CARGO_PKG_VERSION"),
        },
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// `tools/call` params for `tool` with `arguments`, carrying `_meta`.
pub fn tool_params(tool: &str, arguments: Value, capabilities: &Value) -> Value {
    json!({ "_meta": meta(capabilities), "name": tool, "arguments": arguments })
}

/// One connection to the server, reopened after any transport error.
pub struct Connection {
    endpoint: Arc<Endpoint>,
    api_key: Option<Arc<str>>,
    timeout: Duration,
    sender: Option<SendRequest<Full<Bytes>>>,
    next_id: u64,
    /// The replica that answered the last request, when a proxy says so.
    pub last_upstream: Option<String>,
    /// Headers sent with every request besides the protocol's (`X-Forwarded-For`, as a
    /// proxy would send it, or a bearer key).
    headers: Vec<(String, String)>,
}

impl Connection {
    pub fn new(endpoint: Arc<Endpoint>, api_key: Option<Arc<str>>, timeout: Duration) -> Self {
        Connection {
            endpoint,
            api_key,
            timeout,
            sender: None,
            next_id: 1,
            last_upstream: None,
            headers: Vec::new(),
        }
    }

    /// The same connection sending `name: value` with every request.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Sends one JSON-RPC request whose `params` are already serialised JSON (so that a
    /// large image is encoded once, not per request) and returns its `result`.
    ///
    /// `name` is the tool name for `Mcp-Name`. The whole exchange, connecting included,
    /// is bounded by the connection's timeout.
    pub async fn request(
        &mut self,
        method: &str,
        name: Option<&str>,
        params: &str,
    ) -> Result<Value, Failure> {
        let id = self.next_id;
        self.next_id += 1;
        let body =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#);
        let timeout = self.timeout;
        let outcome =
            tokio::time::timeout(timeout, self.exchange(method, name, Bytes::from(body))).await;
        let (status, content_type, bytes) = match outcome {
            Ok(Ok(reply)) => reply,
            Ok(Err(failure)) => {
                self.sender = None;
                return Err(failure);
            }
            Err(_) => {
                // The connection may still carry the late reply; a fresh one is cleaner.
                self.sender = None;
                return Err(Failure::new("timeout", format!("no reply within {timeout:?}")));
            }
        };
        decode_reply(status, &content_type, &bytes, id)
    }

    /// Sends a whole JSON-RPC request body prepared by the caller (shared, so that a large
    /// body is built once for many connections) whose id is `id`, and returns its `result`.
    pub async fn request_prepared(
        &mut self,
        method: &str,
        name: Option<&str>,
        body: Bytes,
        id: u64,
    ) -> Result<Value, Failure> {
        let timeout = self.timeout;
        match tokio::time::timeout(timeout, self.exchange(method, name, body)).await {
            Ok(Ok((status, content_type, bytes))) => {
                decode_reply(status, &content_type, &bytes, id)
            }
            Ok(Err(failure)) => {
                self.sender = None;
                Err(failure)
            }
            Err(_) => {
                self.sender = None;
                Err(Failure::new("timeout", format!("no reply within {timeout:?}")))
            }
        }
    }

    /// Calls a tool and returns its result; a result with `isError` is a `tool error`.
    pub async fn call_tool(&mut self, tool: &str, params: &str) -> Result<Value, Failure> {
        let result = self.request("tools/call", Some(tool), params).await?;
        if result["isError"] == true {
            return Err(Failure::new("tool error", tool_text(&result)));
        }
        Ok(result)
    }

    async fn exchange(
        &mut self,
        method: &str,
        name: Option<&str>,
        body: Bytes,
    ) -> Result<(u16, String, Bytes), Failure> {
        let mut builder = Request::post(self.endpoint.path.as_str())
            .header("host", self.endpoint.authority.as_str())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", PROTOCOL_VERSION)
            .header("mcp-method", method);
        if let Some(name) = name {
            builder = builder.header("mcp-name", name);
        }
        if let Some(key) = &self.api_key {
            builder = builder.header("x-api-key", key.as_ref());
        }
        for (name, value) in &self.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let request = builder
            .body(Full::new(body))
            .map_err(|e| Failure::new("bad request", e.to_string()))?;
        let sender = self.ready_sender().await?;
        let response =
            sender.send_request(request).await.map_err(|e| Failure::new("io", e.to_string()))?;
        let status = response.status().as_u16();
        let header = |name: &str| {
            response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
        };
        let content_type = header("content-type").unwrap_or_default();
        self.last_upstream = header(UPSTREAM_HEADER);
        let bytes = response
            .into_body()
            .collect()
            .await
            .map_err(|e| Failure::new("io", e.to_string()))?
            .to_bytes();
        Ok((status, content_type, bytes))
    }

    /// The open connection, or a new one when there is none or it was closed.
    async fn ready_sender(&mut self) -> Result<&mut SendRequest<Full<Bytes>>, Failure> {
        if self.sender.as_ref().is_none_or(SendRequest::is_closed) {
            self.sender = None;
            let stream = TcpStream::connect(self.endpoint.authority.as_str())
                .await
                .map_err(|e| Failure::new("connect", e.to_string()))?;
            // Small requests must not wait for a delayed ACK.
            stream.set_nodelay(true).map_err(|e| Failure::new("connect", e.to_string()))?;
            let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                .await
                .map_err(|e| Failure::new("connect", e.to_string()))?;
            tokio::spawn(async move {
                // The connection ends when the sender is dropped or the peer closes it.
                let _ = connection.await;
            });
            self.sender = Some(sender);
        }
        let sender = self.sender.as_mut().expect("a sender was just set");
        sender.ready().await.map_err(|e| Failure::new("io", e.to_string()))?;
        Ok(sender)
    }
}

/// Turns an HTTP reply into the JSON-RPC `result` of request `id`, or a failure.
pub fn decode_reply(
    status: u16,
    content_type: &str,
    body: &[u8],
    id: u64,
) -> Result<Value, Failure> {
    let text = String::from_utf8_lossy(body);
    let messages: Vec<Value> = if content_type.starts_with("text/event-stream") {
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    } else {
        serde_json::from_str(&text).into_iter().collect()
    };
    let reply = messages.into_iter().find(|m| m["id"] == id || m.get("error").is_some());
    if status != 200 {
        let message = reply
            .as_ref()
            .and_then(|r| r["error"]["message"].as_str())
            .map_or_else(|| text.trim().to_owned(), str::to_owned);
        return Err(Failure::new(format!("http {status}"), message));
    }
    let Some(reply) = reply else {
        return Err(Failure::new("bad reply", format!("no reply to request {id}: {text}")));
    };
    if let Some(error) = reply.get("error") {
        let code = error["code"].as_i64().unwrap_or_default();
        let message = error["message"].as_str().unwrap_or_default();
        return Err(Failure::new(format!("jsonrpc {code}"), message));
    }
    match reply.get("result") {
        Some(result) => Ok(result.clone()),
        None => Err(Failure::new("bad reply", format!("neither result nor error: {reply}"))),
    }
}

/// The text blocks of a tool result, joined.
pub fn tool_text(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|blocks| {
            blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join(" ")
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_parse_with_and_without_a_path() {
        let endpoint = Endpoint::parse("http://127.0.0.1:8080/mcp").unwrap();
        assert_eq!(endpoint.authority, "127.0.0.1:8080");
        assert_eq!(endpoint.path, "/mcp");
        let bare = Endpoint::parse("http://localhost").unwrap();
        assert_eq!(bare, Endpoint { authority: "localhost:80".into(), path: "/mcp".into() });
        assert!(Endpoint::parse("https://example.com/mcp").is_err());
        assert!(Endpoint::parse("http:///mcp").is_err());
    }

    #[test]
    fn replies_decode_to_results_and_failures() {
        let ok = br#"{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}"#;
        assert_eq!(decode_reply(200, "application/json", ok, 7).unwrap(), json!({"tools": []}));

        let sse = b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n";
        assert_eq!(decode_reply(200, "text/event-stream", sse, 3).unwrap(), json!({}));

        let rpc = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad state"}}"#;
        let failure = decode_reply(200, "application/json", rpc, 1).unwrap_err();
        assert_eq!(failure, Failure::new("jsonrpc -32602", "bad state"));

        let busy = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"busy"}}"#;
        let failure = decode_reply(503, "application/json", busy, 1).unwrap_err();
        assert_eq!(failure, Failure::new("http 503", "busy"));

        let failure = decode_reply(200, "application/json", b"not json", 1).unwrap_err();
        assert_eq!(failure.kind, "bad reply");
    }
}
