//! Throughput and latency of the MCP endpoint against a bare axum handler.
//!
//! `cargo bench -p mrtd-server --bench endpoint [-- SECONDS [ROUNDS]]` starts, in one process
//! on loopback, three servers with a one-tool MCP server behind the first two:
//! - `mrtd`: our full HTTP front (Host/Origin checks, body limit, JSON validation) around rmcp;
//! - `rmcp`: rmcp's `StreamableHttpService` alone, mounted on axum with the same rmcp settings
//!   (and `TCP_NODELAY`), which shows what the protocol layer itself costs;
//! - `bare`: an axum handler that answers `POST /mcp` with the very bytes our endpoint returns.
//!
//! It drives `tools/call` at 1, 16 and 64 keep-alive connections. A shared machine's speed
//! drifts from second to second, so each level runs ROUNDS short rounds (default 6) that take
//! the three servers in turn, each server first in a third of the rounds, and prints the median
//! of the rounds for each: requests per second, p50, p99, and the ratios of mrtd to bare and
//! to rmcp.

use std::{
    net::SocketAddr,
    sync::Arc,
    time::{Duration, Instant},
};

use axum::{Router, body::Body, routing::post};
use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use hyper_util::{client::legacy::Client, rt::TokioExecutor};
use mrtd_server::{HttpConfig, McpEndpoint};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ServerCapabilities,
        ServerConfig,
    },
    service::RequestContext,
};

#[derive(Clone)]
struct Echo;

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text("pong")]).into())
    }
}

const BODY: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

fn request(address: SocketAddr) -> Request<Full<Bytes>> {
    Request::post(format!("http://{address}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo")
        .body(Full::new(Bytes::from_static(BODY.as_bytes())))
        .expect("valid request")
}

async fn spawn(app: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(mrtd_server::http::serve(listener, app, std::future::pending()));
    address
}

#[derive(Clone, Copy)]
struct Figures {
    requests_per_second: f64,
    p50_ms: f64,
    p99_ms: f64,
    failures: u64,
}

async fn load(address: SocketAddr, connections: usize, duration: Duration) -> Figures {
    let client: Client<_, Full<Bytes>> =
        Client::builder(TokioExecutor::new()).pool_max_idle_per_host(connections).build_http();
    let deadline = Instant::now() + duration;
    let mut tasks = Vec::new();
    for _ in 0..connections {
        let client = client.clone();
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut failures = 0u64;
            while Instant::now() < deadline {
                let started = Instant::now();
                match client.request(request(address)).await {
                    Ok(response) if response.status().is_success() => {
                        let body = response.into_body().collect().await.map(|b| b.to_bytes());
                        if body.is_ok_and(|b| b.windows(4).any(|w| w == b"pong")) {
                            latencies.push(started.elapsed());
                        } else {
                            failures += 1;
                        }
                    }
                    _ => failures += 1,
                }
            }
            (latencies, failures)
        }));
    }
    let mut latencies = Vec::new();
    let mut failures = 0;
    for task in tasks {
        let (mine, failed) = task.await.expect("load task");
        latencies.extend(mine);
        failures += failed;
    }
    latencies.sort();
    let quantile = |q: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * q).round() as usize)
            .map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0)
    };
    Figures {
        requests_per_second: latencies.len() as f64 / duration.as_secs_f64(),
        p50_ms: quantile(0.5),
        p99_ms: quantile(0.99),
        failures,
    }
}

