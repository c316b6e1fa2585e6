//! Shared pieces of the authentication tests: signing keys made at test time, a small MCP
//! handler whose scans belong to the caller, and requests in the 2026-07-28 wire format.
//!
//! The `auth_*`, `endpoint_bodies` and `observe` modules use it as `common`; it holds no tests.
#![allow(dead_code)]

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{SystemTime, UNIX_EPOCH},
};

use axum::{Router, body::Body};
use http::{Request, Response, StatusCode};
use http_body_util::BodyExt;
use jsonwebtoken::{
    Algorithm, EncodingKey, Header,
    jwk::{Jwk, JwkSet},
};
use mrtd_server::{
    HttpConfig, McpEndpoint,
    auth::{AccessRules, Caller, Principal, SCOPE_READ, SCOPE_WRITE, ToolRule},
};
use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ServerCapabilities,
        ServerConfig,
    },
    service::RequestContext,
};
use serde_json::{Value, json};
use tower::ServiceExt;

pub const RESOURCE: &str = "https://mrtd.test/mcp";
pub const ISSUER: &str = "https://issuer.test";
pub const MODERN: &str = "2026-07-28";

/// An ES256 key pair made from fresh random bytes, with its key id.
pub struct SigningKey {
    pub kid: String,
    pub encoding: EncodingKey,
    pub jwk: Jwk,
}

impl SigningKey {
    pub fn generate(kid: &str) -> SigningKey {
        use p256::pkcs8::EncodePrivateKey;
        let secret = loop {
            let bytes: [u8; 32] = rand::random();
            if let Ok(secret) = p256::SecretKey::from_slice(&bytes) {
                break secret;
            }
        };
        let der = secret.to_pkcs8_der().expect("PKCS#8 encoding");
        let encoding = EncodingKey::from_ec_der(der.as_bytes());
        let mut jwk = Jwk::from_encoding_key(&encoding, Algorithm::ES256).expect("public JWK");
        jwk.common.key_id = Some(kid.to_owned());
        SigningKey { kid: kid.to_owned(), encoding, jwk }
    }

    /// The public key's `x` coordinate as it appears in the JWK.
    pub fn jwk_x(&self) -> String {
        match &self.jwk.algorithm {
            jsonwebtoken::jwk::AlgorithmParameters::EllipticCurve(ec) => ec.x.clone(),
            _ => unreachable!("test keys are elliptic-curve keys"),
        }
    }

    /// Signs `claims` with ES256 and this key's id.
    /// An access token (`typ: at+jwt`) with these claims.
    pub fn sign(&self, claims: &Value) -> String {
        self.sign_typed(claims, Some("at+jwt"))
    }

    /// A JWT with these claims and this `typ` in its header.
    pub fn sign_typed(&self, claims: &Value, typ: Option<&str>) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(self.kid.clone());
        header.typ = typ.map(str::to_owned);
        jsonwebtoken::encode(&header, claims, &self.encoding).expect("signing")
    }
}

/// The JWKS document publishing `keys`.
pub fn jwks(keys: &[&SigningKey]) -> String {
    serde_json::to_string(&JwkSet { keys: keys.iter().map(|k| k.jwk.clone()).collect() })
        .expect("JWKS serialises")
}

pub fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// Claims that the server accepts, for `sub` with `scope`.
pub fn claims(sub: &str, scope: &str) -> Value {
    json!({
        "iss": ISSUER,
        "aud": RESOURCE,
        "sub": sub,
        "scope": scope,
        "iat": now(),
        "exp": now() + 300,
    })
}

/// A handler with two tools over scans kept per principal, like the real one.
#[derive(Clone, Default)]
pub struct Handler {
    scans: Arc<Mutex<HashMap<String, String>>>,
}

