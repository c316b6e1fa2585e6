//! The MCP endpoint: our checks in front of rmcp's Streamable HTTP service.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use axum::{
    body::Body,
    response::{IntoResponse, Response},
};
use bytes::Bytes;
use futures::future::BoxFuture;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode, header};
use http_body_util::{BodyExt, Full, Limited};
use rmcp::{
    ServerHandler,
    transport::{
        StreamableHttpServerConfig, StreamableHttpService,
        streamable_http_server::session::local::LocalSessionManager,
    },
};
use serde_json::Value;

use crate::{
    HttpConfig,
    guard::HostOriginPolicy,
    jsonrpc::{self, INVALID_REQUEST, PARSE_ERROR},
};

/// The rmcp service with its handler, body and response types erased: one shared service,
/// called by reference (no clone of a boxed service per request).
type ProtocolService =
    Arc<dyn Fn(Request<Full<Bytes>>) -> BoxFuture<'static, Response> + Send + Sync>;

const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// Legacy sessions whose owners are remembered before old ones are forgotten.
const MAX_TRACKED_SESSIONS: usize = 10_000;
/// How long a legacy session's owner is remembered once that many are tracked.
const SESSION_MEMORY: Duration = Duration::from_secs(24 * 3600);
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const MODERN_VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";
/// Headers a browser page may send to the endpoint once its Origin has passed.
const CORS_ALLOW_HEADERS: &str = "content-type, accept, authorization, mcp-protocol-version, \
     mcp-method, mcp-name, mcp-session-id, last-event-id";

/// One MCP endpoint: `POST` (and, with legacy sessions, `GET`/`DELETE`) on one path.
///
/// Cheap to clone; every clone shares the same protocol service.
#[derive(Clone)]
pub struct McpEndpoint {
    protocol: ProtocolService,
    policy: Arc<HostOriginPolicy>,
    max_body_bytes: usize,
    legacy_sessions: bool,
    /// Legacy sessions by id, with the principal that opened each: only that principal
    /// may use, stream from or close it.
    session_owners: Arc<Mutex<HashMap<String, (String, Instant)>>>,
}

impl McpEndpoint {
    /// Wraps handlers made by `factory` (one per session, or per request when stateless).
    pub fn new<H, F>(factory: F, config: &HttpConfig) -> Self
    where
        H: ServerHandler + Send + 'static,
        F: Fn() -> std::io::Result<H> + Send + Sync + 'static,
    {
        // Host and Origin are checked here, before rmcp, so rmcp's own copy of the
        // check is switched off rather than configured twice. The body limit is
        // enforced here too; rmcp's limit only has to be no smaller.
        let protocol_config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(config.legacy_sessions)
            .with_json_response(true)
            .with_sse_keep_alive(Some(Duration::from_secs(15)))
            .with_max_request_body_bytes(config.max_body_bytes.saturating_add(1))
            .disable_allowed_hosts()
            .disable_allowed_origins();
        // Shared, and called through `handle(&self)`: cloning the service (as its `Service`
        // impl does on every call) copies its configuration and registers a cancellation
        // token under a lock, which showed in profiles of the hot path.
        let service = Arc::new(StreamableHttpService::new(
            factory,
            Arc::new(LocalSessionManager::default()),
            protocol_config,
        ));
        let protocol: ProtocolService = Arc::new(move |request: Request<Full<Bytes>>| {
            let service = Arc::clone(&service);
            Box::pin(async move { service.handle(request).await.map(Body::new) })
        });
        McpEndpoint {
            protocol,
            policy: Arc::new(HostOriginPolicy::new(config)),
            max_body_bytes: config.max_body_bytes,
            legacy_sessions: config.legacy_sessions,
            session_owners: Arc::default(),
        }
    }

