//! Observability: Prometheus metrics, health probes, a tracing span per request, and W3C
//! trace context continued from MCP `_meta`.
//!
//! Libraries record through the [`metrics`] facade (a no-op until a recorder is
//! installed, so tests and the stdio server pay nothing); the binary installs the
//! Prometheus recorder once with [`Observability::install`] and serves it on `/metrics`.
//!
//! # Wiring (what `mrtd serve` does)
//!
//! ```no_run
//! # async fn example(store_ping: fn() -> std::future::Ready<Result<(), std::io::Error>>)
//! # -> Result<(), Box<dyn std::error::Error>> {
//! use mrtd_server::{HttpConfig, McpEndpoint, auth::{AuthGuard, AuthMode, AuthSettings}};
//! use mrtd_server::observe::{Observability, Readiness};
//! # #[derive(Clone)] struct Handler;
//! # impl rmcp::ServerHandler for Handler {}
//! let http = HttpConfig::default();
//! // 1. Once, inside the Tokio runtime, before anything records.
//! let obs = Observability::install(&http)?;
//! // 2. The probes and /metrics join the other routes *inside* the guard: the guard lets
//! //    /healthz, /livez and /readyz through unauthenticated (they are public paths) and
//! //    treats /metrics as a protected REST read (scans:read with OAuth).
//! let readiness = Readiness::new().check("store", move || store_ping());
//! let rest = axum::Router::new().merge(obs.routes(readiness));
//! let endpoint = McpEndpoint::new(|| Ok(Handler), &http);
//! let guard = AuthGuard::new(AuthSettings::new(AuthMode::None), &http);
//! // 3. `track` goes outermost, last, so refusals by the guard are measured too.
//! let app = obs.track(guard.protect(mrtd_server::http::router(endpoint, &http, rest)));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! mrtd_server::http::serve(listener, app, mrtd_server::http::shutdown_signal()).await?;
//! # Ok(())
//! # }
//! ```
//!
//! `track` only sees routes that exist when it is called, so call it on the finished router.
//!
//! # Metrics
//!
//! | name | kind | labels |
//! |---|---|---|
//! | `mrtd_http_requests_total` | counter | `route` (matched route or `unmatched`), `method` (JSON-RPC method on the MCP endpoint, else the HTTP method), `status` |
//! | `mrtd_http_request_duration_seconds` | histogram | `route`, `method` |
//! | `mrtd_http_requests_in_flight` | gauge | |
//! | `mrtd_readiness_failures_total` | counter | `check` (counted per run of the checks, not per probe) |
//!
//! The layers above record their own metrics through the same facade (the recognitions
//! and store failures in `mrtd-service`, the tool calls in `mrtd-mcp`) and hand their
//! histogram buckets to [`Observability::install_with`].
//!
//! The JSON-RPC method is named by the auth guard, which reads and parses the body (see
//! [`RpcMethodSlot`]). Methods outside the MCP set are labelled `other`, bodies without one
//! `invalid`, batches `batch` and bodies nobody read (refused first, or no guard in front
//! of the endpoint) `unread`, so clients cannot create series at will.

mod health;
mod layer;
#[cfg(feature = "otel")]
pub mod otel;
mod rpc_method;
pub mod trace;

use std::{
    sync::{Arc, Mutex, PoisonError},
    time::Duration,
};

use axum::{Router, response::IntoResponse, routing::get};
use http::{HeaderValue, StatusCode, header};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

pub use health::{CHECK_CACHE, CHECK_TIMEOUT, Readiness};
pub use rpc_method::{RpcMethod, RpcMethodSlot};
pub use trace::{TraceParent, valid_tracestate};

use crate::HttpConfig;

