//! Wire-level checks of the fixture binary over real HTTP/1.1 on loopback.
//!
//! Requests go through the tests' one HTTP client (`mrtd_testkit::http`), which shows the
//! bytes, status codes and headers the server sends; the event stream a `GET` opens is read
//! off its socket as it arrives.

use std::{
    io::{BufRead, BufReader, Write},
    net::TcpStream,
    process::{Child, Command, Stdio},
    time::Duration,
};

use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

/// A running fixture process, stopped when dropped.
struct Fixture {
    child: Child,
    port: u16,
}

impl Fixture {
    fn start(extra_args: &[&str]) -> Fixture {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mrtd-conformance"))
            .args(["--listen", "127.0.0.1:0"])
            .args(extra_args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the fixture binary starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).expect("the fixture reports its address");
        let port = line
            .trim()
            .strip_prefix("listening on http://127.0.0.1:")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("unexpected first line: {line:?}"));
        Fixture { child, port }
    }

    /// POSTs one JSON-RPC message to `/mcp` and returns the decoded response.
    fn post(&self, headers: &[(&str, &str)], body: &Value) -> Response {
        let mut all = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        all.extend_from_slice(headers);
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], self.port));
        let reply =
            mrtd_testkit::http::request(addr, "POST", "/mcp", &all, body.to_string().as_bytes());
        Response {
            status: reply.status,
            messages: lenient_messages(&reply),
            headers: reply.headers,
        }
    }

    /// A 2026-07-28 request with every header and `_meta` field the revision requires.
    fn modern(&self, id: u64, method: &str, mut params: Value, capabilities: Value) -> Response {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        let name = params.get("name").and_then(Value::as_str).map(str::to_owned);
        let mut headers = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", method)];
        if let Some(name) = name.as_deref() {
            headers.push(("Mcp-Name", name));
        }
        self.post(
            &headers,
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        )
    }

    fn initialize(&self) -> Response {
        let params = json!({
            "protocolVersion": LEGACY,
            "capabilities": {"sampling": {}, "elicitation": {}},
            "clientInfo": {"name": "wire-test", "version": "1.0.0"},
        });
        self.post(
            &[],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}),
        )
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    /// The JSON-RPC messages in the body (one for JSON, several for SSE).
    messages: Vec<Value>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The final message: the one carrying a result or an error.
    fn reply(&self) -> &Value {
        self.messages
            .iter()
            .find(|m| m.get("result").is_some() || m.get("error").is_some())
            .unwrap_or_else(|| panic!("no JSON-RPC reply in {:?}", self.messages))
    }
}

/// The JSON-RPC messages of a body: the body as one JSON message, or else each `data:`
/// line of an event stream, whatever the `Content-Type` says.
fn lenient_messages(reply: &mrtd_testkit::http::Reply) -> Vec<Value> {
    match serde_json::from_slice::<Value>(&reply.bytes) {
        Ok(message) => vec![message],
        Err(_) => reply
            .text()
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect(),
    }
}

#[test]
fn server_discover_describes_the_modern_wire() {
    let fixture = Fixture::start(&[]);
    let response = fixture.modern(7, "server/discover", json!({}), json!({}));
    assert_eq!(response.status, 200);
    let result = &response.reply()["result"];
    assert_eq!(response.reply()["id"], 7);
    assert_eq!(result["resultType"], "complete");
    let versions = result["supportedVersions"].as_array().expect("supportedVersions");
    assert!(versions.contains(&json!(MODERN)), "{versions:?}");
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "mrtd-conformance");
    assert_eq!(result["capabilities"]["tools"]["listChanged"], true);
    assert!(result["ttlMs"].as_u64().is_some() && result["cacheScope"].is_string());
}

#[test]
fn default_mode_serves_legacy_clients_without_sessions() {
    let fixture = Fixture::start(&[]);
    let response = fixture.initialize();
    assert_eq!(response.status, 200);
    assert_eq!(response.reply()["result"]["protocolVersion"], LEGACY);
    assert_eq!(response.header("mcp-session-id"), None, "sessionless mode issued a session");

    // Without a session the server cannot ask the client anything, and says so as a tool error.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "test_sampling", "arguments": {"prompt": "hi"}}});
    let response = fixture.post(&[("MCP-Protocol-Version", LEGACY)], &call);
    let result = &response.reply()["result"];
    assert_eq!(result["isError"], true);
    assert!(result["content"][0]["text"].as_str().unwrap_or("").contains("--legacy-sessions"));
    assert!(result.get("resultType").is_none(), "a 2026 field leaked into a 2025 result");
}

#[test]
fn legacy_sessions_mode_issues_a_visible_ascii_session_id() {
    let fixture = Fixture::start(&["--legacy-sessions"]);
    let response = fixture.initialize();
    assert_eq!(response.status, 200);
    assert_eq!(response.reply()["result"]["protocolVersion"], LEGACY);
    let session = response.header("mcp-session-id").expect("a session id");
    assert!(!session.is_empty() && session.bytes().all(|b| (0x21..=0x7e).contains(&b)));
}

