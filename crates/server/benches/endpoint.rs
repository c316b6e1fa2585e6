//! Throughput and latency of the MCP endpoint against a bare axum handler.
//!
//! `cargo bench -p mrtd-server --bench endpoint [-- SECONDS [ROUNDS]]` starts, in one process
//! on loopback, three servers with a one-tool MCP server behind the first two:
//! - `mrtd`: our HTTP front (Host/Origin checks, body limit, JSON-RPC errors for what rmcp
//!   refuses) around rmcp;
//! - `rmcp`: rmcp's `StreamableHttpService` alone, mounted on axum with the same rmcp settings
//!   (and `TCP_NODELAY`), which shows what the protocol layer itself costs;
//! - `bare`: an axum handler that answers `POST /mcp` with the very bytes our endpoint returns.
//!
//! It drives `tools/call` at 1, 16 and 64 keep-alive connections. A shared machine's speed
//! drifts from second to second, so each level runs ROUNDS short rounds (default 6) that take
//! the three servers in turn, each server first in a third of the rounds, and prints the median
//! of the rounds for each: requests per second, p50, p99, and the ratios of mrtd to bare and
//! to rmcp. Each server runs on a runtime of its own whose threads carry its name, apart from
//! the load generator's, and the bench also prints the CPU time those threads spent per
//! request over all rounds (from `/proc/self/task`): what each server costs, apart from what
//! the client costs. On a small machine shared with the client both figures move by ten
//! percent or more from run to run; compare runs, not single rows.
//!
//! `endpoint serve mrtd|guarded|rmcp|bare` runs one of the servers alone (`guarded`: `mrtd`
//! behind the guard `mrtd serve` puts in front of every route), and `endpoint load ADDRESS N`
//! sends it N requests: `scripts/endpoint-instructions.sh` counts each server's instructions per
//! request with them under callgrind, a figure that does not drift.

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
use mrtd_server::auth::{AuthGuard, AuthMode, AuthSettings};
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

/// A server under test: its own runtime, whose threads all carry `name`, so that the CPU
/// time it spends can be told from the load generator's.
struct Server {
    name: &'static str,
    runtime: tokio::runtime::Runtime,
    address: SocketAddr,
}

impl Server {
    fn start(name: &'static str, app: impl FnOnce() -> Router) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .thread_name(name)
            .enable_all()
            .build()
            .expect("server runtime");
        let address = runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let address = listener.local_addr().expect("address");
            tokio::spawn(mrtd_server::http::serve(listener, app(), std::future::pending()));
            address
        });
        Server { name, runtime, address }
    }

    /// CPU time (user and system) its threads have used so far, in clock ticks (USER_HZ,
    /// 100 a second on Linux); `None` where `/proc` cannot tell.
    fn cpu_ticks(&self) -> Option<u64> {
        let mut ticks = 0;
        for task in std::fs::read_dir("/proc/self/task").ok()? {
            let path = task.ok()?.path();
            let Ok(comm) = std::fs::read_to_string(path.join("comm")) else { continue };
            if comm.trim_end() != self.name {
                continue;
            }
            let Ok(stat) = std::fs::read_to_string(path.join("stat")) else { continue };
            // The fields after the parenthesised command name: state is the 3rd field of
            // the line, utime the 14th and stime the 15th.
            let rest = &stat[stat.rfind(')')? + 1..];
            let fields: Vec<&str> = rest.split_whitespace().collect();
            ticks += fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        }
        Some(ticks)
    }
}

#[derive(Clone, Copy)]
struct Figures {
    requests: u64,
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
        requests: latencies.len() as u64,
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
        requests: rounds.iter().map(|f| f.requests).sum(),
        requests_per_second: pick(|f| f.requests_per_second),
        p50_ms: pick(|f| f.p50_ms),
        p99_ms: pick(|f| f.p99_ms),
        failures: rounds.iter().map(|f| f.failures).sum(),
    }
}

/// One server's rounds at one connection count, and the CPU its threads spent in them
/// (`None` once a round could not be measured).
struct Measured {
    rounds: Vec<Figures>,
    cpu_ticks: Option<u64>,
}

impl Measured {
    fn new() -> Self {
        Measured { rounds: Vec::new(), cpu_ticks: Some(0) }
    }

    async fn round(&mut self, server: &Server, connections: usize, duration: Duration) {
        let before = server.cpu_ticks();
        self.rounds.push(load(server.address, connections, duration).await);
        let spent = before.zip(server.cpu_ticks()).map(|(b, a)| a.saturating_sub(b));
        self.cpu_ticks = self.cpu_ticks.zip(spent).map(|(total, spent)| total + spent);
    }

    /// Microseconds of server CPU per answered request over all rounds.
    fn cpu_us_per_request(&self) -> Option<f64> {
        let requests: u64 = self.rounds.iter().map(|f| f.requests).sum();
        let ticks = self.cpu_ticks?;
        (requests > 0).then(|| ticks as f64 * 10_000.0 / requests as f64)
    }
}

/// Our full front around the one-tool server.
fn start_mrtd(config: &HttpConfig) -> Server {
    Server::start("bench-mrtd", || {
        let endpoint = McpEndpoint::new(|| Ok(Echo), config);
        mrtd_server::http::router(endpoint, config, Router::new())
    })
}

/// The front as `mrtd serve` runs it without authentication: the guard (the body read within
/// its limits and timeouts, the scan of the body for what it needs, the recognition gate)
/// around the endpoint, without a rate limit.
fn start_guarded(config: &HttpConfig) -> Server {
    Server::start("bench-guarded", || {
        let settings = AuthSettings {
            rate_limit: None,
            failure_limit: None,
            ..AuthSettings::new(AuthMode::None)
        };
        let guard = AuthGuard::new(settings, config);
        let endpoint = McpEndpoint::new(|| Ok(Echo), config);
        guard.protect(mrtd_server::http::router(endpoint, config, Router::new()))
    })
}

