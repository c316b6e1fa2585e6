//! `Host` and `Origin` validation, the first thing every request meets.
//!
//! A browser page on a foreign site can make a victim's browser send requests to a
//! server on loopback; a DNS-rebinding page can even make the request look
//! same-origin. Checking `Host` against an allowlist defeats rebinding, and checking
//! `Origin` (same-origin or an explicit allowlist) defeats cross-site requests.

use http::{HeaderMap, StatusCode, Uri, header};

use crate::HttpConfig;

/// Why a request was refused before reaching the protocol layer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestRejection {
    /// The `Host` header names a host this server does not serve.
    #[error("Forbidden: Host header is not allowed")]
    HostNotAllowed,
    /// The `Origin` header names a site that may not call this server.
    #[error("Forbidden: Origin is not allowed")]
    OriginNotAllowed,
    /// The `Host` or `Origin` header could not be read.
    #[error("Bad request: malformed Host or Origin header")]
    Malformed,
}

impl RequestRejection {
    /// The HTTP status this rejection is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            RequestRejection::Malformed => StatusCode::BAD_REQUEST,
            _ => StatusCode::FORBIDDEN,
        }
    }
}

/// The resolved `Host`/`Origin` policy.
#[derive(Debug, Clone)]
pub struct HostOriginPolicy {
    allowed_hosts: Vec<Authority>,
    allowed_origins: Vec<OriginPattern>,
    any_origin: bool,
}

/// A host with an optional port; no port in an allowlist entry means any port.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Authority {
    host: String,
    port: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct OriginPattern {
    scheme: String,
    host: String,
    /// `None` matches any port (written `:*`).
    port: Option<u16>,
}

impl HostOriginPolicy {
    /// Builds the policy from the configuration.
    pub fn new(config: &HttpConfig) -> Self {
        let allowed_hosts =
            config.allowed_hosts.iter().filter_map(|h| parse_authority(h)).collect();
        let any_origin = config.allowed_origins.iter().any(|o| o == "*");
        let allowed_origins =
            config.allowed_origins.iter().filter_map(|o| parse_origin_pattern(o)).collect();
        HostOriginPolicy { allowed_hosts, allowed_origins, any_origin }
    }

    /// Checks the request's `Host` header only: for paths any site may read.
    pub fn check_host(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), RequestRejection> {
        self.allowed_authority(uri, headers).map(|_| ())
    }

    /// The host and port the request addressed, when this server serves them.
    fn allowed_authority<'a>(
        &self,
        uri: &'a Uri,
        headers: &'a HeaderMap,
    ) -> Result<(&'a str, Option<u16>), RequestRejection> {
        let (host, port) = request_authority(uri, headers)?;
        if !self.allowed_hosts.is_empty()
            && !self.allowed_hosts.iter().any(|allowed| {
                allowed.host.eq_ignore_ascii_case(host)
                    && allowed.port.is_none_or(|p| Some(p) == port)
            })
        {
            return Err(RequestRejection::HostNotAllowed);
        }
        Ok((host, port))
    }

    /// Checks the request's `Host` and `Origin` headers.
    pub fn check(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), RequestRejection> {
        let (host, port) = self.allowed_authority(uri, headers)?;
        let Some(origin) = headers.get(header::ORIGIN) else {
            // Requests without Origin come from programs, not from browser pages.
            return Ok(());
        };
        if self.any_origin {
            return Ok(());
        }
        let origin = origin.to_str().map_err(|_| RequestRejection::Malformed)?.trim();
        let Some(origin) = parse_origin(origin) else {
            return Err(RequestRejection::OriginNotAllowed);
        };
        // A Host header without a port means the scheme's default port.
        let host_port = port.unwrap_or(if origin.scheme == "https" { 443 } else { 80 });
        let same_origin = origin.host.eq_ignore_ascii_case(host) && origin.port == host_port;
        let listed = self.allowed_origins.iter().any(|pattern| {
            pattern.scheme == origin.scheme
                && pattern.host == origin.host
                && pattern.port.is_none_or(|p| p == origin.port)
        });
        if same_origin || listed { Ok(()) } else { Err(RequestRejection::OriginNotAllowed) }
    }
}

/// The authority the client addressed, as written: the `Host` header, or the URI's for
/// HTTP/2. Read without copying, since every request is checked.
fn request_authority<'a>(
    uri: &'a Uri,
    headers: &'a HeaderMap,
) -> Result<(&'a str, Option<u16>), RequestRejection> {
    if let Some(value) = headers.get(header::HOST) {
        let text = value.to_str().map_err(|_| RequestRejection::Malformed)?;
        return split_authority(text).ok_or(RequestRejection::Malformed);
    }
    uri.authority()
        .and_then(|authority| split_authority(authority.as_str()))
        .ok_or(RequestRejection::Malformed)
}

