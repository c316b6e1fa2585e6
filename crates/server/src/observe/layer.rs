//! The request middleware: a tracing span and the request metrics for every request.

use std::{sync::Arc, time::Instant};

use axum::{
    body::Body,
    extract::{MatchedPath, State},
    middleware::Next,
    response::Response,
};
use http::{Method, Request};
use tracing::{Instrument, field::Empty};

use super::{HTTP_IN_FLIGHT, HTTP_REQUEST_DURATION, HTTP_REQUESTS, RequestSpan, RpcMethodSlot};

/// What the middleware needs to know about the server.
#[derive(Debug)]
pub(super) struct Tracker {
    /// Path of the MCP endpoint, whose requests are labelled by JSON-RPC method.
    pub(super) endpoint_path: String,
}

/// The log target of the access lines, one per request (`RUST_LOG=mrtd::access=off` hides
/// them).
const ACCESS_TARGET: &str = "mrtd::access";

/// Route label of a request no route matched; raw paths would let clients mint series.
const UNMATCHED: &str = "unmatched";

pub(super) async fn track(
    State(tracker): State<Arc<Tracker>>,
    mut request: Request<Body>,
    next: Next,
) -> Response {
    let start = Instant::now();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| UNMATCHED.to_owned(), |path| path.as_str().to_owned());
    let http_method = method_label(request.method());
    let is_mcp = route == tracker.endpoint_path && request.method() == Method::POST;
    let client = crate::http::client_address(&request);

    let span = tracing::info_span!(
        "request",
        http.method = http_method,
        http.route = %route,
        rpc.method = Empty,
        http.status = Empty,
        latency_ms = Empty,
    );
    request.extensions_mut().insert(RequestSpan(span.clone()));

    // The body is never read here: the guard must be the first to look at a request. The
    // guard, which reads and parses it, leaves the JSON-RPC method's label in this slot.
    let rpc_method = is_mcp.then(RpcMethodSlot::default);
    if let Some(slot) = &rpc_method {
        request.extensions_mut().insert(slot.clone());
    }

    let in_flight = InFlight::enter();
    let response = next.run(request).instrument(span.clone()).await;
    drop(in_flight);

    let elapsed = start.elapsed();
    let method = rpc_method.map_or(http_method, |slot| slot.get().as_str());
    let status = response.status();
    span.record("rpc.method", method);
    span.record("http.status", status.as_u16());
    // Tenths of a millisecond: what a person reading the line can use, without float noise.
    let latency_ms = (elapsed.as_secs_f64() * 10_000.0).round() / 10.0;
    span.record("latency_ms", latency_ms);
    // The access line: route templates, never raw paths (a scan id is the caller's
    // handle), the JSON-RPC method from a fixed list, the tool when the guard recognised a
    // published one, the principal's stable id (a key id or an OAuth issuer and subject),
    // the client address (behind a trusted proxy, the one it reported),
    // never a credential, an argument or document data. The route, methods, status and
    // latency are the request span's fields, which every log format prints with the line;
    // the line adds only what the span does not hold.
    let principal = response.extensions().get::<crate::auth::Principal>().map(|p| p.0.as_str());
    let client = client.map(tracing::field::display);
    let tool = response.extensions().get::<super::ToolLabel>().map(|t| t.0.as_str());
    if status.is_server_error() {
        tracing::warn!(target: ACCESS_TARGET, parent: &span, tool, principal, client, "request failed");
    } else if is_probe(&route) {
        // Health probes and scrapes come every few seconds: worth a line only when asked.
        tracing::debug!(target: ACCESS_TARGET, parent: &span, tool, principal, client, "request");
    } else {
        tracing::info!(target: ACCESS_TARGET, parent: &span, tool, principal, client, "request");
    }

    let status_label = status_label(status.as_u16());
    metrics::counter!(
        HTTP_REQUESTS,
        "route" => route.clone(),
        "method" => method,
        "status" => status_label,
    )
    .increment(1);
    metrics::histogram!(HTTP_REQUEST_DURATION, "route" => route, "method" => method)
        .record(elapsed.as_secs_f64());
    response
}

/// Whether `route` is one a load balancer, an orchestrator or a metrics scraper polls.
fn is_probe(route: &str) -> bool {
    matches!(route, "/healthz" | "/livez" | "/readyz" | "/metrics")
}

/// Counts a request as in flight until it is dropped, even if the client goes away.
struct InFlight;

impl InFlight {
    fn enter() -> Self {
        metrics::gauge!(HTTP_IN_FLIGHT).increment(1.0);
        InFlight
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        metrics::gauge!(HTTP_IN_FLIGHT).decrement(1.0);
    }
}

fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "OTHER",
    }
}

/// The status as a static string, so recording allocates nothing for it.
fn status_label(status: u16) -> metrics::SharedString {
    const COMMON: &[(u16, &str)] = &[
        (200, "200"),
        (202, "202"),
        (204, "204"),
        (400, "400"),
        (401, "401"),
        (403, "403"),
        (404, "404"),
        (405, "405"),
        (406, "406"),
        (413, "413"),
        (415, "415"),
        (429, "429"),
        (500, "500"),
        (503, "503"),
    ];
    match COMMON.iter().find(|(code, _)| *code == status) {
        Some((_, label)) => metrics::SharedString::const_str(label),
        None => metrics::SharedString::from(status.to_string()),
    }
}
