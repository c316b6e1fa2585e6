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
//! | `GET /assets/{name}` | the page's script and style sheet, embedded in the binary |
//! | `GET /llms.txt`, `GET /docs/{name}.md` | the docs in Markdown for agents and people |
//! | `GET /openapi.json` | OpenAPI 3.1 for the REST API |
//! | `POST /v1/scans`, `GET /v1/scans`, `GET`/`DELETE /v1/scans/{id}`, `POST /v1/parse` | the REST API |
//!
//! The REST API returns exactly what the MCP tools put in `structuredContent`, through the
//! same transport-neutral [`mrtd_mcp::service`], for the same caller: the principal the
//! authentication layer put into the request's extensions (the local user without one).
//! REST errors are `{"error": {"code", "message"}}` with a status that says what to do.

mod assets;
mod docs;
mod error;
mod negotiate;
mod openapi;
mod rest;
mod root;

use axum::{Router, extract::DefaultBodyLimit, routing::get};
use mrtd_mcp::AppState;

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
        .route("/v1/parse", axum::routing::post(rest::parse))
        .route("/v1/{*rest}", axum::routing::any(rest::not_found))
        .layer(DefaultBodyLimit::max(config.max_body_bytes))
        .with_state(shared);
    let mcp_path = config.mcp_path.clone();
    Router::new()
        .route("/", get(move |headers| root::root(headers, mcp_path.clone())))
        .route("/assets/{name}", get(assets::serve))
        .route("/llms.txt", get(docs::llms_txt))
        .route("/docs/{name}", get(docs::serve))
        .route("/openapi.json", get(openapi::serve))
        .merge(api)
}