/// Counter of HTTP requests.
pub const HTTP_REQUESTS: &str = "mrtd_http_requests_total";
/// Histogram of HTTP request latency, in seconds, to the response head.
pub const HTTP_REQUEST_DURATION: &str = "mrtd_http_request_duration_seconds";
/// Gauge of HTTP requests being answered.
pub const HTTP_IN_FLIGHT: &str = "mrtd_http_requests_in_flight";
/// Always 1, labelled with the version of the running build.
pub const BUILD_INFO: &str = "mrtd_build_info";
/// Counter of failed readiness checks.
pub const READINESS_FAILURES: &str = "mrtd_readiness_failures_total";

/// Buckets of the HTTP latency histogram, in seconds: small MCP calls to slow scans.
const HTTP_BUCKETS: &[f64] =
    &[0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

/// The Prometheus recorder, installed at most once per process.
static INSTALLED: Mutex<Option<PrometheusHandle>> = Mutex::new(None);

/// Errors from [`Observability::install`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ObserveError {
    /// Another metrics recorder is already installed in this process.
    #[error("another metrics recorder is already installed")]
    RecorderTaken,
    /// The histogram buckets were refused.
    #[error("the metrics recorder could not be built: {0}")]
    Build(#[from] metrics_exporter_prometheus::BuildError),
    /// The OpenTelemetry exporter could not be set up (feature `otel`).
    #[error("the OpenTelemetry exporter could not be set up: {0}")]
    Otel(String),
}

/// The installed metrics recorder and what the request middleware needs; cheap to clone.
#[derive(Clone)]
pub struct Observability {
    handle: PrometheusHandle,
    tracker: Arc<layer::Tracker>,
}

impl std::fmt::Debug for Observability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observability").field("tracker", &self.tracker).finish_non_exhaustive()
    }
}

impl Observability {
    /// Installs the Prometheus recorder as the process's metrics recorder (once; later
    /// calls share it) and returns the handle that serves and tracks.
    ///
    /// Called inside a Tokio runtime, it also starts a task that trims the histograms'
    /// sample buffers every few seconds, so memory stays flat when nobody scrapes.
    pub fn install(http: &HttpConfig) -> Result<Self, ObserveError> {
        Self::install_with(http, &[])
    }

    /// [`install`](Self::install), with the buckets of the histograms the libraries above
    /// this crate record (`(name, upper bounds in seconds)`); the first install decides.
    pub fn install_with(
        http: &HttpConfig,
        histograms: &[(&str, &[f64])],
    ) -> Result<Self, ObserveError> {
        let mut installed = INSTALLED.lock().unwrap_or_else(PoisonError::into_inner);
        let handle = match &*installed {
            Some(handle) => handle.clone(),
            None => {
                let mut builder = PrometheusBuilder::new().set_buckets_for_metric(
                    Matcher::Full(HTTP_REQUEST_DURATION.to_owned()),
                    HTTP_BUCKETS,
                )?;
                for (name, buckets) in histograms {
                    builder = builder
                        .set_buckets_for_metric(Matcher::Full((*name).to_owned()), buckets)?;
                }
                let recorder = builder.build_recorder();
                let handle = recorder.handle();
                metrics::set_global_recorder(recorder).map_err(|_| ObserveError::RecorderTaken)?;
                describe();
                metrics_process::Collector::default().describe();
                metrics::gauge!(BUILD_INFO, "version" => env!("CARGO_PKG_VERSION")).set(1.0);
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    let upkeep = handle.clone();
                    runtime.spawn(async move {
                        let mut interval = tokio::time::interval(Duration::from_secs(5));
                        loop {
                            interval.tick().await;
                            upkeep.run_upkeep();
                        }
                    });
                }
                *installed = Some(handle.clone());
                handle
            }
        };
        Ok(Observability {
            handle,
            tracker: Arc::new(layer::Tracker { endpoint_path: http.endpoint_path.clone() }),
        })
    }

    /// The metrics in the Prometheus text format, as `/metrics` serves them.
    pub fn render(&self) -> String {
        self.handle.render()
    }

    /// `/metrics`, `/healthz`, `/livez` and `/readyz` (running `readiness` at most once per
    /// [`CHECK_CACHE`], whatever the number of probes, and answering from its last run
    /// meanwhile).
    ///
    /// Merge these into the router the auth guard protects: the probes are public paths
    /// the guard lets through, `/metrics` is not.
    pub fn routes(&self, readiness: Readiness) -> Router {
        let handle = self.handle.clone();
        let process = Arc::new(metrics_process::Collector::default());
        health::routes(readiness).route(
            "/metrics",
            get(move || {
                let handle = handle.clone();
                let process = process.clone();
                async move {
                    // The process's own figures, read from the OS at each scrape.
                    process.collect();
                    let mut response = (StatusCode::OK, handle.render()).into_response();
                    response.headers_mut().insert(
                        header::CONTENT_TYPE,
                        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
                    );
                    response
                }
            }),
        )
    }

    /// Wraps every route of `app` in the request middleware: a `request` span (HTTP method,
    /// route, JSON-RPC method, status, latency) around the request, the HTTP metrics, and a
    /// [`RequestSpan`] in the request's extensions so handlers can attach their spans to it.
    pub fn track(&self, app: Router) -> Router {
        app.layer(axum::middleware::from_fn_with_state(self.tracker.clone(), layer::track))
    }
}

