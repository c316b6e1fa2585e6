//! `mrtd-conformance`: the fixture server the official MCP conformance suite runs against.
//!
//! It serves the tools, resources, prompts and subscriptions the suite expects at `/mcp`
//! through mrtd's own HTTP front (`mrtd_server::McpEndpoint`), so a suite run measures the
//! front and rmcp together exactly as mrtd ships them. One endpoint answers both wires:
//! 2026-07-28 requests (stateless, per-request `_meta`) and 2025-era clients that start
//! with `initialize`. By default 2025-era clients are served without sessions; with
//! `--legacy-sessions` they get `Mcp-Session-Id` sessions, which server-initiated requests
//! (sampling, elicitation) need.

// Sampling, roots and logging are deprecated by the 2026 revision but still part of the
// fixture, because the suite exercises them.
#![allow(deprecated)]

mod fixture;
mod legacy;
mod media;
mod mrtr;
mod prompts;
mod resources;
mod subscriptions;
mod tools;

use std::{net::SocketAddr, sync::Arc};

use clap::Parser;
use mrtd_server::{HttpConfig, McpEndpoint};

use crate::fixture::{Fixture, Shared};

/// Command line of the fixture server.
#[derive(Debug, Parser)]
#[command(name = "mrtd-conformance", version, about = "MCP conformance fixture server")]
struct Cli {
    /// Loopback address to listen on, e.g. 127.0.0.1:3000 (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:3000")]
    listen: SocketAddr,
    /// Serve 2025-era clients with `Mcp-Session-Id` sessions instead of sessionless.
    #[arg(long)]
    legacy_sessions: bool,
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();

    let config = HttpConfig { legacy_sessions: cli.legacy_sessions, ..HttpConfig::default() };
    let shared = Arc::new(Shared::new(cli.legacy_sessions));
    let endpoint = McpEndpoint::new(move || Ok(Fixture::new(shared.clone())), &config);
    let app = mrtd_server::http::router(endpoint, &config, axum::Router::new());
    let listener = tokio::net::TcpListener::bind(cli.listen).await?;
    let address = listener.local_addr()?;
    tracing::info!(
        %address,
        legacy_sessions = cli.legacy_sessions,
        "conformance fixture listening on http://{address}{}",
        config.endpoint_path
    );
    // The line on stdout lets scripts and tests learn the port when started with port 0.
    println!("listening on http://{address}{}", config.endpoint_path);
    mrtd_server::http::serve(listener, app, mrtd_server::http::shutdown_signal()).await
}
