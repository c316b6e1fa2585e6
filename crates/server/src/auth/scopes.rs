//! Which scopes a request needs, read from the JSON-RPC message before it is dispatched.
//!
//! Only `method`, `params.name`, `params.uri` and whether `params.arguments.scan_id` is
//! present are read; everything else is skipped without being built. A body that cannot be
//! read this way but is still JSON needs every scope, so that a message the protocol layer
//! would accept can never get through with less than it should.

use std::collections::BTreeSet;

use http::Method;
use serde::{Deserialize, de::IgnoredAny};

use super::{SCOPE_READ, SCOPE_WRITE};

/// What a request needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Requirement {
    /// Scopes that must all be granted.
    pub scopes: BTreeSet<&'static str>,
    /// Whether the request runs a recognition (and so needs a global slot).
    pub recognition: bool,
    /// Whether the body is a JSON-RPC batch.
    pub batch: bool,
    /// The id of a single request, for error replies.
    pub id: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Message {
    id: Option<serde_json::Value>,
    method: Option<String>,
    params: Option<Params>,
}

#[derive(Deserialize)]
struct Params {
    name: Option<String>,
    uri: Option<String>,
    arguments: Option<Arguments>,
}

#[derive(Deserialize)]
struct Arguments {
    scan_id: Option<IgnoredAny>,
}

/// The requirement of an MCP request body. `None` when the body is not JSON at all, which
/// the endpoint answers with a parse error without dispatching anything.
pub(super) fn for_mcp_body(bytes: &[u8]) -> Option<Requirement> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    let parsed: Result<Vec<Message>, _> = match first {
        Some(b'[') => serde_json::from_slice::<Vec<Message>>(bytes),
        _ => serde_json::from_slice::<Message>(bytes).map(|m| vec![m]),
    };
    let mut requirement = Requirement { batch: first == Some(&b'['), ..Requirement::default() };
    match parsed {
        Ok(messages) => {
            if let [single] = messages.as_slice() {
                requirement.id = single.id.clone();
            }
            for message in &messages {
                add_message(&mut requirement, message);
            }
        }
        Err(_) => {
            serde_json::from_slice::<IgnoredAny>(bytes).ok()?;
            requirement.scopes.extend([SCOPE_READ, SCOPE_WRITE]);
            requirement.recognition = true;
        }
    }
    Some(requirement)
}

fn add_message(requirement: &mut Requirement, message: &Message) {
    let params = message.params.as_ref();
    match message.method.as_deref() {
        Some("tools/call") => match params.and_then(|p| p.name.as_deref()) {
            Some("scan_document") => {
                requirement.scopes.insert(SCOPE_WRITE);
                requirement.recognition = true;
            }
            Some("delete_scan") => {
                requirement.scopes.insert(SCOPE_WRITE);
            }
            Some("get_scan" | "list_scans") => {
                requirement.scopes.insert(SCOPE_READ);
            }
            Some("check_document") => {
                let by_scan =
                    params.and_then(|p| p.arguments.as_ref()).is_some_and(|a| a.scan_id.is_some());
                if by_scan {
                    requirement.scopes.insert(SCOPE_READ);
                }
            }
            _ => {}
        },
        Some("resources/read" | "resources/subscribe") => {
            let uri = params.and_then(|p| p.uri.as_deref()).unwrap_or("");
            // Scheme and host of a URI are case-insensitive; compare without case.
            if uri.len() >= SCANS.len() && uri[..SCANS.len()].eq_ignore_ascii_case(SCANS) {
                requirement.scopes.insert(SCOPE_READ);
            }
        }
        _ => {}
    }
}

const SCANS: &str = "mrtd://scans";

/// The requirement of a REST request: reads need `scans:read`, changes `scans:write`.
/// Reading a photo (`POST /v1/scans`) also needs a recognition slot, like the MCP
/// `scan_document` tool, so both share one bound on concurrent recognitions. Parsing
/// typed text (`POST /v1/parse`) touches no scan and, like the `parse_mrz` tool, needs
/// only a valid caller.
pub(super) fn for_rest(method: &Method, path: &str) -> Requirement {
    let path = path.trim_end_matches('/');
    if *method == Method::POST && path == PARSE_PATH {
        return Requirement::default();
    }
    let scope =
        if matches!(*method, Method::GET | Method::HEAD) { SCOPE_READ } else { SCOPE_WRITE };
    let recognition = *method == Method::POST && path == SCANS_PATH;
    Requirement { scopes: BTreeSet::from([scope]), recognition, ..Requirement::default() }
}

