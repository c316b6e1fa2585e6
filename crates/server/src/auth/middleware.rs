//! The middleware itself: one function run before every protected route.

use std::{
    collections::BTreeSet,
    convert::Infallible,
    future::Future,
    pin::Pin,
    task::{Context, Poll},
    time::Duration,
};

use axum::{
    body::Body,
    response::{IntoResponse, Response},
};
use http::{HeaderMap, HeaderValue, Method, Request, StatusCode, header};
use serde_json::{Value, json};
use tower::Service;

use super::{AuthGuard, AuthMode, Principal, api_key::hash_api_key, is_public_path, scopes};
use crate::{
    body::{BodyError, BudgetShare},
    jsonrpc::{self, INVALID_REQUEST},
    observe::{RpcMethod, RpcMethodSlot},
};

/// JSON-RPC code for a request refused by authentication or authorization (the
/// implementation-defined server-error range, `-32000` to `-32019`).
pub const UNAUTHORIZED: i64 = -32001;
/// JSON-RPC code for a request refused by a limit; retry after `data.retryAfter` seconds.
pub const OVERLOADED: i64 = -32000;

const API_KEY_HEADER: &str = "x-api-key";

/// A refusal, rendered as a JSON-RPC error on the MCP endpoint and as JSON elsewhere.
struct Denial {
    status: StatusCode,
    code: i64,
    message: String,
    challenge: Option<String>,
    retry_after: Option<Duration>,
}

impl Denial {
    fn new(status: StatusCode, code: i64, message: impl Into<String>) -> Self {
        Denial { status, code, message: message.into(), challenge: None, retry_after: None }
    }
}

/// The guard as a tower layer in front of every protected route: [`guard`] runs before each
/// request, and calls the route itself (no per-request clone and box of the inner service,
/// as `axum::middleware::from_fn` makes).
#[derive(Clone)]
pub(super) struct GuardLayer(pub(super) AuthGuard);

impl<S> tower::Layer<S> for GuardLayer {
    type Service = Guarded<S>;

    fn layer(&self, inner: S) -> Guarded<S> {
        Guarded { guard: self.0.clone(), inner }
    }
}

/// A protected route behind [`GuardLayer`].
#[derive(Clone)]
pub(super) struct Guarded<S> {
    guard: AuthGuard,
    inner: S,
}

impl<S> Service<Request<Body>> for Guarded<S>
where
    S: Service<Request<Body>, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        // The instance polled ready serves this request; a clone stays for the next.
        let fresh = self.inner.clone();
        let ready = std::mem::replace(&mut self.inner, fresh);
        let guard = self.guard.clone();
        Box::pin(async move { Ok(guard_request(guard, request, ready).await) })
    }
}

async fn guard_request<S>(guard: AuthGuard, request: Request<Body>, mut next: S) -> Response
where
    S: Service<Request<Body>, Response = Response, Error = Infallible>,
{
    let path = request.uri().path();
    let on_endpoint = path == guard.inner.endpoint_path;
    let public_path = is_public_path(path);
    // A preflight carries no credentials, so it is let through unauthenticated; it still
    // names its Origin, which must pass the policy unless the path is public.
    let public = request.method() == Method::OPTIONS || public_path;
    // Public paths are served to any site, so only their Host is checked (DNS rebinding);
    // everything else checks Origin too.
    let checked = if public_path {
        guard.inner.policy.check_host(request.uri(), request.headers())
    } else {
        guard.inner.policy.check(request.uri(), request.headers())
    };
    if let Err(rejection) = checked {
        tracing::warn!(%rejection, "refused request");
        let code = if on_endpoint { INVALID_REQUEST } else { UNAUTHORIZED };
        let denial = Denial::new(rejection.status(), code, rejection.to_string());
        return render(denial, on_endpoint, Value::Null, None);
    }
    if public {
        return next.call(request).await.unwrap_or_else(|never| match never {});
    }
    // The Origin passed the policy, so the page may read why a request was refused.
    let origin = request.headers().get(header::ORIGIN).cloned();
    match check(&guard, request, on_endpoint).await {
        Ok(Checked { request, tool, body_share }) => {
            let principal = request.extensions().get::<Principal>().cloned();
            let mut response = next.call(request).await.unwrap_or_else(|never| match never {});
            drop(body_share);
            // For the access log line, written outside the guard.
            if let Some(principal) = principal {
                response.extensions_mut().insert(principal);
            }
            if let Some(tool) = tool {
                response.extensions_mut().insert(tool);
            }
            response
        }
        Err((denial, id)) => render(denial, on_endpoint, id, origin),
    }
}