fn describe() {
    metrics::describe_gauge!(BUILD_INFO, "Always 1; the label names the running version");
    metrics::describe_counter!(HTTP_REQUESTS, "HTTP requests answered");
    metrics::describe_histogram!(
        HTTP_REQUEST_DURATION,
        metrics::Unit::Seconds,
        "Time to answer an HTTP request (to the response head)"
    );
    metrics::describe_gauge!(HTTP_IN_FLIGHT, "HTTP requests being answered");
    metrics::describe_counter!(READINESS_FAILURES, "Failed readiness checks");
}

/// The span of the HTTP request being answered, put into its extensions by
/// [`Observability::track`], so work done for it elsewhere can be its child.
#[derive(Debug, Clone)]
pub struct RequestSpan(pub tracing::Span);

/// The tool a request called, as the guard recognised it among the published tools; the
/// access line logs it (a response extension).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolLabel(pub String);

/// Longest tool name written into a span; names are the client's text.
const SPAN_TOOL_NAME_LIMIT: usize = 64;

/// The span of one tool call: a child of the HTTP request's span when there is one, with
/// the caller's W3C trace context from `_meta` recorded as `trace_id`, `parent_span_id`,
/// `trace_sampled` and `tracestate` when (and only when) it parses.
pub fn tool_call_span(
    tool: &str,
    traceparent: Option<&str>,
    tracestate: Option<&str>,
    request: Option<&RequestSpan>,
) -> tracing::Span {
    let tool = match tool.char_indices().nth(SPAN_TOOL_NAME_LIMIT) {
        Some((cut, _)) => &tool[..cut],
        None => tool,
    };
    // Without an HTTP request (stdio), the span joins whatever span is current.
    let span = match request {
        Some(RequestSpan(parent)) => tracing::info_span!(
            parent: parent,
            "tool_call",
            tool = tool,
            trace_id = tracing::field::Empty,
            parent_span_id = tracing::field::Empty,
            trace_sampled = tracing::field::Empty,
            tracestate = tracing::field::Empty,
        ),
        None => tracing::info_span!(
            "tool_call",
            tool = tool,
            trace_id = tracing::field::Empty,
            parent_span_id = tracing::field::Empty,
            trace_sampled = tracing::field::Empty,
            tracestate = tracing::field::Empty,
        ),
    };
    if let Some(context) = traceparent.and_then(TraceParent::parse) {
        span.record("trace_id", context.trace_id_hex());
        span.record("parent_span_id", context.parent_id_hex());
        span.record("trace_sampled", context.sampled());
        let state = tracestate.and_then(valid_tracestate);
        if let Some(state) = state {
            span.record("tracestate", state);
        }
        #[cfg(feature = "otel")]
        otel::continue_trace(&span, &context, state);
    }
    span
}
