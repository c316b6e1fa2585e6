//! Authentication, authorization and limits for the HTTP front.
//!
//! One middleware ([`AuthGuard::protect`]) guards every route of the router it is applied
//! to, the MCP endpoint and the REST API alike, except the public ones: `/`, `/healthz`,
//! `/livez`, `/readyz`, everything under `/.well-known/`, what the web layer publishes
//! (`/assets/`, `/docs/`, `/llms.txt`, `/openapi.json`), and CORS preflights. For each
//! request it, in order:
//!
//! 1. checks `Host` and `Origin` (a foreign `Origin` gets `403` before anything else);
//! 2. authenticates the caller according to the [`AuthMode`] and puts the resulting
//!    [`Principal`] into the request's extensions, where the MCP layer finds it: the
//!    principal owns the scans and `requestState` the request creates; a request whose
//!    credentials are missing or invalid is counted against its address (an IPv6 address's
//!    /64), and once the address has failed too often it is answered `429` instead of `401`,
//!    while valid credentials from that address are still served;
//! 3. applies the rate limit per principal, or per client address without authentication
//!    (`429` with `Retry-After`);
//! 4. checks the scopes the request needs (`403` with `error="insufficient_scope"`);
//! 5. for a recognition that names a photo by URL ([`AccessRules::fetched_argument`]), has
//!    the [`Prefetch`] fetch it, counted against the body memory budget, before anything
//!    scarce is taken: a slow server at the URL holds no recognition slot;
//! 6. names the request's [`Caller`] in its extensions, and for a recognition has the
//!    [`Admission`] wait, in the caller's turn, for a slot of the service's one recognition
//!    gate (`503` with `Retry-After` when none comes in time).
//!
//! Modes:
//!
//! * [`AuthMode::None`]: every caller is [`Principal::local`]. Only for loopback binds.
//! * [`AuthMode::ApiKey`]: `Authorization: Bearer mrtd_…` or `X-Api-Key: mrtd_…`, looked up
//!   by its SHA-256 ([`api_key`]); the principal is `key:<id>` (the key's id, never its
//!   reusable name) and every scope is granted.
//! * [`AuthMode::OAuth`]: the server is an OAuth 2.1 resource server ([`oauth`]). It
//!   publishes RFC 9728 metadata ([`metadata`]) and accepts JWT access tokens from one
//!   issuer, for its own canonical URI only. Tokens are never forwarded anywhere.
//!
//! Scopes: `scans:read` for `get_scan`, `list_scans`, `check_document` and `verify_chip` by
//! `scan_id` and reading `mrtd://scans/*`; `scans:write` for `scan_document` and `delete_scan`.
//! Everything else needs only a valid token. `scans:write` implies `scans:read`. On the REST
//! API, `GET`/`HEAD` need `scans:read` and other methods `scans:write`, except `POST /v1/parse`
//! (like `parse_mrz`, only a valid token), `POST /v1/chip/verify` and `POST /v1/check`
//! (`scans:read`, as their bodies may name a scan); `POST /v1/scans` is a recognition too.

pub mod api_key;
pub mod jwks;
pub mod limits;
pub mod metadata;
mod middleware;
pub mod oauth;
mod scopes;

use std::{sync::Arc, time::Duration};

use axum::Router;

pub use api_key::{ApiKeyLookup, generate_api_key, hash_api_key};
pub use limits::{Caller, RateLimit, RateLimiter};
pub use oauth::{OAuthConfig, TokenVerifier};
pub use scopes::{AccessRules, RestRule, ToolRule};

use crate::{
    HttpConfig,
    body::{BodyLimits, MemoryBudget},
    guard::HostOriginPolicy,
};

/// The scope that lets a caller read its kept scans.
pub const SCOPE_READ: &str = "scans:read";
/// The scope that lets a caller create and delete scans.
pub const SCOPE_WRITE: &str = "scans:write";

/// The authenticated caller. Scans and request states are bound to it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Principal(pub String);

impl Principal {
    /// The caller when the server runs without authentication.
    pub fn local() -> Self {
        Principal("local".to_owned())
    }
}

/// How callers prove who they are.
#[derive(Clone)]
pub enum AuthMode {
    /// No authentication: every caller is the local user.
    None,
    /// API keys made with `mrtd keys create`.
    ApiKey(Arc<dyn ApiKeyLookup>),
    /// OAuth 2.1 bearer tokens (JWTs) from one issuer.
    OAuth(Arc<TokenVerifier>),
}

impl std::fmt::Debug for AuthMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuthMode::None => f.write_str("None"),
            AuthMode::ApiKey(_) => f.write_str("ApiKey"),
            AuthMode::OAuth(verifier) => {
                f.debug_tuple("OAuth").field(&verifier.resource()).finish()
            }
        }
    }
}

/// Everything the guard needs.
#[derive(Debug, Clone)]
pub struct AuthSettings {
    /// How callers authenticate.
    pub mode: AuthMode,
    /// The rate limit of each principal (of each client address without authentication);
    /// `None` for no limit.
    pub rate_limit: Option<RateLimit>,
    /// How long a request waits for room in the body memory budget before `503`.
    pub budget_wait: Duration,
    /// Failed authentications each client address (an IPv6 address's /64) may make before
    /// its requests without valid credentials are answered `429` for a while; a request with
    /// valid credentials is served whatever its address has failed. `None` for no limit.
    pub failure_limit: Option<RateLimit>,
    /// What each tool, resource and REST operation needs, as the crates that define them
    /// declare it.
    pub access: AccessRules,
    /// What fetches the photo a recognition names by URL before it takes a recognition
    /// slot; `None` leaves the fetch to the handler (inside the slot).
    pub prefetch: Option<Prefetcher>,
    /// What admits a recognition before its request reaches the handler; `None` leaves the
    /// handler to wait for its slot.
    pub admission: Option<Admission>,
}