/// A request that passed the guard, with what it holds while it runs.
struct Checked {
    request: Request<Body>,
    /// The tool a `tools/call` names, for the access line.
    tool: Option<crate::observe::ToolLabel>,
    body_share: Option<BudgetShare>,
}

async fn check(
    guard: &AuthGuard,
    request: Request<Body>,
    on_endpoint: bool,
) -> Result<Checked, (Denial, Value)> {
    let inner = &guard.inner;
    // The client's address (its /64 for IPv6; behind a trusted proxy, the one it reports)
    // counts failed authentications, and is what callers without credentials are limited
    // under.
    let client = crate::http::client_address(&request).map(ClientKey::of);
    let now = std::time::Instant::now();
    // Credentials are checked whatever the address has failed before: behind a proxy every
    // client shares one address, and one client's bad keys must not lock the others out.
    // Only a request whose credentials are missing or invalid is counted and throttled.
    let (principal, granted) = match authenticate(guard, request.headers()).await {
        Ok(authenticated) => authenticated,
        Err(denial) => {
            if denial.status == StatusCode::UNAUTHORIZED
                && let (Some(failures), Some(client)) = (&inner.failures, &client)
                && let Err(wait) = failures.check(&client.to_string(), now)
            {
                tracing::warn!("refused a client after repeated failed authentication");
                let mut denial = Denial::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    UNAUTHORIZED,
                    "Too Many Requests: too many failed authentication attempts from this \
                     address; retry later",
                );
                denial.retry_after = Some(wait);
                return Err((denial, Value::Null));
            }
            return Err((denial, Value::Null));
        }
    };

    // An authenticated caller is limited, and queued for recognitions, as its principal
    // wherever it calls from; without authentication every caller is the same principal,
    // so each client address gets its own bucket and its own turn instead of one client's
    // burst refusing every other.
    let caller = match (&inner.mode, &client) {
        (AuthMode::None, Some(client)) => format!("address:{client}"),
        _ => principal.0.clone(),
    };
    if let Some(limiter) = &inner.limiter
        && let Err(wait) = limiter.check(&caller, now)
    {
        let mut denial = Denial::new(
            StatusCode::TOO_MANY_REQUESTS,
            OVERLOADED,
            "Too Many Requests: the rate limit for this caller is exceeded; retry later",
        );
        denial.retry_after = Some(wait);
        return Err((denial, Value::Null));
    }

    // The body is read whole, within its limits, before anything scarce is taken.
    let (mut request, mut body_share, mut requirement) =
        read_body(inner, request, on_endpoint).await.map_err(|denial| (denial, Value::Null))?;
    let id = requirement.id.clone().unwrap_or(Value::Null);

    if requirement.batch && !matches!(inner.mode, AuthMode::None) {
        // Each message of a batch is dispatched on its own; refuse rather than risk a
        // message running without the caller's identity.
        let denial = Denial::new(
            StatusCode::BAD_REQUEST,
            INVALID_REQUEST,
            "Invalid Request: JSON-RPC batches are not accepted when authentication is on",
        );
        return Err((denial, Value::Null));
    }

    if let Some(granted) = &granted {
        let missing = scopes::missing(granted, &requirement.scopes);
        if !missing.is_empty() {
            let needed: Vec<&str> = requirement.scopes.iter().copied().collect();
            let needed = needed.join(" ");
            let description = format!("this operation needs the scope {needed}");
            let mut denial = Denial::new(
                StatusCode::FORBIDDEN,
                UNAUTHORIZED,
                format!("Forbidden: {description}"),
            );
            denial.challenge = Some(challenge(
                guard,
                &[
                    ("error", "insufficient_scope"),
                    ("scope", &needed),
                    ("error_description", &description),
                ],
            ));
            tracing::info!(principal = %principal.0, scope = %needed, "refused for insufficient scope");
            return Err((denial, id));
        }
    }

    // A photo named by URL is fetched now, before the recognition slot: a slow server at
    // the URL holds its own connection and a share of the body budget, no recogniser.
    if let (Some(url), Some(prefetch)) = (requirement.fetch.take(), &inner.prefetch) {
        let limits = &inner.body_limits;
        let mut share = limits
            .budget
            .reserve(prefetch.0.max_bytes(), limits.budget_wait)
            .await
            .map_err(|error| (body_denial(error, limits.max_bytes), id.clone()))?;
        let held = prefetch.0.prefetch(&url, request.extensions_mut()).await;
        share.shrink_to(held);
        match &mut body_share {
            Some(body) => body.merge(share),
            None => body_share = Some(share),
        }
    }

    // A recognition waits here, holding only its body, for a slot of the service's gate.
    if requirement.recognition
        && let Some(admission) = &inner.admission
        && let Err(retry_after) = admission.0.admit(&caller, request.extensions_mut()).await
    {
        let mut denial = Denial::new(
            StatusCode::SERVICE_UNAVAILABLE,
            OVERLOADED,
            "Service Unavailable: the server is busy reading other documents; retry shortly",
        );
        denial.retry_after = Some(retry_after);
        return Err((denial, id));
    }
    // The caller names the turn any other read of this request waits in.
    request.extensions_mut().insert(super::Caller(caller));
    request.extensions_mut().insert(principal);
    let tool = requirement.tool.map(crate::observe::ToolLabel);
    Ok(Checked { request, tool, body_share })
}