/// rmcp alone, configured as our endpoint configures it.
fn start_rmcp(config: &HttpConfig) -> Server {
    Server::start("bench-rmcp", || {
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
        Router::new().route_service("/mcp", protocol)
    })
}

/// An axum handler answering `POST /mcp` with the very bytes our endpoint answers (asked of
/// `ours` with `client_runtime`).
fn start_bare(ours: &Server, client_runtime: &tokio::runtime::Runtime) -> Server {
    let (answer, content_type) = client_runtime.block_on(async {
        let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
        let response = client.request(request(ours.address)).await.expect("endpoint answers");
        let content_type = response.headers().get("content-type").cloned();
        let answer = response.into_body().collect().await.expect("body").to_bytes();
        (answer, content_type)
    });
    assert!(answer.windows(4).any(|w| w == b"pong"), "the endpoint answered the call");
    Server::start("bench-bare", move || {
        Router::new().route(
            "/mcp",
            post(move || {
                let answer = answer.clone();
                let content_type = content_type.clone();
                async move {
                    let mut response = Response::new(Body::from(answer));
                    if let Some(value) = content_type {
                        response.headers_mut().insert("content-type", value);
                    }
                    response
                }
            }),
        )
    })
}

/// `serve NAME`: one server alone, its address on stdout, until stdin closes; for counting
/// the instructions a server spends per request under callgrind
/// (`scripts/endpoint-instructions.sh`), with the load from another, uninstrumented process.
fn serve_alone(name: &str, config: &HttpConfig) {
    let client_runtime = tokio::runtime::Runtime::new().expect("runtime");
    let server = match name {
        "mrtd" => start_mrtd(config),
        "guarded" => start_guarded(config),
        "rmcp" => start_rmcp(config),
        "bare" => start_bare(&start_mrtd(config), &client_runtime),
        other => panic!("serve mrtd, guarded, rmcp or bare, not {other}"),
    };
    println!("{}", server.address);
    std::io::Write::flush(&mut std::io::stdout()).expect("stdout");
    let mut sink = String::new();
    while std::io::stdin().read_line(&mut sink).is_ok_and(|n| n > 0) {}
    server.runtime.shutdown_background();
}

/// `load ADDRESS N`: N `tools/call` requests one after another on one connection.
fn load_alone(address: &str, count: usize) {
    let address: SocketAddr = address.parse().expect("an address");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
        for _ in 0..count {
            let response = client.request(request(address)).await.expect("the server answers");
            assert!(response.status().is_success());
            let body = response.into_body().collect().await.expect("a body").to_bytes();
            assert!(body.windows(4).any(|w| w == b"pong"), "the tool answered");
        }
    });
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let config = HttpConfig::default();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["serve", name] => return serve_alone(name, &config),
        ["load", address, count] => {
            return load_alone(address, count.parse().expect("a request count"));
        }
        _ => {}
    }
    let mut numbers = args.iter().filter_map(|a| a.parse::<f64>().ok());
    let seconds = numbers.next().unwrap_or(3.0);
    let rounds = numbers.next().map_or(6, |n| n.max(1.0) as usize);
    let ours = start_mrtd(&config);
    let rmcp_alone = start_rmcp(&config);
    // The load generator runs on a runtime of its own, apart from the servers'.
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let bare = start_bare(&ours, &runtime);

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
    let mut costs = Vec::new();
    for connections in [1, 16, 64] {
        let (mut mine, mut protocol_only, mut plain) =
            (Measured::new(), Measured::new(), Measured::new());
        runtime.block_on(async {
            for round in 0..rounds {
                // Each server takes each place in the order in turn, so that whatever the
                // machine does over a round (a frequency step, another process) falls on all
                // three alike.
                for turn in 0..3 {
                    match (round + turn) % 3 {
                        0 => mine.round(&ours, connections, duration).await,
                        1 => protocol_only.round(&rmcp_alone, connections, duration).await,
                        _ => plain.round(&bare, connections, duration).await,
                    }
                }
            }
        });
        let (m, r, b) =
            (median(&mine.rounds), median(&protocol_only.rounds), median(&plain.rounds));
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
        costs.push((
            connections,
            mine.cpu_us_per_request(),
            protocol_only.cpu_us_per_request(),
            plain.cpu_us_per_request(),
        ));
    }
    // Throughput counts the client's work too; the CPU time each server's own threads spend
    // per request is the server's cost alone.
    println!("\nserver CPU time per request (user and system, all rounds), lower is better");
    println!(
        "{:>5}  {:>9} {:>9} {:>9}  {:>9} {:>9}",
        "conns", "mrtd µs", "rmcp µs", "bare µs", "mrtd/rmcp", "rmcp/bare"
    );
    let show = |v: Option<f64>| v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.1}"));
    let ratio = |a: Option<f64>, b: Option<f64>| {
        a.zip(b).map_or_else(|| "n/a".to_owned(), |(a, b)| format!("{:.1}%", 100.0 * a / b))
    };
    for (connections, m, r, b) in costs {
        println!(
            "{:>5}  {:>9} {:>9} {:>9}  {:>9} {:>9}",
            connections,
            show(m),
            show(r),
            show(b),
            ratio(m, r),
            ratio(r, b)
        );
    }
    for server in [ours, rmcp_alone, bare] {
        server.runtime.shutdown_background();
    }
}