    /// Answers one HTTP request to the endpoint.
    pub async fn handle(&self, request: Request<Body>) -> Response {
        // Behind the guard, Host and Origin were checked already; alone, they are here.
        let vetted = request.extensions().get::<crate::body::Vetted>().is_some();
        if !vetted && let Err(rejection) = self.policy.check(request.uri(), request.headers()) {
            tracing::warn!(%rejection, "refused request to the MCP endpoint");
            return jsonrpc::error_response(
                rejection.status(),
                Value::Null,
                INVALID_REQUEST,
                &rejection.to_string(),
            );
        }
        let cors_origin = request.headers().get(header::ORIGIN).cloned();
        // Only legacy sessions have an owner to remember; stateless traffic skips all this.
        let owner = if self.legacy_sessions {
            request
                .extensions()
                .get::<crate::auth::Principal>()
                .map_or_else(|| "local".to_owned(), |p| p.0.clone())
        } else {
            String::new()
        };
        let session = self.legacy_session(&request, &owner);
        let closing = match (&session, request.method()) {
            (Ok(Some(id)), &Method::DELETE) => Some(id.clone()),
            _ => None,
        };
        let mut response = match (request.method().clone(), session) {
            (_, Err(refused)) => refused,
            (Method::POST, Ok(_)) => self.handle_post(request).await,
            (Method::OPTIONS, Ok(_)) => self.preflight(),
            (Method::GET | Method::DELETE, Ok(Some(_))) => {
                self.forward(request.map(|_| Full::new(Bytes::new()))).await
            }
            _ => self.method_not_allowed(),
        };
        if self.legacy_sessions {
            let closed = closing.filter(|_| response.status().is_success());
            self.track_session(&response, &owner, closed.clone());
            if closed.is_some() && response.status() == StatusCode::ACCEPTED {
                // The protocol layer answers a closed session 202; the SDKs expect 200 or 204
                // (the Python SDK warns "Session termination failed: 202" on every disconnect).
                *response.status_mut() = StatusCode::NO_CONTENT;
                *response.body_mut() = Body::empty();
            }
        }
        // Results hold personal data: no cache may keep any of them.
        response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        if let Some(origin) = cors_origin {
            // The Origin already passed the policy, so it may read the response.
            let headers = response.headers_mut();
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
            headers.insert(header::VARY, HeaderValue::from_static("Origin"));
            headers.insert(
                header::ACCESS_CONTROL_EXPOSE_HEADERS,
                HeaderValue::from_static("mcp-session-id"),
            );
        }
        response
    }

    /// The legacy session a request names (`None` without one, or without legacy sessions),
    /// or the refusal when the session belongs to another principal.
    #[allow(clippy::result_large_err)]
    fn legacy_session(
        &self,
        request: &Request<Body>,
        owner: &str,
    ) -> Result<Option<String>, Response> {
        if !self.legacy_sessions {
            return Ok(None);
        }
        let Some(id) = request.headers().get(SESSION_ID).and_then(|v| v.to_str().ok()) else {
            return Ok(None);
        };
        let owners = self.session_owners.lock().unwrap_or_else(|e| e.into_inner());
        match owners.get(id) {
            Some((known, _)) if known == owner => Ok(Some(id.to_owned())),
            found => {
                // Another principal's session, or one this endpoint never opened (or has
                // forgotten): either way not a session of this caller.
                if found.is_some() {
                    tracing::warn!("refused a legacy session opened by another principal");
                }
                Err(jsonrpc::error_response(
                    StatusCode::NOT_FOUND,
                    Value::Null,
                    INVALID_REQUEST,
                    "Not Found: Session not found",
                ))
            }
        }
    }

    /// Remembers who opened a session; forgets one that was closed.
    fn track_session(&self, response: &Response, owner: &str, closed: Option<String>) {
        let mut owners = self.session_owners.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(id) = closed {
            owners.remove(&id);
            return;
        }
        if let Some(id) = response.headers().get(SESSION_ID).and_then(|v| v.to_str().ok()) {
            if owners.len() >= MAX_TRACKED_SESSIONS {
                // Sessions that were never closed: the oldest are forgotten first (their
                // clients get 404 and open a new session, as after a restart).
                owners.retain(|_, (_, opened)| opened.elapsed() < SESSION_MEMORY);
                if owners.len() >= MAX_TRACKED_SESSIONS {
                    let mut opened: Vec<Instant> = owners.values().map(|(_, at)| *at).collect();
                    opened.sort_unstable();
                    let median = opened[opened.len() / 2];
                    owners.retain(|_, (_, at)| *at >= median);
                }
            }
            owners.entry(id.to_owned()).or_insert_with(|| (owner.to_owned(), Instant::now()));
        }
    }

