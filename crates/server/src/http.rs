//! The HTTP listener: routing, `TCP_NODELAY`, graceful shutdown.

use std::future::Future;

use axum::{Router, body::Body, routing::any, serve::ListenerExt};
use http::Request;
use tokio::net::TcpListener;

use crate::{HttpConfig, McpEndpoint};

/// Mounts the MCP endpoint at its configured path next to the routes in `rest`.
pub fn router(endpoint: McpEndpoint, config: &HttpConfig, rest: Router) -> Router {
    rest.route(
        &config.endpoint_path,
        any(move |request: Request<Body>| {
            let endpoint = endpoint.clone();
            async move { endpoint.handle(request).await }
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

/// Serves `app` on `listener` until `shutdown` completes, then lets in-flight requests finish.
///
/// Every accepted socket gets `TCP_NODELAY`: MCP responses are small, and without it
/// Nagle's algorithm holds each one back until the client's delayed ACK (about 44 ms).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let listener = listener.tap_io(|stream| {
        if let Err(error) = stream.set_nodelay(true) {
            tracing::warn!(%error, "could not set TCP_NODELAY on an accepted socket");
        }
    });
    axum::serve(listener, app).with_graceful_shutdown(shutdown).await
}
