//! The HTTP listener: routing, connection limits, `TCP_NODELAY`, graceful shutdown.
//!
//! axum's own `serve` offers no timeouts and no connection cap, so connections are served
//! here with hyper's HTTP/1 server directly: the request head must arrive within
//! [`ConnectionLimits::header_timeout`] (on a new connection and on a kept-alive one
//! waiting for its next request alike), a head over [`ConnectionLimits::max_header_bytes`]
//! is answered `431`, a response must start within [`ConnectionLimits::request_timeout`],
//! a connection whose client stops taking its response is closed once a write has waited
//! [`ConnectionLimits::response_timeout`], at most [`ConnectionLimits::max_connections`]
//! connections are open at once, and at most
//! [`ConnectionLimits::max_connections_per_address`] of them from one client address (but
//! a trusted proxy). Each request carries its [`ClientAddress`].
//! Request bodies are bounded where they are read (`auth`'s guard).

use std::{convert::Infallible, future::Future, net::SocketAddr, sync::Arc, time::Duration};

use axum::{Router, body::Body, extract::ConnectInfo};
use http::{Request, StatusCode};
use hyper::{body::Incoming, server::conn::http1};
use hyper_util::{
    rt::{TokioIo, TokioTimer},
    server::graceful::GracefulShutdown,
    service::TowerToHyperService,
};
use tokio::{net::TcpListener, sync::Semaphore};
use tower::ServiceExt;
use tower_http::timeout::TimeoutLayer;

use crate::{
    ClientAddress, ConnectionLimits, HttpConfig, McpEndpoint, per_address::AddressSlots,
    write_timeout::WriteTimeout,
};

/// Mounts the MCP endpoint at its configured path next to the routes in `rest`.
pub fn router(endpoint: McpEndpoint, config: &HttpConfig, rest: Router) -> Router {
    let endpoint = Arc::new(endpoint);
    // A service rather than a handler: axum passes the request on as it is, without the
    // extractor and response machinery a handler goes through.
    rest.route_service(
        &config.endpoint_path,
        tower::service_fn(move |request: Request<Body>| {
            let endpoint = Arc::clone(&endpoint);
            async move { Ok::<_, Infallible>(endpoint.handle(request).await) }
        }),
    )
}

/// Resolves on Ctrl-C or SIGTERM: the shutdown future both binaries hand to [`serve`].
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}

/// Serves `app` on `listener` with the default [`ConnectionLimits`] until `shutdown`
/// completes, then lets in-flight requests finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_with(listener, app, &ConnectionLimits::default(), shutdown).await
}

/// Serves `app` on `listener` within `limits` until `shutdown` completes, then lets
/// in-flight requests finish.
///
/// Every accepted socket gets `TCP_NODELAY`: MCP responses are small, and without it
/// Nagle's algorithm holds each one back until the client's delayed ACK (about 44 ms).
/// Handlers find the peer's address as axum's [`ConnectInfo<SocketAddr>`].
pub async fn serve_with(
    listener: TcpListener,
    app: Router,
    limits: &ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let max_connections = effective_max_connections(limits.max_connections);
    let slots = Arc::new(Semaphore::new(max_connections));
    let address_slots = AddressSlots::new(limits.max_connections_per_address);
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_header_size(limits.max_header_bytes)
        // The read buffer must hold the largest head; hyper refuses a buffer under 8 KiB.
        .max_buf_size(limits.max_header_bytes.max(8192).saturating_add(8192));
    let app = app
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, limits.request_timeout));
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = slots.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    accept_failed(&error).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // An address that holds its share of the connections already is closed before
        // anything is read, so that it cannot take the slots other clients need.
        // A trusted proxy carries many clients' connections; their share is its to keep.
        let proxied = limits.trusted_proxies.contains(peer.ip());
        let address_slot = if proxied { None } else { address_slots.try_take(peer.ip()) };
        if address_slot.is_none() && !proxied {
            tracing::debug!("a client address holds its share of the connections; closed");
            drop(stream);
            continue;
        }
        if let Err(error) = stream.set_nodelay(true) {
            tracing::warn!(%error, "could not set TCP_NODELAY on an accepted socket");
        }
        let proxies = limits.trusted_proxies.clone();
        let service = app.clone().map_request(move |mut request: Request<Incoming>| {
            let client = proxies.client(peer.ip(), request.headers());
            request.extensions_mut().insert(ConnectInfo(peer));
            request.extensions_mut().insert(ClientAddress(client));
            request
        });
        // Large frames go to hyper in pieces, so that a response keeps what its body holds
        // until the client has taken it (see `pieces`).
        let service = service.map_response(|response: axum::response::Response| {
            response.map(crate::pieces::InPieces::wrap)
        });
        // hyper would wait forever for a client that does not read; the wrapper makes a
        // write that stalls for the response timeout an error, which closes the connection.
        let stream = WriteTimeout::new(stream, limits.response_timeout);
        let connection =
            builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A connection that ends badly (a timeout, a reset) concerns only its client.
            if let Err(error) = connection.await {
                tracing::debug!(%error, "connection closed with an error");
            }
            drop((permit, address_slot));
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// The connection cap actually used: the configured one, lowered so that the open
/// connections leave a quarter of the process's file descriptors (at least 64) free for
/// the database, image files and the listener.
fn effective_max_connections(configured: usize) -> usize {
    let configured = configured.max(1);
    #[cfg(unix)]
    {
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
        if let Some(limit) = limit.and_then(|l| usize::try_from(l).ok()) {
            let reserve = (limit / 4).max(64);
            let usable = limit.saturating_sub(reserve).max(1);
            if usable < configured {
                tracing::info!(
                    max_connections = usable,
                    "the connection cap is lowered to fit the file descriptor limit"
                );
                return usable;
            }
        }
    }
    configured
}

/// An accept that failed: a connection the client gave up on is skipped at once; running
/// out of descriptors or memory waits a moment, as retrying at once would spin.
async fn accept_failed(error: &std::io::Error) {
    use std::io::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset | ErrorKind::ConnectionRefused
    ) {
        return;
    }
    tracing::error!(%error, "accepting a connection failed");
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// The client's address, when the request came through [`serve_with`]: the peer's, or the
/// one a trusted proxy reported ([`crate::TrustedProxies`]); else the peer's, where only
/// that is known.
pub fn client_address<B>(request: &Request<B>) -> Option<std::net::IpAddr> {
    match request.extensions().get::<ClientAddress>() {
        Some(client) => Some(client.0),
        None => peer_address(request).map(|peer| peer.ip()),
    }
}

pub use crate::pieces::keep_with_body;

/// The peer's address, when the request came through [`serve_with`].
pub fn peer_address<B>(request: &Request<B>) -> Option<SocketAddr> {
    request.extensions().get::<ConnectInfo<SocketAddr>>().map(|info| info.0)
}