    fn allowed_methods(&self) -> &'static str {
        if self.legacy_sessions { "POST, GET, DELETE, OPTIONS" } else { "POST, OPTIONS" }
    }

    fn method_not_allowed(&self) -> Response {
        let mut response = jsonrpc::error_response(
            StatusCode::METHOD_NOT_ALLOWED,
            Value::Null,
            INVALID_REQUEST,
            "Method Not Allowed: this endpoint takes JSON-RPC messages by POST",
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static(self.allowed_methods()));
        response
    }

    fn preflight(&self) -> Response {
        let mut response = StatusCode::NO_CONTENT.into_response();
        let headers = response.headers_mut();
        headers.insert(header::ALLOW, HeaderValue::from_static(self.allowed_methods()));
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static(self.allowed_methods()),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static(CORS_ALLOW_HEADERS),
        );
        headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
        response
    }

    async fn handle_post(&self, request: Request<Body>) -> Response {
        let (mut parts, body) = request.into_parts();
        let vetted_json =
            parts.extensions.get::<crate::body::Vetted>().and_then(|v| v.well_formed_json);
        if !self.legacy_sessions {
            // Sessionless service: a session id or a resumption cursor means nothing here.
            parts.headers.remove(SESSION_ID);
        }
        parts.headers.remove(LAST_EVENT_ID);
        normalise_accept(&mut parts.headers);

        if crate::body::declared_length(&parts.headers)
            .is_some_and(|n| n > self.max_body_bytes as u64)
        {
            return self.too_large();
        }
        let bytes = match Limited::new(body, self.max_body_bytes).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(error) if error.is::<http_body_util::LengthLimitError>() => {
                return self.too_large();
            }
            Err(_) => {
                return jsonrpc::error_response(
                    StatusCode::BAD_REQUEST,
                    Value::Null,
                    INVALID_REQUEST,
                    "Bad request: the request body could not be read",
                );
            }
        };
        if !is_json_content_type(&parts.headers) {
            return jsonrpc::error_response(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                Value::Null,
                INVALID_REQUEST,
                "Unsupported Media Type: Content-Type must be application/json",
            );
        }
        match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') => {
                // rmcp parses the message itself and answers anything it cannot read with a
                // plain-text error, so whether the body is JSON at all is asked only then
                // (`normalise_error`), not of every message. A parser may skip members it
                // does not know without reading their strings, so the UTF-8 of the whole body
                // (one fast pass) is checked here, unless the guard in front parsed it all.
                let well_formed = match vetted_json {
                    Some(known) => known,
                    None => {
                        crate::blocking::for_large(bytes.clone(), |b| {
                            std::str::from_utf8(b).is_ok()
                        })
                        .await
                            == Some(true)
                    }
                };
                if !well_formed {
                    return parse_error();
                }
                let request = Request::from_parts(parts, Full::new(bytes.clone()));
                let response = self.forward(request).await;
                if !(response.status().is_client_error() || response.status().is_server_error()) {
                    return response;
                }
                // Errors are rare: their work is boxed, so that it does not make every
                // request's future larger.
                let response = if response.status() == StatusCode::NOT_FOUND {
                    match Box::pin(not_found_as_invalid_params(response, &bytes)).await {
                        Ok(refused) => return refused,
                        Err(response) => response,
                    }
                } else {
                    response
                };
                Box::pin(self.normalise_error(response, &bytes)).await
            }
            Some(b'[') => match serde_json::from_slice::<Value>(&bytes) {
                Ok(Value::Array(batch)) => Box::pin(self.handle_batch(parts, batch)).await,
                _ => parse_error(),
            },
            _ => match serde_json::from_slice::<Value>(&bytes) {
                Ok(_) => jsonrpc::error_response(
                    StatusCode::BAD_REQUEST,
                    Value::Null,
                    INVALID_REQUEST,
                    "Invalid Request: the body must be a JSON-RPC message object",
                ),
                Err(_) => parse_error(),
            },
        }
    }

    /// Batches exist only in revision 2025-03-26; later revisions refuse them (JSON-06).
    async fn handle_batch(&self, parts: http::request::Parts, batch: Vec<Value>) -> Response {
        let header_version = parts
            .headers
            .get(PROTOCOL_VERSION)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .unwrap_or("2025-03-26");
        let modern = batch.iter().any(|message| {
            message.pointer("/params/_meta").and_then(|m| m.get(MODERN_VERSION_META)).is_some()
        });
        let has_initialize =
            batch.iter().any(|message| message.get("method") == Some(&Value::from("initialize")));
        if header_version != "2025-03-26" || modern || batch.is_empty() || has_initialize {
            let reason = if batch.is_empty() {
                "Invalid Request: empty batch"
            } else if has_initialize {
                "Invalid Request: initialize may not be part of a batch"
            } else {
                "Invalid Request: JSON-RPC batches are only supported for protocol revision 2025-03-26"
            };
            return jsonrpc::error_response(
                StatusCode::BAD_REQUEST,
                Value::Null,
                INVALID_REQUEST,
                reason,
            );
        }
        let mut replies = Vec::new();
        for message in batch {
            let id = jsonrpc::message_id(&message);
            let is_request = message.get("id").is_some() && message.get("method").is_some();
            let body = Bytes::from(serde_json::to_vec(&message).unwrap_or_default());
            let mut request = Request::new(Full::new(body));
            *request.method_mut() = Method::POST;
            *request.uri_mut() = parts.uri.clone();
            *request.headers_mut() = parts.headers.clone();
            // The caller's identity (set by the auth layer) travels with every element.
            *request.extensions_mut() = parts.extensions.clone();
            let response = self.forward(request).await;
            if !is_request {
                continue;
            }
            let status = response.status();
            let bytes = match response.into_body().collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(_) => Bytes::new(),
            };
            let reply = reply_in_body(&bytes, &id).unwrap_or_else(|| {
                jsonrpc::error_body(
                    id,
                    INVALID_REQUEST,
                    &format!("request failed with HTTP status {}", status.as_u16()),
                )
            });
            replies.push(reply);
        }
        if replies.is_empty() {
            return StatusCode::ACCEPTED.into_response();
        }
        jsonrpc::json_response(StatusCode::OK, &Value::Array(replies))
    }

    async fn forward(&self, request: Request<Full<Bytes>>) -> Response {
        let large = hyper::body::Body::size_hint(request.body())
            .exact()
            .is_some_and(|n| n >= crate::blocking::LARGE_BODY_BYTES as u64);
        if large {
            // The protocol layer parses the whole message where it is polled: for a photo's
            // megabytes that is a blocking thread, not an async worker other requests wait on.
            let runtime = tokio::runtime::Handle::current();
            let protocol = Arc::clone(&self.protocol);
            match tokio::task::spawn_blocking(move || runtime.block_on(protocol(request))).await {
                Ok(response) => response,
                Err(_) => jsonrpc::error_response(
                    StatusCode::SERVICE_UNAVAILABLE,
                    Value::Null,
                    jsonrpc::INTERNAL_ERROR,
                    "Service Unavailable: the server is shutting down",
                ),
            }
        } else {
            (self.protocol)(request).await
        }
    }

    /// Turns the protocol layer's plain-text error `response` (4xx or 5xx) to `request` into
    /// a JSON-RPC error: a parse error where the body is not JSON at all.
    async fn normalise_error(&self, response: Response, request: &Bytes) -> Response {
        let status = response.status();
        let is_json =
            response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(
                |v| v.starts_with("application/json") || v.starts_with("text/event-stream"),
            );
        if is_json {
            return response;
        }
        let parsed = crate::blocking::for_large(request.clone(), jsonrpc::id_in_json).await;
        let id = match parsed {
            Some(Some(id)) => id,
            Some(None) => return parse_error(),
            None => Value::Null,
        };
        let (parts, body) = response.into_parts();
        let text = match body.collect().await {
            Ok(collected) => String::from_utf8_lossy(&collected.to_bytes()).trim().to_owned(),
            Err(_) => String::new(),
        };
        let message = if text.is_empty() {
            status.canonical_reason().unwrap_or("error").to_owned()
        } else {
            text
        };
        // The media type was checked before forwarding, so a 415 from the protocol layer
        // means the JSON is not a message it can read: an invalid request, not a media type.
        let (status, message) = if status == StatusCode::UNSUPPORTED_MEDIA_TYPE {
            (StatusCode::BAD_REQUEST, format!("Invalid Request: {message}"))
        } else {
            (status, message)
        };
        let code = if status.is_server_error() { jsonrpc::INTERNAL_ERROR } else { INVALID_REQUEST };
        let mut normalised = jsonrpc::error_response(status, id, code, &message);
        for (name, value) in parts.headers.iter() {
            if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
                normalised.headers_mut().insert(name.clone(), value.clone());
            }
        }
        normalised
    }

    fn too_large(&self) -> Response {
        jsonrpc::error_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            Value::Null,
            INVALID_REQUEST,
            &crate::body::too_large_message(self.max_body_bytes),
        )
    }
}