/// The request with its body read whole, the share of the body budget it holds, and what
/// it needs. On the MCP endpoint, the body's JSON-RPC method is left for the metrics layer
/// in the request's [`RpcMethodSlot`], once the body is read.
async fn read_body(
    inner: &super::GuardInner,
    request: Request<Body>,
    on_endpoint: bool,
) -> Result<(Request<Body>, Option<BudgetShare>, scopes::Requirement), Denial> {
    let has_body = matches!(*request.method(), Method::POST | Method::PUT | Method::PATCH);
    if !has_body {
        let requirement = if on_endpoint {
            scopes::Requirement::default()
        } else {
            inner.access.for_rest(request.method(), request.uri().path())
        };
        let mut request = request;
        request.extensions_mut().insert(crate::body::Vetted { well_formed_json: None });
        return Ok((request, None, requirement));
    }
    let (parts, body) = request.into_parts();
    let (bytes, share) = crate::body::read(&parts.headers, body, &inner.body_limits)
        .await
        .map_err(|error| body_denial(error, inner.body_limits.max_bytes))?;
    let (requirement, well_formed_json) = if on_endpoint {
        // One pass over the body gives the scopes, the method and whether it is well-formed
        // JSON, which the endpoint then need not check again. Skipped values are not checked
        // for UTF-8 by the parser, so the whole body is.
        let rules = inner.access.clone();
        let scanned = crate::blocking::for_large(bytes.clone(), move |body| {
            let requirement = rules.for_mcp_body(body);
            let well_formed = requirement.is_some() && std::str::from_utf8(body).is_ok();
            (requirement, well_formed)
        })
        .await;
        match scanned {
            Some((requirement, well_formed)) => {
                if let Some(slot) = parts.extensions.get::<RpcMethodSlot>() {
                    let method = requirement.as_ref().and_then(|r| r.method);
                    slot.set(method.unwrap_or(RpcMethod::INVALID));
                }
                (requirement.unwrap_or_default(), Some(well_formed))
            }
            None => (scopes::Requirement::default(), None),
        }
    } else {
        let mut requirement = inner.access.for_rest(&parts.method, parts.uri.path());
        if requirement.recognition && inner.prefetch.is_some() {
            requirement.fetch = inner.access.fetched_url_in_json(&bytes);
        }
        (requirement, None)
    };
    let mut request = Request::from_parts(parts, Body::from(bytes));
    request.extensions_mut().insert(crate::body::Vetted { well_formed_json });
    Ok((request, Some(share), requirement))
}

