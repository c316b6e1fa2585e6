//! mrtd's HTTP surface for people and ordinary programs: the web page, the REST API
//! under `/v1`, its OpenAPI document, and the reading layer for agents (`/llms.txt`,
//! Markdown docs, JSON-LD).
//!
//! [`routes`] returns one [`axum::Router`] to merge next to the MCP endpoint and wrap,
//! with it, in `AuthGuard::protect`:
//!
//! | route | what |
//! |---|---|
//! | `GET /` | the page (HTML), the discovery document (JSON), Markdown or plain text, by `Accept` |
//! | `GET /assets/{name}` | the page's script, style sheet, icon and sample photo, embedded in the binary |
//! | `GET /llms.txt`, `GET /docs/{name}.md` | the docs in Markdown for agents and people |
//! | `GET /openapi.json` | OpenAPI 3.1 for the REST API |
//! | `POST /v1/scans`, `GET /v1/scans`, `GET`/`DELETE /v1/scans/{id}`, `GET /v1/scans/{id}/portrait`, `POST /v1/parse`, `POST /v1/check`, `POST /v1/chip/verify` | the REST API |
//!
//! The REST API returns exactly what the MCP tools put in `structuredContent`, through the
//! same transport-neutral [`mrtd_service::ops`], for the same caller: the
//! [`mrtd_service::Principal`] the composition put into the request's extensions once the
//! caller was authenticated (the local user without one). [`rest_access`] declares what
//! each operation needs, for the HTTP front's guard.
//! REST errors are `{"error": {"code", "message"}}` with a status that says what to do.

mod assets;
mod docs;
mod error;
mod i18n;
mod negotiate;
mod openapi;
mod rest;
mod root;

use axum::{Router, extract::DefaultBodyLimit, routing::get};
use http::Method;
use mrtd_service::{Access, AppState};

pub use error::ApiError;
pub use openapi::document as openapi_document;
pub use root::discovery_document;

/// The default request body limit, the same as the MCP endpoint's: a photo of up to
/// about 27 MiB still fits once base64-encoded.
pub const DEFAULT_MAX_BODY_BYTES: usize = 36 * 1024 * 1024;

/// Settings of the web routes.
#[derive(Debug, Clone)]
pub struct WebConfig {
    /// Largest request body accepted by the REST API, in bytes.
    pub max_body_bytes: usize,
    /// The path of the MCP endpoint, named in the discovery document and the docs.
    pub mcp_path: String,
}

impl Default for WebConfig {
    fn default() -> Self {
        WebConfig { max_body_bytes: DEFAULT_MAX_BODY_BYTES, mcp_path: "/mcp".to_owned() }
    }
}

/// What one REST operation needs from the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestAccess {
    /// The HTTP method.
    pub method: Method,
    /// The path, without a trailing slash.
    pub path: &'static str,
    /// What it touches.
    pub access: Access,
    /// Whether it reads a photo (and so takes a recognition slot).
    pub recognition: bool,
}

/// The REST operations whose needs differ from the rule for the rest (reads need to read
/// scans, other methods to write them): reading a photo takes a recognition slot, like the
/// `scan_document` tool; parsing typed text touches no scan, like `parse_mrz`. Verifying chip
/// data and checking a document may read a scan named in the body, which the guard does not
/// parse: they need the right to read scans (the `verify_chip` and `check_document` tools
/// need it only with a `scan_id`).
pub fn rest_access() -> Vec<RestAccess> {
    vec![
        RestAccess {
            method: Method::POST,
            path: "/v1/scans",
            access: Access::WriteScans,
            recognition: true,
        },
        RestAccess {
            method: Method::POST,
            path: "/v1/parse",
            access: Access::Open,
            recognition: false,
        },
        RestAccess {
            method: Method::POST,
            path: "/v1/chip/verify",
            access: Access::ReadScans,
            recognition: false,
        },
        RestAccess {
            method: Method::POST,
            path: "/v1/check",
            access: Access::ReadScans,
            recognition: false,
        },
    ]
}

/// The page, its assets, the docs, OpenAPI and the REST API, with the default settings.
pub fn routes(state: AppState) -> Router {
    routes_with(state, &WebConfig::default())
}

/// The same routes as [`routes`] with explicit settings.
pub fn routes_with(state: AppState, config: &WebConfig) -> Router {
    let shared = rest::Shared::new(state);
    let api = Router::new()
        .route("/v1/scans", get(rest::list_scans).post(rest::create_scan))
        .route("/v1/scans/{id}", get(rest::get_scan).delete(rest::delete_scan))
        .route("/v1/scans/{id}/portrait", get(rest::get_portrait))
        .route("/v1/parse", axum::routing::post(rest::parse))
        .route("/v1/chip/verify", axum::routing::post(rest::verify_chip))
        .route("/v1/check", axum::routing::post(rest::check))
        .route("/v1/{*rest}", axum::routing::any(rest::not_found))
        .method_not_allowed_fallback(rest::method_not_allowed)
        .layer(DefaultBodyLimit::max(config.max_body_bytes))
        .with_state(shared);
    let mcp_path = config.mcp_path.clone();
    Router::new()
        .route("/", get(move |uri, headers| root::root(uri, headers, mcp_path.clone())))
        .route("/assets/{name}", get(assets::serve))
        .route("/llms.txt", get(docs::llms_txt))
        .route("/docs", get(docs::index))
        .route("/docs/", get(docs::index))
        .route("/docs/{name}", get(docs::serve))
        .route("/openapi.json", get(openapi::serve))
        .method_not_allowed_fallback(docs::method_not_allowed)
        .merge(api)
}