fn principal_of(context: &RequestContext<RoleServer>) -> String {
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Principal>())
        .map_or_else(|| Principal::local().0, |p| p.0.clone())
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let owner = principal_of(&context);
        let text = |t: String| CallToolResult::success(vec![ContentBlock::text(t)]).into();
        match request.name.as_ref() {
            "scan_document" => {
                let id = format!("scn_{}", rand::random::<u64>());
                self.scans.lock().unwrap().insert(id.clone(), owner);
                Ok(text(id))
            }
            "get_scan" => {
                let id = request
                    .arguments
                    .as_ref()
                    .and_then(|a| a.get("scan_id"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let found = self.scans.lock().unwrap().get(id) == Some(&owner);
                Ok(if found {
                    text(format!("scan {id} of {owner}"))
                } else {
                    CallToolResult::error(vec![ContentBlock::text("No scan with this scan_id")])
                        .into()
                })
            }
            "whoami" => Ok(text(owner)),
            // Whose turn the guard says this request's recognitions wait in.
            "turn" => Ok(text(
                context
                    .extensions
                    .get::<http::request::Parts>()
                    .and_then(|parts| parts.extensions.get::<Caller>())
                    .map_or_else(|| "none".to_owned(), |c| c.0.clone()),
            )),
            other => Err(ErrorData::invalid_params(format!("unknown tool {other}"), None)),
        }
    }
}

/// The MCP endpoint with `handler` behind `protect`.
/// What the test handler's tools and resources need, as a composition declares it:
/// `scan_document` writes and runs a recognition, `get_scan` and the scan resources read.
pub fn access_rules() -> AccessRules {
    let tool = |name: &str, scope, recognition| ToolRule {
        name: name.to_owned(),
        scope: Some(scope),
        scope_with_argument: None,
        recognition,
    };
    AccessRules {
        tools: vec![tool("scan_document", SCOPE_WRITE, true), tool("get_scan", SCOPE_READ, false)],
        resources: vec![("mrtd://scans".to_owned(), SCOPE_READ)],
        rest: Vec::new(),
        fetched_argument: None,
    }
}

pub fn app(handler: Handler, http: &HttpConfig, protect: impl FnOnce(Router) -> Router) -> Router {
    let endpoint = McpEndpoint::new(move || Ok(handler.clone()), http);
    protect(mrtd_server::http::router(endpoint, http, Router::new()))
}

/// A 2026-07-28 request to `/mcp`, with the headers and `_meta` the revision requires.
pub fn mcp_request(method: &str, mut params: Value, token: Option<&str>) -> Request<Body> {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut builder = Request::post("/mcp")
        .header("host", "127.0.0.1:8080")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", method);
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        builder = builder.header("mcp-name", name);
    }
    if let Some(uri) = params.get("uri").and_then(Value::as_str) {
        builder = builder.header("mcp-name", uri);
    }
    if let Some(token) = token {
        builder = builder.header("authorization", format!("Bearer {token}"));
    }
    let body = json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params });
    builder.body(Body::from(body.to_string())).unwrap()
}

pub fn tool_call(name: &str, arguments: Value, token: Option<&str>) -> Request<Body> {
    mcp_request("tools/call", json!({ "name": name, "arguments": arguments }), token)
}

/// A response with its body read and, when JSON, parsed.
pub struct Reply {
    pub status: StatusCode,
    pub headers: http::HeaderMap,
    pub body: Value,
}

impl Reply {
    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
    }

    /// The text of the first content block of a tool result.
    pub fn tool_text(&self) -> &str {
        self.body["result"]["content"][0]["text"].as_str().unwrap_or("")
    }

    pub fn tool_failed(&self) -> bool {
        self.body["result"]["isError"] == json!(true)
    }
}

pub async fn send(app: &Router, request: Request<Body>) -> Reply {
    let response: Response<Body> = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let body = serde_json::from_slice(&bytes).unwrap_or_else(|_| {
        // An SSE body: take the last data line.
        let text = String::from_utf8_lossy(&bytes);
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .next_back()
            .unwrap_or(Value::Null)
    });
    Reply { status, headers, body }
}
