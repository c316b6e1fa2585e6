//! Configuration of the HTTP front.

use std::time::Duration;

/// Default body limit: 36 MiB, enough for a 24 MiB photo encoded as base64 inside JSON.
pub const DEFAULT_MAX_BODY_BYTES: usize = 36 * 1024 * 1024;

/// Settings of the HTTP front, with safe defaults: loopback hosts only, same-origin
/// browsers only, 36 MiB bodies, no sessions, and every connection and request bounded
/// in time and size.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Host names (optionally `host:port`) accepted in the `Host` header.
    /// Empty means any host (only sensible behind a proxy that checks it).
    pub allowed_hosts: Vec<String>,
    /// Browser origins (`scheme://host[:port]`) accepted in addition to same-origin requests.
    /// `*` accepts any origin (not recommended).
    pub allowed_origins: Vec<String>,
    /// Largest accepted request body in bytes.
    pub max_body_bytes: usize,
    /// Serve 2025-era clients with `Mcp-Session-Id` sessions (server-initiated requests
    /// work, but a session lives in one process). 2026-07-28 traffic is stateless either way.
    pub legacy_sessions: bool,
    /// Path of the MCP endpoint.
    pub endpoint_path: String,
    /// Limits on connections and requests.
    pub limits: ConnectionLimits,
}

/// How long and how large connections and requests may be. Every bound answers or closes
/// on its own; none waits for the client's good will.
#[derive(Debug, Clone)]
pub struct ConnectionLimits {
    /// Time for a request's head (request line and headers) to arrive, counted from the
    /// moment the connection is ready for it: a new connection, or a kept-alive one after
    /// its last response, so it is also the idle keep-alive timeout.
    pub header_timeout: Duration,
    /// Largest request head in bytes; a larger one is answered `431`.
    pub max_header_bytes: usize,
    /// Longest pause between two pieces of a request body.
    pub body_idle_timeout: Duration,
    /// Time for a whole request body to arrive.
    pub body_timeout: Duration,
    /// Time from a request's head to its response's head (body, waiting and work included).
    pub request_timeout: Duration,
    /// Longest time a response may wait for the client to take more of it: a write to the
    /// socket that makes no progress for this long closes the connection and frees the
    /// response, so a client that never reads cannot pin either.
    pub response_timeout: Duration,
    /// Connections open at once; further clients wait in the listen backlog. Lowered at
    /// start to leave file descriptors for the database and image files.
    pub max_connections: usize,
    /// Connections one client address (an IPv6 address's /64) may hold open at once, so
    /// that one client cannot take every slot of `max_connections`; a further connection
    /// from it is closed before anything is read. 0 means no cap (behind a proxy every
    /// connection comes from the proxy's address).
    pub max_connections_per_address: usize,
    /// Request bodies held in memory at once, in bytes, across all requests; a request
    /// that would go over it is answered `503` with `Retry-After`.
    pub max_body_memory_bytes: usize,
    /// Peers (a reverse proxy) whose `X-Forwarded-For` or `Forwarded` names the client: the
    /// address the failed-login throttle, the access log and the rest count per. Their own
    /// connections are not held to `max_connections_per_address`. None by default: every
    /// header is ignored and the peer is the client.
    pub trusted_proxies: crate::client_address::TrustedProxies,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            header_timeout: Duration::from_secs(15),
            max_header_bytes: 32 * 1024,
            body_idle_timeout: Duration::from_secs(15),
            body_timeout: Duration::from_secs(120),
            request_timeout: Duration::from_secs(180),
            response_timeout: Duration::from_secs(30),
            max_connections: 1024,
            max_connections_per_address: 64,
            max_body_memory_bytes: 256 * 1024 * 1024,
            trusted_proxies: crate::client_address::TrustedProxies::default(),
        }
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()],
            allowed_origins: Vec::new(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            legacy_sessions: false,
            endpoint_path: "/mcp".into(),
            limits: ConnectionLimits::default(),
        }
    }
}