/// The protocol layer answers a known method whose params it cannot read as an
/// unknown method (404 with -32601). For the methods this server serves, that is
/// invalid params (-32602), answered like any other invalid-params error. Any other
/// 404 (an unknown session in legacy mode, a method nobody serves) comes back
/// unchanged. Only a 404 is looked at, so the hot path parses nothing twice.
async fn not_found_as_invalid_params(
    response: Response,
    request: &[u8],
) -> Result<Response, Response> {
    let (parts, body) = response.into_parts();
    let Ok(collected) = body.collect().await else {
        return Err(Response::from_parts(parts, Body::empty()));
    };
    let answer = collected.to_bytes();
    let method_not_found = serde_json::from_slice::<Value>(&answer)
        .ok()
        .and_then(|v| v.pointer("/error/code").and_then(Value::as_i64))
        == Some(jsonrpc::METHOD_NOT_FOUND);
    let message = serde_json::from_slice::<Value>(request).ok();
    let hint = match message
        .as_ref()
        .and_then(|m| m.get("method"))
        .and_then(Value::as_str)
        .and_then(jsonrpc::params_hint)
    {
        Some(hint) => hint,
        None => return Err(Response::from_parts(parts, Body::from(answer))),
    };
    if !method_not_found {
        return Err(Response::from_parts(parts, Body::from(answer)));
    }
    Ok(jsonrpc::error_response(
        StatusCode::OK,
        message.as_ref().map(jsonrpc::message_id).unwrap_or(Value::Null),
        jsonrpc::INVALID_PARAMS,
        &format!("Invalid params: {hint}"),
    ))
}