/// Splits `host`, `host:port`, `[v6]` or `[v6]:port` into the host as written (brackets
/// kept) and the port.
fn split_authority(text: &str) -> Option<(&str, Option<u16>)> {
    let text = text.trim();
    if text.is_empty() || text.bytes().any(|b| matches!(b, b'/' | b'@' | b' ')) {
        return None;
    }
    if text.starts_with('[') {
        let end = text.find(']')?;
        let (host, after) = text.split_at(end + 1);
        let port = match after.strip_prefix(':') {
            Some(port) => Some(port.parse().ok()?),
            None if after.is_empty() => None,
            None => return None,
        };
        return Some((host, port));
    }
    match text.rsplit_once(':') {
        Some((host, port)) => Some((host, Some(port.parse().ok()?))),
        None => Some((text, None)),
    }
}

/// Parses an authority from configuration or an `Origin`, lower-casing the host.
fn parse_authority(text: &str) -> Option<Authority> {
    let (host, port) = split_authority(text)?;
    let host = host.to_ascii_lowercase();
    // Accept the bare `::1` spelling in configuration too.
    let host = if host == "::1" { "[::1]".to_owned() } else { host };
    Some(Authority { host, port })
}

struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

fn parse_origin(text: &str) -> Option<Origin> {
    let (scheme, rest) = text.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let authority = parse_authority(rest.trim_end_matches('/'))?;
    Some(Origin { scheme, host: authority.host, port: authority.port.unwrap_or(default_port) })
}

fn parse_origin_pattern(text: &str) -> Option<OriginPattern> {
    if let Some(base) = text.strip_suffix(":*") {
        let origin = parse_origin(base)?;
        return Some(OriginPattern { scheme: origin.scheme, host: origin.host, port: None });
    }
    let origin = parse_origin(text)?;
    Some(OriginPattern { scheme: origin.scheme, host: origin.host, port: Some(origin.port) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(
        config: &HttpConfig,
        host: &str,
        origin: Option<&str>,
    ) -> Result<(), RequestRejection> {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, host.parse().unwrap());
        if let Some(origin) = origin {
            headers.insert(header::ORIGIN, origin.parse().unwrap());
        }
        HostOriginPolicy::new(config).check(&Uri::from_static("/mcp"), &headers)
    }

    #[test]
    fn loopback_hosts_pass_and_others_fail() {
        let config = HttpConfig::default();
        assert_eq!(check(&config, "127.0.0.1:8080", None), Ok(()));
        assert_eq!(check(&config, "localhost:3000", None), Ok(()));
        assert_eq!(check(&config, "[::1]:3000", None), Ok(()));
        // Host names compare without case, as DNS does.
        assert_eq!(check(&config, "LocalHost:3000", None), Ok(()));
        assert_eq!(check(&config, "LocalHost:3000", Some("http://localhost:3000")), Ok(()));
        assert_eq!(check(&config, "evil.example.com", None), Err(RequestRejection::HostNotAllowed));
        assert_eq!(
            check(&config, "127.0.0.1.evil.com:80", None),
            Err(RequestRejection::HostNotAllowed)
        );
    }

    #[test]
    fn same_origin_passes_and_foreign_origin_fails() {
        let config = HttpConfig::default();
        assert_eq!(check(&config, "127.0.0.1:8080", Some("http://127.0.0.1:8080")), Ok(()));
        assert_eq!(
            check(&config, "127.0.0.1:8080", Some("http://127.0.0.1:9999")),
            Err(RequestRejection::OriginNotAllowed)
        );
        assert_eq!(
            check(&config, "127.0.0.1:8080", Some("https://evil.example.com")),
            Err(RequestRejection::OriginNotAllowed)
        );
        assert_eq!(
            check(&config, "127.0.0.1:8080", Some("null")),
            Err(RequestRejection::OriginNotAllowed)
        );
    }

    #[test]
    fn listed_origins_pass() {
        let config = HttpConfig {
            allowed_origins: vec!["https://app.example.com".into(), "http://localhost:*".into()],
            ..HttpConfig::default()
        };
        assert_eq!(check(&config, "127.0.0.1:8080", Some("https://app.example.com")), Ok(()));
        assert_eq!(check(&config, "127.0.0.1:8080", Some("http://localhost:5173")), Ok(()));
        assert_eq!(
            check(&config, "127.0.0.1:8080", Some("https://app.example.com:8443")),
            Err(RequestRejection::OriginNotAllowed)
        );
    }
}