/// The REST collection whose `POST` reads a photo.
const SCANS_PATH: &str = "/v1/scans";
/// The REST operation that parses typed MRZ text.
const PARSE_PATH: &str = "/v1/parse";

/// The needed scopes that `granted` lacks; `scans:write` implies `scans:read`.
pub(super) fn missing(
    granted: &BTreeSet<String>,
    needed: &BTreeSet<&'static str>,
) -> Vec<&'static str> {
    needed
        .iter()
        .copied()
        .filter(|scope| {
            !(granted.contains(*scope) || (*scope == SCOPE_READ && granted.contains(SCOPE_WRITE)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scopes(body: &str) -> Vec<&'static str> {
        for_mcp_body(body.as_bytes()).unwrap().scopes.into_iter().collect()
    }

    #[test]
    fn tools_map_to_scopes() {
        let call = |name: &str, args: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{name}","arguments":{args}}}}}"#
            )
        };
        assert_eq!(scopes(&call("scan_document", r#"{"image_base64":"AAAA"}"#)), [SCOPE_WRITE]);
        assert_eq!(scopes(&call("delete_scan", r#"{"scan_id":"x"}"#)), [SCOPE_WRITE]);
        assert_eq!(scopes(&call("get_scan", r#"{"scan_id":"x"}"#)), [SCOPE_READ]);
        assert_eq!(scopes(&call("list_scans", "{}")), [SCOPE_READ]);
        assert_eq!(scopes(&call("check_document", r#"{"scan_id":"x"}"#)), [SCOPE_READ]);
        assert!(scopes(&call("check_document", r#"{"lines":["a"]}"#)).is_empty());
        assert!(scopes(&call("parse_mrz", r#"{"lines":["a"]}"#)).is_empty());
        assert!(scopes(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).is_empty());
        assert!(for_mcp_body(call("scan_document", "{}").as_bytes()).unwrap().recognition);
    }

    #[test]
    fn scan_resources_need_read() {
        let read = |uri: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"uri":"{uri}"}}}}"#
            )
        };
        assert_eq!(scopes(&read("mrtd://scans/scn_1")), [SCOPE_READ]);
        assert_eq!(scopes(&read("MRTD://Scans/scn_1")), [SCOPE_READ]);
        assert!(scopes(&read("mrtd://docs/photo-guide")).is_empty());
    }

    #[test]
    fn batches_need_the_union_and_odd_json_needs_everything() {
        let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_scan"}},
                        {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_scan"}}]"#;
        let requirement = for_mcp_body(batch.as_bytes()).unwrap();
        assert!(requirement.batch);
        assert_eq!(requirement.scopes.into_iter().collect::<Vec<_>>(), [SCOPE_READ, SCOPE_WRITE]);
        // Duplicate keys do not parse into the struct: fail closed.
        let odd =
            r#"{"method":"tools/list","method":"tools/call","params":{"name":"delete_scan"}}"#;
        assert_eq!(scopes(odd), [SCOPE_READ, SCOPE_WRITE]);
        assert!(for_mcp_body(b"not json").is_none());
    }

    #[test]
    fn rest_scans_need_a_recognition_slot() {
        let post = for_rest(&Method::POST, "/v1/scans");
        assert!(post.recognition);
        assert_eq!(post.scopes.into_iter().collect::<Vec<_>>(), [SCOPE_WRITE]);
        assert!(for_rest(&Method::POST, "/v1/scans/").recognition);
        let parse = for_rest(&Method::POST, "/v1/parse");
        assert!(!parse.recognition && parse.scopes.is_empty(), "parsing needs no scope");
        assert!(!for_rest(&Method::GET, "/v1/scans").recognition);
        assert!(!for_rest(&Method::DELETE, "/v1/scans/scn_1").recognition);
        let get = for_rest(&Method::GET, "/v1/scans/scn_1");
        assert_eq!(get.scopes.into_iter().collect::<Vec<_>>(), [SCOPE_READ]);
    }

    #[test]
    fn write_implies_read() {
        let granted: BTreeSet<String> = [SCOPE_WRITE.to_owned()].into();
        assert!(missing(&granted, &BTreeSet::from([SCOPE_READ])).is_empty());
        let granted: BTreeSet<String> = [SCOPE_READ.to_owned()].into();
        assert_eq!(missing(&granted, &BTreeSet::from([SCOPE_READ, SCOPE_WRITE])), [SCOPE_WRITE]);
    }
}