fn parse_error() -> Response {
    jsonrpc::error_response(
        StatusCode::BAD_REQUEST,
        Value::Null,
        PARSE_ERROR,
        "Parse error: the body is not valid JSON",
    )
}

fn is_json_content_type(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| essence(value.as_bytes()).eq_ignore_ascii_case(b"application/json"))
}

/// A media type's essence: what comes before its parameters, without surrounding blanks.
/// On the header's bytes, as every request passes here: a value that is not text matches no
/// media type either way.
fn essence(media_type: &[u8]) -> &[u8] {
    media_type.split(|&b| b == b';').next().unwrap_or_default().trim_ascii()
}

/// Clients must accept both JSON and SSE; a missing or wildcard `Accept` is read as both.
fn normalise_accept(headers: &mut HeaderMap) {
    let lenient = match headers.get(header::ACCEPT) {
        None => true,
        Some(value) => value.as_bytes().split(|&b| b == b',').all(|item| {
            let essence = essence(item);
            essence == b"*/*" || essence.is_empty()
        }),
    };
    if lenient {
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
    }
}

/// Finds the JSON-RPC reply with `id` in a JSON or SSE response body.
fn reply_in_body(bytes: &[u8], id: &Value) -> Option<Value> {
    if let Ok(value) = serde_json::from_slice::<Value>(bytes) {
        return Some(value);
    }
    let text = std::str::from_utf8(bytes).ok()?;
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|message| message.get("id") == Some(id))
}