/// What failed authentications, and callers without credentials, are counted under: an
/// IPv4 address (also when it arrives mapped into IPv6 on a dual-stack socket), or an IPv6
/// address's /64, because one host or attacker is commonly given a whole /64 and could
/// otherwise spread its failures, or its requests, over as many addresses as it likes.
/// Written out only where a key is needed.
#[derive(Clone, Copy)]
struct ClientKey(std::net::IpAddr);

impl ClientKey {
    fn of(address: std::net::IpAddr) -> Self {
        ClientKey(crate::per_address::client_prefix(address))
    }
}

impl std::fmt::Display for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            std::net::IpAddr::V4(v4) => v4.fmt(f),
            std::net::IpAddr::V6(v6) => write!(f, "{v6}/64"),
        }
    }
}

/// The refusal for a body that was not read.
fn body_denial(error: BodyError, limit: usize) -> Denial {
    match error {
        BodyError::TooLarge => Denial::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            INVALID_REQUEST,
            crate::body::too_large_message(limit),
        ),
        BodyError::TimedOut => Denial::new(
            StatusCode::REQUEST_TIMEOUT,
            INVALID_REQUEST,
            "Request Timeout: the request body did not arrive in time",
        ),
        BodyError::Busy => {
            let mut denial = Denial::new(
                StatusCode::SERVICE_UNAVAILABLE,
                OVERLOADED,
                "Service Unavailable: the server is receiving too many uploads; retry shortly",
            );
            denial.retry_after = Some(Duration::from_secs(2));
            denial
        }
        _ => Denial::new(
            StatusCode::BAD_REQUEST,
            INVALID_REQUEST,
            "Bad request: the request body could not be read",
        ),
    }
}

/// The caller and, for OAuth, the scopes granted (`None` means every scope).
async fn authenticate(
    guard: &AuthGuard,
    headers: &HeaderMap,
) -> Result<(Principal, Option<BTreeSet<String>>), Denial> {
    match &guard.inner.mode {
        AuthMode::None => Ok((Principal::local(), None)),
        AuthMode::ApiKey(lookup) => {
            let key = bearer(headers).or_else(|| {
                headers.get(API_KEY_HEADER).and_then(|v| v.to_str().ok()).map(str::trim)
            });
            let Some(key) = key.filter(|k| !k.is_empty()) else {
                return Err(unauthorized(guard, None));
            };
            match lookup.find(&hash_api_key(key)).await {
                Ok(Some(id)) => Ok((Principal(format!("key:{id}")), None)),
                Ok(None) => Err(unauthorized(guard, Some("the API key is not valid"))),
                Err(error) => {
                    tracing::error!(%error, "API key lookup failed");
                    let mut denial = Denial::new(
                        StatusCode::SERVICE_UNAVAILABLE,
                        OVERLOADED,
                        "Service Unavailable: credentials cannot be checked right now",
                    );
                    denial.retry_after = Some(Duration::from_secs(5));
                    Err(denial)
                }
            }
        }
        AuthMode::OAuth(verifier) => {
            let Some(token) = bearer(headers) else {
                return Err(unauthorized(guard, None));
            };
            match verifier.verify(token).await {
                Ok(verified) => Ok((verified.principal, Some(verified.scopes))),
                Err(error) => {
                    tracing::info!(%error, "refused an access token");
                    Err(unauthorized(guard, Some(&error.to_string())))
                }
            }
        }
    }
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim()).filter(|t| !t.is_empty())
}

