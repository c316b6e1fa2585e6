//! A minimal MCP client that speaks 2026-07-28 (metadata on every request) or 2025-11-25
//! (an `initialize` handshake first), over HTTP or stdio, and checks every structured tool
//! result against the tool's published `outputSchema`.

use std::{collections::HashMap, net::SocketAddr};

use serde_json::{Value, json};

use super::transport::{self, StdioPipe};

pub const MODERN: &str = "2026-07-28";
pub const LEGACY: &str = "2025-11-25";

/// The protocol revision a client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revision {
    /// 2026-07-28: no handshake; version and capabilities in every request's `_meta`.
    Modern,
    /// 2025-11-25: `initialize`, then plain requests.
    Legacy,
}

enum Wire {
    Http { addr: SocketAddr, extra_headers: Vec<(&'static str, String)> },
    Stdio(StdioPipe),
}

/// One MCP client.
pub struct Client {
    wire: Wire,
    revision: Revision,
    capabilities: Value,
    next_id: u64,
    output_schemas: HashMap<String, jsonschema::Validator>,
}

impl Client {
    /// A client of the HTTP endpoint at `addr`; `extra_headers` go with every request.
    pub fn http(
        addr: SocketAddr,
        revision: Revision,
        capabilities: Value,
        extra_headers: Vec<(&'static str, String)>,
    ) -> Client {
        Client::start(Wire::Http { addr, extra_headers }, revision, capabilities)
    }

    /// A client of a server on the other end of `pipe`.
    pub fn stdio(pipe: StdioPipe, revision: Revision, capabilities: Value) -> Client {
        Client::start(Wire::Stdio(pipe), revision, capabilities)
    }

    fn start(wire: Wire, revision: Revision, capabilities: Value) -> Client {
        let mut client =
            Client { wire, revision, capabilities, next_id: 1, output_schemas: HashMap::new() };
        if revision == Revision::Legacy {
            client.initialize();
        }
        client.load_output_schemas();
        client
    }

    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// Asserts that reading `uri` fails as a resource that does not exist: `-32602` from
    /// 2026-07-28 on, `-32002` before, with the URI in the error data.
    pub fn assert_no_resource(&mut self, uri: &str) {
        let reply = self.request("resources/read", json!({ "uri": uri }));
        let code = match self.revision {
            Revision::Modern => -32602,
            Revision::Legacy => -32002,
        };
        assert_eq!(reply["error"]["code"], code, "resources/read {uri}: {reply}");
        assert_eq!(reply["error"]["data"]["uri"], uri, "{reply}");
    }

    fn initialize(&mut self) {
        let params = json!({
            "protocolVersion": LEGACY,
            "capabilities": self.capabilities,
            "clientInfo": { "name": "mrtd-tests", "version": "1.0.0" },
        });
        let id = self.take_id();
        let message =
            json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": params });
        let reply = self.exchange(&message, "initialize", None, false);
        let result = &reply["result"];
        assert_eq!(result["protocolVersion"], LEGACY, "initialize: {reply}");
        assert_eq!(result["serverInfo"]["name"], "mrtd", "{reply}");
        let notification = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        match &mut self.wire {
            Wire::Http { addr, .. } => {
                let headers = [("MCP-Protocol-Version", LEGACY.to_owned())];
                let answer = transport::post(*addr, &headers, &notification);
                assert_eq!(answer.status, 202, "notifications/initialized is accepted");
                assert!(answer.header("mcp-session-id").is_none(), "the server is sessionless");
            }
            Wire::Stdio(pipe) => pipe.send(&notification),
        }
    }

    fn load_output_schemas(&mut self) {
        let listed = self.result("tools/list", json!({}));
        let tools = listed["tools"].as_array().expect("tools/list returns tools");
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
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
            ],
            "tools/list returns the seven tools in their fixed order"
        );
        for tool in tools {
            let name = tool["name"].as_str().unwrap_or_default().to_owned();
            let schema = tool
                .get("outputSchema")
                .unwrap_or_else(|| panic!("tool {name} publishes an outputSchema"));
            let validator = jsonschema::validator_for(schema)
                .unwrap_or_else(|e| panic!("the outputSchema of {name} compiles: {e}"));
            self.output_schemas.insert(name, validator);
        }
    }

    fn take_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Sends one request and returns the whole JSON-RPC reply (result or error).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let mut params = params;
        if self.revision == Revision::Modern {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": self.capabilities,
            });
        }
        // `Mcp-Name` carries the tool or prompt name, or the URI of a resource.
        let name = ["name", "uri"]
            .iter()
            .find_map(|key| params.get(*key).and_then(Value::as_str))
            .map(str::to_owned);
        let id = self.take_id();
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let reply = self.exchange(&message, method, name.as_deref(), true);
        assert_eq!(reply["id"], id, "the reply answers the request: {reply}");
        reply
    }

    fn exchange(
        &mut self,
        message: &Value,
        method: &str,
        name: Option<&str>,
        versioned: bool,
    ) -> Value {
        let id = message["id"].clone();
        match &mut self.wire {
            Wire::Http { addr, extra_headers } => {
                let mut headers = extra_headers.clone();
                if versioned {
                    let version = match self.revision {
                        Revision::Modern => MODERN,
                        Revision::Legacy => LEGACY,
                    };
                    headers.push(("MCP-Protocol-Version", version.to_owned()));
                }
                if self.revision == Revision::Modern {
                    headers.push(("Mcp-Method", method.to_owned()));
                    if let Some(name) = name {
                        headers.push(("Mcp-Name", name.to_owned()));
                    }
                }
                let answer = transport::post(*addr, &headers, message);
                answer
                    .messages
                    .into_iter()
                    .find(|m| m["id"] == id)
                    .unwrap_or_else(|| panic!("HTTP {}: no reply to {message}", answer.status))
            }
            Wire::Stdio(pipe) => {
                pipe.send(message);
                loop {
                    let line = pipe.receive();
                    if line["id"] == id {
                        break line;
                    }
                    // Notifications (logging, list changes) may come in between.
                    assert!(line.get("method").is_some(), "unexpected reply {line} to {message}");
                }
            }
        }
    }

    /// A request that must succeed; returns its result.
    pub fn result(&mut self, method: &str, params: Value) -> Value {
        let reply = self.request(method, params);
        assert!(reply.get("error").is_none(), "{method} failed: {reply}");
        let result = reply["result"].clone();
        self.check_result_type(&result, method);
        result
    }

    /// `resultType` exists only from 2026-07-28 on.
    fn check_result_type(&self, result: &Value, method: &str) {
        match self.revision {
            Revision::Modern => assert!(
                result["resultType"].is_string(),
                "a 2026-07-28 result of {method} names its resultType: {result}"
            ),
            Revision::Legacy => assert!(
                result.get("resultType").is_none(),
                "a 2025-11-25 result of {method} has no resultType: {result}"
            ),
        }
    }

    /// Calls a tool and returns its result, after checking its `structuredContent` against
    /// the tool's `outputSchema`.
    pub fn call(&mut self, tool: &str, arguments: Value) -> ToolResult {
        let reply = self.call_with(json!({ "name": tool, "arguments": arguments }));
        let result = reply
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("tools/call {tool} failed: {reply}"));
        ToolResult(result)
    }

    /// Sends `tools/call` with `params` as given (for multi round-trip retries) and returns
    /// the whole reply; a structured result in it is checked against the `outputSchema`, and
    /// its first text block against the structured result.
    pub fn call_with(&mut self, params: Value) -> Value {
        let tool = params["name"].as_str().expect("a tool name").to_owned();
        let reply = self.request("tools/call", params);
        if let Some(result) = reply.get("result") {
            self.check_result_type(result, "tools/call");
            if let Some(structured) = result.get("structuredContent") {
                self.validate(&tool, structured);
                // Clients that show a model only the text content show it everything: the
                // first text block is the structured content, serialised.
                let first = result["content"][0]["text"].as_str().unwrap_or_default();
                let parsed: Value = serde_json::from_str(first).unwrap_or_else(|e| {
                    panic!("{tool}: the first text block is not JSON ({e}): {first}")
                });
                assert_eq!(
                    &parsed, structured,
                    "{tool}: the text content differs from structuredContent"
                );
            }
        }
        reply
    }

    /// Panics unless `structured` validates against the `outputSchema` of `tool`.
    pub fn validate(&self, tool: &str, structured: &Value) {
        let validator = &self.output_schemas[tool];
        let errors: Vec<String> = validator
            .iter_errors(structured)
            .map(|e| format!("{} at {}", e, e.instance_path))
            .collect();
        assert!(
            errors.is_empty(),
            "structuredContent of {tool} breaks its outputSchema: {errors:?}\n{structured}"
        );
    }
}

/// The result of a `tools/call`.
#[derive(Debug, Clone)]
pub struct ToolResult(pub Value);

impl ToolResult {
    pub fn is_error(&self) -> bool {
        self.0["isError"] == true
    }

    /// The structured content of a successful call.
    pub fn ok(&self) -> &Value {
        assert!(!self.is_error(), "the call failed: {}", self.0);
        self.0
            .get("structuredContent")
            .unwrap_or_else(|| panic!("no structuredContent: {}", self.0))
    }

    /// The text of a failed call.
    pub fn error_text(&self) -> String {
        assert!(self.is_error(), "the call should have failed: {}", self.0);
        self.text()
    }

    /// All text content blocks, joined.
    pub fn text(&self) -> String {
        self.0["content"]
            .as_array()
            .map(|blocks| {
                blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n")
            })
            .unwrap_or_default()
    }

    pub fn content(&self) -> &[Value] {
        self.0["content"].as_array().map_or(&[], Vec::as_slice)
    }
}
