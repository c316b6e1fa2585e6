//! Configuration of the HTTP front.

/// Default body limit: 36 MiB, enough for a 24 MiB photo encoded as base64 inside JSON.
pub const DEFAULT_MAX_BODY_BYTES: usize = 36 * 1024 * 1024;

/// Settings of the HTTP front, with safe defaults: loopback hosts only, same-origin
/// browsers only, 36 MiB bodies, no sessions.
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
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()],
            allowed_origins: Vec::new(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            legacy_sessions: false,
            endpoint_path: "/mcp".into(),
        }
    }
}