fn unauthorized(guard: &AuthGuard, invalid: Option<&str>) -> Denial {
    let message = match invalid {
        Some(reason) => format!("Unauthorized: {reason}"),
        None => {
            "Unauthorized: this server needs credentials (Authorization: Bearer ...)".to_owned()
        }
    };
    let mut denial = Denial::new(StatusCode::UNAUTHORIZED, UNAUTHORIZED, message);
    let mut params: Vec<(&str, &str)> = match invalid {
        Some(reason) => vec![("error", "invalid_token"), ("error_description", reason)],
        None => Vec::new(),
    };
    // The scopes a client should ask for (MCP authorization, scope selection).
    let all_scopes = format!("{} {}", super::SCOPE_READ, super::SCOPE_WRITE);
    if matches!(guard.inner.mode, AuthMode::OAuth(_)) {
        params.push(("scope", &all_scopes));
    }
    denial.challenge = Some(challenge(guard, &params));
    denial
}

/// `Bearer k="v", ...` with `resource_metadata` (OAuth) or `realm` (API keys) first.
fn challenge(guard: &AuthGuard, params: &[(&str, &str)]) -> String {
    let mut parts: Vec<String> = params
        .iter()
        .map(|(name, value)| format!("{name}=\"{}\"", value.replace(['"', '\\'], "'")))
        .collect();
    match &guard.inner.resource_metadata_url {
        Some(url) => parts.insert(0, format!("resource_metadata=\"{url}\"")),
        None => parts.insert(0, "realm=\"mrtd\"".to_owned()),
    }
    format!("Bearer {}", parts.join(", "))
}

/// The REST error code of a refusal, one per status the guard answers with.
fn rest_code(status: StatusCode) -> &'static str {
    match status {
        StatusCode::UNAUTHORIZED => "unauthorized",
        StatusCode::FORBIDDEN => "forbidden",
        StatusCode::REQUEST_TIMEOUT => "request_timeout",
        StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
        StatusCode::TOO_MANY_REQUESTS => "rate_limited",
        StatusCode::SERVICE_UNAVAILABLE => "busy",
        _ => "invalid_request",
    }
}

fn render(denial: Denial, on_endpoint: bool, id: Value, origin: Option<HeaderValue>) -> Response {
    let retry_seconds = denial.retry_after.map(|d| d.as_secs_f64().ceil().max(1.0) as u64);
    let mut response = if on_endpoint {
        let mut error = json!({ "code": denial.code, "message": denial.message });
        if let Some(seconds) = retry_seconds {
            error["data"] = json!({ "retryAfter": seconds });
        }
        jsonrpc::json_response(
            denial.status,
            &json!({ "jsonrpc": "2.0", "id": id, "error": error }),
        )
    } else {
        // RFC 9457 problem details, in the REST API's shape (`mrtd_web`'s errors): `type` is
        // the error's section of the REST docs; `error` repeats it for earlier clients.
        let code = rest_code(denial.status);
        let mut body = json!({
            "type": format!("/docs/rest.md#{code}"),
            "title": denial.status.canonical_reason().unwrap_or("Error"),
            "status": denial.status.as_u16(),
            "detail": denial.message,
            "code": code,
            "error": { "code": code, "status": denial.status.as_u16(), "message": denial.message },
        });
        if let Some(seconds) = retry_seconds {
            body["retry_after"] = json!(seconds);
            body["error"]["retry_after"] = json!(seconds);
        }
        let mut response = jsonrpc::json_response(denial.status, &body);
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/problem+json"));
        response
    };
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Some(challenge) = denial.challenge.and_then(|c| HeaderValue::from_str(&c).ok()) {
        headers.insert(header::WWW_AUTHENTICATE, challenge);
    }
    if let Some(seconds) = retry_seconds {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    if let Some(origin) = origin {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(header::VARY, HeaderValue::from_static("Origin"));
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("www-authenticate, retry-after"),
        );
    }
    response.into_response()
}
