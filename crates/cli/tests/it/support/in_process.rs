//! The MCP server built in the test process, behind the real HTTP front, with a test-only
//! layer that names the caller.
//!
//! The authentication layer of the product puts a [`Principal`] into each request's
//! extensions; here a middleware does the same from the `X-Test-Principal` header, so tests
//! can speak as several callers through real MCP requests.

use std::{net::SocketAddr, sync::Arc};

use axum::{extract::Request, middleware::Next, response::Response};
use mrtd_mcp::{McpConfig, MrtdServer};
use mrtd_server::{HttpConfig, McpEndpoint};
use mrtd_service::{AppState, Principal, ServiceConfig};
use serde_json::Value;
use tokio::runtime::Runtime;

use super::client::{Client, Revision};

/// The header this test server reads the caller from.
pub const PRINCIPAL_HEADER: &str = "X-Test-Principal";

/// A server running on its own runtime; stops when dropped.
pub struct InProcessServer {
    pub runtime: Runtime,
    pub addr: SocketAddr,
    pub store: Arc<dyn mrtd_store::Store>,
}

async fn name_the_caller(mut request: Request, next: Next) -> Response {
    if let Some(name) = request.headers().get(PRINCIPAL_HEADER).and_then(|v| v.to_str().ok()) {
        let principal = Principal(name.to_owned());
        request.extensions_mut().insert(principal);
    }
    next.run(request).await
}

impl InProcessServer {
    pub fn start() -> InProcessServer {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime for the server");
        let (addr, store) = runtime.block_on(async {
            let store = mrtd_store::open("sqlite::memory:").await.expect("an in-memory store");
            let config = ServiceConfig { max_concurrent_reads: 2, ..ServiceConfig::new() };
            let engine = Arc::new(mrtd_engine::EngineBuilder::new().build());
            let state = AppState::new(engine, store.clone(), &config).expect("the app state");
            let server = MrtdServer::new(state, &McpConfig { request_state_key: vec![7; 32] })
                .expect("the MCP server");
            let http = HttpConfig::default();
            let endpoint = McpEndpoint::new(move || Ok(server.clone()), &http);
            let app = mrtd_server::http::router(endpoint, &http, axum::Router::new())
                .layer(axum::middleware::from_fn(name_the_caller));
            let listener =
                tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
            let addr = listener.local_addr().expect("the bound address");
            tokio::spawn(mrtd_server::http::serve(listener, app, std::future::pending()));
            (addr, store)
        });
        InProcessServer { runtime, addr, store }
    }

    /// A client that speaks as `principal` (or, with `None`, without naming a caller).
    pub fn client(
        &self,
        principal: Option<&str>,
        revision: Revision,
        capabilities: Value,
    ) -> Client {
        let headers =
            principal.map(|name| vec![(PRINCIPAL_HEADER, name.to_owned())]).unwrap_or_default();
        Client::http(self.addr, revision, capabilities, headers)
    }
}
