//! mrtd's transports: the HTTP front and the stdio entry point.
//!
//! The MCP protocol machinery (version negotiation, `server/discover`, `_meta` checks,
//! `resultType`, multi round-trip results) comes from `rmcp`.
//! This crate adds what rmcp leaves unsafe or slow by default:
//!
//! * every accepted socket gets `TCP_NODELAY`, so small responses are not held back
//!   by Nagle's algorithm waiting for a delayed ACK (about 44 ms per response);
//! * `Host` and `Origin` are checked before anything else, and a foreign `Origin`
//!   gets `403` with a JSON-RPC error body;
//! * every connection is bounded: the request head in time and size (`431`), the body in
//!   time, size (`413` at once for a declared length over the limit) and in the memory all
//!   bodies may hold together, the response in time (its head by the request timeout, its
//!   delivery to a client that stops reading by the response timeout), and the connections
//!   open at once, in all and from one client address;
//! * the client address that limits count per and the access log names is the peer's, or
//!   behind a `--trusted-proxy` the one the proxy reports (`X-Forwarded-For`, `Forwarded`);
//! * the body limit is configurable (36 MiB by default, so a base64 photo fits) and
//!   answered with `413` and a JSON-RPC error;
//! * malformed JSON gets `400` with `-32700`, batches are handled per revision,
//!   plain-text errors from the protocol layer are turned into JSON-RPC errors;
//! * `GET` and `DELETE` on the endpoint get `405` unless legacy sessions are enabled.
//!
//! [`observe`] adds Prometheus metrics, health probes and per-request tracing spans.
//!
//! ```no_run
//! # async fn example() -> std::io::Result<()> {
//! use mrtd_server::{HttpConfig, McpEndpoint};
//! # #[derive(Clone)] struct Handler;
//! # impl rmcp::ServerHandler for Handler {}
//! let config = HttpConfig::default();
//! let endpoint = McpEndpoint::new(|| Ok(Handler), &config);
//! let app = mrtd_server::http::router(endpoint, &config, axum::Router::new());
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! mrtd_server::http::serve(listener, app, std::future::pending()).await
//! # }
//! ```

pub mod auth;
mod blocking;
pub mod body;
mod client_address;
mod config;
mod endpoint;
mod guard;
pub mod http;
pub mod jsonrpc;
pub mod observe;
mod per_address;
mod pieces;
pub mod stdio;
mod write_timeout;

pub use client_address::{ClientAddress, TrustedProxies};
pub use config::{ConnectionLimits, HttpConfig};
pub use endpoint::McpEndpoint;
pub use guard::{HostOriginPolicy, RequestRejection};