#[test]
fn tool_lists_differ_per_wire() {
    let fixture = Fixture::start(&[]);
    let names = |response: &Response| -> Vec<String> {
        response.reply()["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|tool| tool["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let response = fixture.modern(1, "tools/list", json!({}), json!({}));
    assert_eq!(response.reply()["result"]["ttlMs"], 300_000);
    assert_eq!(response.reply()["result"]["cacheScope"], "public");
    let modern = names(&response);
    assert!(modern.iter().any(|n| n == "test_input_required_result_elicitation"));
    assert!(!modern.iter().any(|n| n == "test_sampling"));

    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}});
    let response = fixture.post(&[("MCP-Protocol-Version", LEGACY)], &list);
    assert!(response.reply()["result"].get("ttlMs").is_none(), "a 2026 field leaked into 2025");
    let legacy = names(&response);
    assert!(legacy.iter().any(|n| n == "test_tool_with_logging"));
    assert!(!legacy.iter().any(|n| n.starts_with("test_input_required")));
}

#[test]
fn tampered_request_state_is_rejected_and_the_genuine_one_completes() {
    let fixture = Fixture::start(&[]);
    let caps = json!({"elicitation": {}});
    let tool = json!({"name": "test_input_required_result_tampered_state", "arguments": {}});
    let first = fixture.modern(1, "tools/call", tool.clone(), caps.clone());
    let result = &first.reply()["result"];
    assert_eq!(result["resultType"], "input_required");
    let state = result["requestState"].as_str().expect("a requestState").to_owned();
    let key = result["inputRequests"]
        .as_object()
        .and_then(|r| r.keys().next().cloned())
        .expect("a request");

    let answer = json!({key: {"action": "accept", "content": {"ok": true}}});
    let mut retry = tool.clone();
    retry["inputResponses"] = answer.clone();
    retry["requestState"] = json!(format!("{state}-TAMPERED"));
    let tampered = fixture.modern(2, "tools/call", retry.clone(), caps.clone());
    assert_eq!(tampered.reply()["error"]["code"], -32602, "{:?}", tampered.reply());

    retry["requestState"] = json!(state);
    let genuine = fixture.modern(3, "tools/call", retry, caps);
    let result = &genuine.reply()["result"];
    assert_eq!(result["resultType"], "complete");
    assert!(result["content"][0]["text"].as_str().unwrap_or("").contains("state-ok"));
}

#[test]
fn missing_client_capability_is_a_400_with_an_object() {
    let fixture = Fixture::start(&[]);
    let tool = json!({"name": "test_missing_capability", "arguments": {}});
    let response = fixture.modern(4, "tools/call", tool, json!({}));
    assert_eq!(response.status, 400);
    let error = &response.reply()["error"];
    assert_eq!(error["code"], -32021);
    assert_eq!(error["data"]["requiredCapabilities"], json!({"sampling": {}}));
}

/// Opens `subscriptions/listen` and returns the stream positioned after the headers.
fn open_listen(fixture: &Fixture, id: u64, notifications: Value) -> BufReader<TcpStream> {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
        "notifications": notifications,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    }})
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {MODERN}\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        fixture.port,
        body.len()
    );
    let mut stream = TcpStream::connect(("127.0.0.1", fixture.port)).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(5))).expect("set a read timeout");
    stream.write_all(request.as_bytes()).expect("send the listen request");
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).expect("a status line");
    assert!(line.starts_with("HTTP/1.1 200"), "listen was refused: {line}");
    while line != "\r\n" {
        line.clear();
        reader.read_line(&mut line).expect("a header line");
    }
    reader
}

/// The next JSON message on an SSE stream (chunk-size lines and comments are skipped).
fn next_event(reader: &mut BufReader<TcpStream>) -> Value {
    let mut line = String::new();
    loop {
        line.clear();
        let read = reader.read_line(&mut line).expect("the stream stays open");
        assert!(read > 0, "the subscription stream ended");
        if let Some(data) = line.strip_prefix("data:")
            && let Ok(message) = serde_json::from_str::<Value>(data.trim())
        {
            return message;
        }
    }
}

#[test]
fn subscriptions_are_acknowledged_tagged_and_filtered() {
    let fixture = Fixture::start(&[]);
    let mut stream = open_listen(&fixture, 50, json!({"toolsListChanged": true}));
    let ack = next_event(&mut stream);
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 50);
    assert_eq!(ack["params"]["notifications"]["toolsListChanged"], true);

    // A prompt change must not reach a stream that asked only for tool changes.
    let prompt = json!({"name": "test_trigger_prompt_change", "arguments": {}});
    let reply = fixture.modern(51, "tools/call", prompt, json!({}));
    assert!(reply.reply()["result"]["content"][0]["text"].as_str().unwrap_or("").contains("to 0"));

    // The stream is registered just after its acknowledgement; retry until it is.
    let tool = json!({"name": "test_trigger_tool_change", "arguments": {}});
    let delivered = (0..50).any(|attempt| {
        let reply = fixture.modern(60 + attempt, "tools/call", tool.clone(), json!({}));
        let text = reply.reply()["result"]["content"][0]["text"].as_str().unwrap_or("").to_owned();
        let done = text.contains("to 1 ");
        if !done {
            std::thread::sleep(Duration::from_millis(20));
        }
        done
    });
    assert!(delivered, "the tool change never reached the open stream");
    let change = next_event(&mut stream);
    assert_eq!(change["method"], "notifications/tools/list_changed");
    assert_eq!(change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 50);
}