/// Admits a recognition before its request goes on (the composition's: the front keeps no
/// gate of its own). It waits, in the caller's turn, for a slot of the service's one
/// recognition gate and leaves the slot in `extensions` for the handler, or says after how
/// long to retry. A request waiting here holds only its body, read whole: the handler's
/// copies of it are made once the slot is taken.
pub trait Admit: Send + Sync {
    /// A slot for `caller`, left in `extensions`, or how long to wait before retrying.
    fn admit<'a>(
        &'a self,
        caller: &'a str,
        extensions: &'a mut http::Extensions,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), Duration>> + Send + 'a>>;
}

/// A shared [`Admit`].
#[derive(Clone)]
pub struct Admission(pub Arc<dyn Admit>);

impl std::fmt::Debug for Admission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Admission")
    }
}

/// Fetches the photo a recognition names by URL, before the request takes a recognition
/// slot (the composition's: the front knows no tool and links no fetch policy of its own).
pub trait Prefetch: Send + Sync {
    /// Fetches `url`, leaves the outcome in `extensions` for the handler, and returns the
    /// bytes it holds there (counted against the body memory budget until the response).
    fn prefetch<'a>(
        &'a self,
        url: &'a str,
        extensions: &'a mut http::Extensions,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = usize> + Send + 'a>>;

    /// The most bytes one fetch may hold: reserved from the budget while it runs.
    fn max_bytes(&self) -> usize;
}

/// A shared [`Prefetch`].
#[derive(Clone)]
pub struct Prefetcher(pub Arc<dyn Prefetch>);

impl std::fmt::Debug for Prefetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Prefetcher")
    }
}

impl AuthSettings {
    /// Settings with the default limits (10 requests per second, bursts of 50; a body
    /// waits at most 10 seconds for room in the memory budget).
    pub fn new(mode: AuthMode) -> Self {
        AuthSettings {
            mode,
            rate_limit: Some(RateLimit::default()),
            budget_wait: Duration::from_secs(10),
            failure_limit: Some(DEFAULT_FAILURE_LIMIT),
            access: AccessRules::default(),
            prefetch: None,
            admission: None,
        }
    }
}

/// Failed authentications per client address: 20 at once, then one every two seconds.
/// Keys have 256 random bits, so this is not what stops guessing; it keeps a flood of
/// bad credentials from costing the server (and the store) work.
pub const DEFAULT_FAILURE_LIMIT: RateLimit = RateLimit { per_second: 0.5, burst: 20 };

/// The shared state of the middleware; cheap to clone.
#[derive(Clone)]
pub struct AuthGuard {
    inner: Arc<GuardInner>,
}

struct GuardInner {
    mode: AuthMode,
    policy: HostOriginPolicy,
    endpoint_path: String,
    body_limits: BodyLimits,
    limiter: Option<RateLimiter>,
    failures: Option<RateLimiter>,
    resource_metadata_url: Option<String>,
    access: Arc<AccessRules>,
    prefetch: Option<Prefetcher>,
    admission: Option<Admission>,
}

impl AuthGuard {
    /// A guard for the HTTP front configured by `http`.
    pub fn new(settings: AuthSettings, http: &HttpConfig) -> Self {
        let resource_metadata_url = match &settings.mode {
            AuthMode::OAuth(verifier) => Some(metadata::metadata_url(verifier.resource())),
            _ => None,
        };
        AuthGuard {
            inner: Arc::new(GuardInner {
                policy: HostOriginPolicy::new(http),
                endpoint_path: http.endpoint_path.clone(),
                body_limits: BodyLimits {
                    max_bytes: http.max_body_bytes,
                    idle_timeout: http.limits.body_idle_timeout,
                    total_timeout: http.limits.body_timeout,
                    budget: MemoryBudget::new(http.limits.max_body_memory_bytes),
                    budget_wait: settings.budget_wait,
                },
                limiter: settings.rate_limit.map(RateLimiter::new),
                failures: settings.failure_limit.map(RateLimiter::new),
                mode: settings.mode,
                resource_metadata_url,
                access: Arc::new(settings.access),
                prefetch: settings.prefetch,
                admission: settings.admission,
            }),
        }
    }

    /// Applies the guard to every route of `app`, and adds the protected resource metadata
    /// routes when the mode is OAuth. Add public routes after calling this, or list them in
    /// [`is_public_path`].
    pub fn protect(&self, app: Router) -> Router {
        let guarded = app.layer(middleware::GuardLayer(self.clone()));
        match &self.inner.mode {
            AuthMode::OAuth(verifier) => guarded.merge(metadata::routes(verifier)),
            _ => guarded,
        }
    }
}

/// Paths served to anyone: discovery, health probes, `/.well-known/`, and what the web
/// layer publishes for people and agents (the page and its assets, `/llms.txt`, the docs
/// and the OpenAPI document). None of them reads or changes a scan.
pub fn is_public_path(path: &str) -> bool {
    matches!(path, "/" | "/healthz" | "/livez" | "/readyz" | "/llms.txt" | "/openapi.json")
        || path.starts_with("/.well-known/")
        || path.starts_with("/assets/")
        || path.starts_with("/docs/")
}