/// The median of each figure over the rounds.
fn median(rounds: &[Figures]) -> Figures {
    let pick = |f: fn(&Figures) -> f64| {
        let mut values: Vec<f64> = rounds.iter().map(f).collect();
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    Figures {
        requests_per_second: pick(|f| f.requests_per_second),
        p50_ms: pick(|f| f.p50_ms),
        p99_ms: pick(|f| f.p99_ms),
        failures: rounds.iter().map(|f| f.failures).sum(),
    }
}

fn main() {
    let mut numbers = std::env::args().skip(1).filter_map(|a| a.parse::<f64>().ok());
    let seconds = numbers.next().unwrap_or(3.0);
    let rounds = numbers.next().map_or(6, |n| n.max(1.0) as usize);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async move {
        let config = HttpConfig::default();
        let endpoint = McpEndpoint::new(|| Ok(Echo), &config);
        let ours = spawn(mrtd_server::http::router(endpoint, &config, Router::new())).await;

        // rmcp alone, configured as our endpoint configures it.
        let protocol = StreamableHttpService::new(
            || Ok(Echo),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default()
                .with_legacy_session_mode(false)
                .with_json_response(true)
                .with_sse_keep_alive(Some(Duration::from_secs(15)))
                .with_max_request_body_bytes(config.max_body_bytes.saturating_add(1))
                .disable_allowed_hosts()
                .disable_allowed_origins(),
        );
        let rmcp_alone = spawn(Router::new().route_service("/mcp", protocol)).await;

        // Capture the exact bytes our endpoint answers, so the bare handler returns the same.
        let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
        let response = client.request(request(ours)).await.expect("endpoint answers");
        let content_type = response.headers().get("content-type").cloned();
        let answer = response.into_body().collect().await.expect("body").to_bytes();
        assert!(answer.windows(4).any(|w| w == b"pong"), "the endpoint answered the call");
        let answer = Arc::new(answer);
        let bare = spawn(Router::new().route(
            "/mcp",
            post(move || {
                let answer = answer.clone();
                let content_type = content_type.clone();
                async move {
                    let mut response = Response::new(Body::from((*answer).clone()));
                    if let Some(value) = content_type {
                        response.headers_mut().insert("content-type", value);
                    }
                    response
                }
            }),
        ))
        .await;

        let duration = Duration::from_secs_f64(seconds);
        println!(
            "tools/call on loopback, median of {rounds} rounds of {seconds} s, TCP_NODELAY on every server"
        );
        println!(
            "{:>5}  {:>10} {:>7} {:>7}  {:>10} {:>7} {:>7}  {:>10} {:>7} {:>7}  {:>9} {:>9}",
            "conns",
            "mrtd req/s",
            "p50 ms",
            "p99 ms",
            "rmcp req/s",
            "p50 ms",
            "p99 ms",
            "bare req/s",
            "p50 ms",
            "p99 ms",
            "mrtd/bare",
            "mrtd/rmcp"
        );
        for connections in [1, 16, 64] {
            let (mut mine, mut protocol_only, mut plain) = (Vec::new(), Vec::new(), Vec::new());
            for round in 0..rounds {
                // Each server takes each place in the order in turn, so that whatever the
                // machine does over a round (a frequency step, another process) falls on all
                // three alike.
                for turn in 0..3 {
                    match (round + turn) % 3 {
                        0 => mine.push(load(ours, connections, duration).await),
                        1 => protocol_only.push(load(rmcp_alone, connections, duration).await),
                        _ => plain.push(load(bare, connections, duration).await),
                    }
                }
            }
            let (m, r, b) = (median(&mine), median(&protocol_only), median(&plain));
            let failed = m.failures + r.failures + b.failures;
            println!(
                "{:>5}  {:>10.0} {:>7.3} {:>7.3}  {:>10.0} {:>7.3} {:>7.3}  {:>10.0} {:>7.3} {:>7.3}  {:>8.1}% {:>8.1}%{}",
                connections,
                m.requests_per_second,
                m.p50_ms,
                m.p99_ms,
                r.requests_per_second,
                r.p50_ms,
                r.p99_ms,
                b.requests_per_second,
                b.p50_ms,
                b.p99_ms,
                100.0 * m.requests_per_second / b.requests_per_second,
                100.0 * m.requests_per_second / r.requests_per_second,
                if failed > 0 { format!("  ({failed} failed requests)") } else { String::new() }
            );
        }
    });
}
