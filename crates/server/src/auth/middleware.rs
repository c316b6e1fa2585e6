//! The middleware itself: one function run before every protected route.

use std::{collections::BTreeSet, time::Duration};

use axum::{
    body::Body,
    extract::State,
    middleware::Next,
    response::{IntoResponse, Response},
};
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Request, StatusCode, header};
use http_body_util::{BodyExt, Limited};
use serde_json::{Value, json};

use super::{AuthGuard, AuthMode, Principal, api_key::hash_api_key, is_public_path, scopes};
use crate::jsonrpc::{self, INVALID_REQUEST};

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

pub(super) async fn guard(
    State(guard): State<AuthGuard>,
    request: Request<Body>,
    next: Next,
) -> Response {
    let path = request.uri().path().to_owned();
    if request.method() == Method::OPTIONS || is_public_path(&path) {
        return next.run(request).await;
    }
    let on_endpoint = path == guard.inner.endpoint_path;
    if let Err(rejection) = guard.inner.policy.check(request.uri(), request.headers()) {
        tracing::warn!(%rejection, "refused request");
        let code = if on_endpoint { INVALID_REQUEST } else { UNAUTHORIZED };
        let denial = Denial::new(rejection.status(), code, rejection.to_string());
        return render(denial, on_endpoint, Value::Null, None);
    }
    // The Origin passed the policy, so the page may read why a request was refused.
    let origin = request.headers().get(header::ORIGIN).cloned();
    match check(&guard, request, on_endpoint).await {
        Ok((request, permit)) => {
            let response = next.run(request).await;
            drop(permit);
            response
        }
        Err((denial, id)) => render(denial, on_endpoint, id, origin),
    }
}

type Checked = (Request<Body>, Option<tokio::sync::OwnedSemaphorePermit>);

async fn check(
    guard: &AuthGuard,
    request: Request<Body>,
    on_endpoint: bool,
) -> Result<Checked, (Denial, Value)> {
    let inner = &guard.inner;
    let (principal, granted) =
        authenticate(guard, request.headers()).await.map_err(|d| (d, Value::Null))?;

    if let Some(limiter) = &inner.limiter
        && let Err(wait) = limiter.check(&principal.0, std::time::Instant::now())
    {
        let mut denial = Denial::new(
            StatusCode::TOO_MANY_REQUESTS,
            OVERLOADED,
            "Too Many Requests: the rate limit for this caller is exceeded; retry later",
        );
        denial.retry_after = Some(wait);
        return Err((denial, Value::Null));
    }

    let (mut request, requirement) = if on_endpoint && request.method() == Method::POST {
        let (parts, body) = request.into_parts();
        let bytes = read_body(&parts.headers, body, inner.max_body_bytes)
            .await
            .map_err(|d| (d, Value::Null))?;
        let requirement = scopes::for_mcp_body(&bytes).unwrap_or_default();
        (Request::from_parts(parts, Body::from(bytes)), requirement)
    } else if on_endpoint {
        (request, scopes::Requirement::default())
    } else {
        let requirement = scopes::for_rest(request.method(), request.uri().path());
        (request, requirement)
    };
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

    let permit = if requirement.recognition {
        match inner.gate.enter().await {
            Some(permit) => Some(permit),
            None => {
                let mut denial = Denial::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    OVERLOADED,
                    "Service Unavailable: the server is busy reading other documents; retry shortly",
                );
                denial.retry_after = Some(Duration::from_secs(5));
                return Err((denial, id));
            }
        }
    } else {
        None
    };
    request.extensions_mut().insert(principal);
    Ok((request, permit))
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
                Ok(Some(name)) => Ok((Principal(format!("key:{name}")), None)),
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
    let params: Vec<(&str, &str)> = match invalid {
        Some(reason) => vec![("error", "invalid_token"), ("error_description", reason)],
        None => Vec::new(),
    };
    denial.challenge = Some(challenge(guard, &params));
    denial
}

/// `Bearer k="v", ...` with `resource_metadata` (OAuth) or `realm` (API keys) last.
fn challenge(guard: &AuthGuard, params: &[(&str, &str)]) -> String {
    let mut parts: Vec<String> = params
        .iter()
        .map(|(name, value)| format!("{name}=\"{}\"", value.replace(['"', '\\'], "'")))
        .collect();
    match &guard.inner.resource_metadata_url {
        Some(url) => parts.push(format!("resource_metadata=\"{url}\"")),
        None => parts.insert(0, "realm=\"mrtd\"".to_owned()),
    }
    format!("Bearer {}", parts.join(", "))
}

async fn read_body(headers: &HeaderMap, body: Body, limit: usize) -> Result<Bytes, Denial> {
    let too_large = || {
        let limit_mib = limit as f64 / (1024.0 * 1024.0);
        Denial::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            INVALID_REQUEST,
            format!("Payload Too Large: the request body exceeds the {limit_mib:.0} MiB limit"),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(error) if error.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Err(_) => Err(Denial::new(
            StatusCode::BAD_REQUEST,
            INVALID_REQUEST,
            "Bad request: the request body could not be read",
        )),
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
        let mut body =
            json!({ "error": { "status": denial.status.as_u16(), "message": denial.message } });
        if let Some(seconds) = retry_seconds {
            body["error"]["retry_after"] = json!(seconds);
        }
        jsonrpc::json_response(denial.status, &body)
    };
    let headers = response.headers_mut();
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
