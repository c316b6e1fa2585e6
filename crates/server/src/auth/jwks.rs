//! The issuer's signing keys (a JWKS), read from a file or fetched from a URL.
//!
//! Fetching a URL chosen by configuration is still a server-side request, so it is guarded
//! against SSRF: the host name is resolved here, every resolved address is checked, and the
//! connection goes only to addresses that passed (so a DNS answer cannot change between the
//! check and the connect). Private, loopback, link-local (cloud metadata at 169.254.169.254),
//! unique-local and unspecified addresses are refused unless explicitly allowed, plain
//! `http` is refused unless private addresses are allowed, redirects are not followed, and
//! the body and the time are bounded.

use std::{
    future::Future,
    net::{IpAddr, SocketAddr},
    path::PathBuf,
    pin::Pin,
    sync::{Arc, RwLock},
    task::{Context, Poll},
    time::{Duration, Instant},
};

use bytes::Bytes;
use http::Uri;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_util::{
    client::legacy::{
        Client,
        connect::{HttpConnector, dns::Name},
    },
    rt::TokioExecutor,
};
use jsonwebtoken::jwk::JwkSet;

/// Largest JWKS document accepted, in bytes.
const MAX_JWKS_BYTES: usize = 1024 * 1024;
/// How long one fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// A key set older than this is fetched again on the next token.
const MAX_AGE: Duration = Duration::from_secs(15 * 60);
/// An unknown `kid` triggers a refresh at most this often, so that tokens with made-up key
/// ids cannot make the server hammer the issuer.
const MIN_REFRESH_INTERVAL: Duration = Duration::from_secs(30);

/// Where the key set comes from.
#[derive(Debug, Clone)]
pub enum JwksSource {
    /// A local JSON file.
    File(PathBuf),
    /// An `https` URL (or `http`, only when private addresses are allowed).
    Url {
        /// The URL.
        url: Uri,
        /// Allow private, loopback and link-local addresses (and plain `http`).
        allow_private: bool,
    },
}

impl JwksSource {
    /// Reads `--oauth-jwks`: a value with a scheme is a URL, anything else a file path.
    pub fn parse(text: &str, allow_private: bool) -> Result<Self, JwksError> {
        if text.starts_with("https://") || text.starts_with("http://") {
            let url: Uri = text.parse().map_err(|_| JwksError::BadUrl(text.to_owned()))?;
            if url.scheme_str() == Some("http") && !allow_private {
                return Err(JwksError::PlainHttp);
            }
            if url.host().is_none() {
                return Err(JwksError::BadUrl(text.to_owned()));
            }
            Ok(JwksSource::Url { url, allow_private })
        } else {
            Ok(JwksSource::File(PathBuf::from(text)))
        }
    }
}

/// Why the key set could not be loaded.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum JwksError {
    /// The file could not be read.
    #[error("reading the JWKS file {path}: {reason}")]
    File {
        /// The file.
        path: String,
        /// The I/O error.
        reason: String,
    },
    /// The URL is not a usable absolute URL.
    #[error("the JWKS URL {0} is not a valid absolute URL")]
    BadUrl(String),
    /// `http://` without permission for private addresses.
    #[error(
        "the JWKS URL must use https (plain http is only allowed together with private addresses)"
    )]
    PlainHttp,
    /// Every address of the host is private, loopback or link-local.
    #[error(
        "the JWKS host resolves only to private, loopback or link-local addresses ({0}); \
         allow them explicitly if the issuer really is internal"
    )]
    PrivateAddress(String),
    /// The host name did not resolve.
    #[error("the JWKS host {0} could not be resolved")]
    Resolve(String),
    /// The request failed, timed out or was answered with an error status.
    #[error("fetching the JWKS failed: {0}")]
    Fetch(String),
    /// The document is not a JWKS.
    #[error("the JWKS document is not a valid JSON Web Key Set: {0}")]
    Parse(String),
}

/// Whether an address may be reached without explicit permission.
pub fn is_public_address(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_private()
                || v4.is_loopback()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || o[0] == 0
                // 100.64.0.0/10, carrier-grade NAT.
                || (o[0] == 100 && (o[1] & 0xc0) == 64)
                // 198.18.0.0/15, benchmarking; 240.0.0.0/4, reserved.
                || (o[0] == 198 && (o[1] & 0xfe) == 18)
                || o[0] >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public_address(IpAddr::V4(v4));
            }
            let s = v6.segments();
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                // fc00::/7 unique local, fe80::/10 link-local, 2001:db8::/32 documentation.
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || (s[0] == 0x2001 && s[1] == 0x0db8)
                // ::ffff:0:0/96 handled above; 64:ff9b::/96 may embed private IPv4.
                || (s[0] == 0x64 && s[1] == 0xff9b))
        }
    }
}

/// The key set with the time it was loaded.
struct Loaded {
    keys: Arc<JwkSet>,
    at: Instant,
}

/// A cached key set that reloads when it is old or a token names an unknown key.
pub struct JwksCache {
    source: JwksSource,
    current: RwLock<Loaded>,
    refresh: tokio::sync::Mutex<Option<Instant>>,
}

impl std::fmt::Debug for JwksCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwksCache").field("source", &self.source).finish_non_exhaustive()
    }
}

impl JwksCache {
    /// Loads the key set once, so that a wrong file or URL fails at start.
    pub async fn load(source: JwksSource) -> Result<Self, JwksError> {
        let keys = fetch(&source).await?;
        Ok(JwksCache {
            source,
            current: RwLock::new(Loaded { keys: Arc::new(keys), at: Instant::now() }),
            refresh: tokio::sync::Mutex::new(Some(Instant::now())),
        })
    }

    /// The current key set, reloaded first when it is older than fifteen minutes or when
    /// `wanted_kid` is not in it (at most every thirty seconds).
    pub async fn keys(&self, wanted_kid: Option<&str>) -> Arc<JwkSet> {
        let (keys, age) = {
            let current = self.current.read().unwrap_or_else(|e| e.into_inner());
            (current.keys.clone(), current.at.elapsed())
        };
        let missing = wanted_kid.is_some_and(|kid| keys.find(kid).is_none());
        if !missing && age < MAX_AGE {
            return keys;
        }
        let mut last = self.refresh.lock().await;
        if last.is_some_and(|at| at.elapsed() < MIN_REFRESH_INTERVAL) {
            return self.current.read().unwrap_or_else(|e| e.into_inner()).keys.clone();
        }
        *last = Some(Instant::now());
        match fetch(&self.source).await {
            Ok(fresh) => {
                let fresh = Arc::new(fresh);
                *self.current.write().unwrap_or_else(|e| e.into_inner()) =
                    Loaded { keys: fresh.clone(), at: Instant::now() };
                fresh
            }
            Err(error) => {
                // Keep serving with the keys we have; the issuer may be briefly down.
                tracing::warn!(%error, "could not refresh the JWKS; keeping the previous keys");
                keys
            }
        }
    }
}

async fn fetch(source: &JwksSource) -> Result<JwkSet, JwksError> {
    let bytes = match source {
        JwksSource::File(path) => {
            let owned = path.clone();
            tokio::task::spawn_blocking(move || std::fs::read(owned))
                .await
                .map_err(|e| std::io::Error::other(e.to_string()))
                .and_then(|read| read)
                .map_err(|e| JwksError::File {
                    path: path.display().to_string(),
                    reason: e.to_string(),
                })?
        }
        JwksSource::Url { url, allow_private } => fetch_url(url, *allow_private).await?,
    };
    serde_json::from_slice::<JwkSet>(&bytes).map_err(|e| JwksError::Parse(e.to_string()))
}

async fn fetch_url(url: &Uri, allow_private: bool) -> Result<Vec<u8>, JwksError> {
    let host = url.host().ok_or_else(|| JwksError::BadUrl(url.to_string()))?;
    // An address written in the URL never reaches the resolver, so check it here.
    let literal = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = literal.parse::<IpAddr>()
        && !allow_private
        && !is_public_address(ip)
    {
        return Err(JwksError::PrivateAddress(ip.to_string()));
    }
    // Resolve and check once here for a clear error; the connector's resolver checks again
    // at connect time, so a second, different DNS answer cannot slip through.
    if literal.parse::<IpAddr>().is_err() {
        checked_addresses(literal, allow_private).await?;
    }
    let resolver = CheckedResolver { allow_private };
    let mut http = HttpConnector::new_with_resolver(resolver);
    http.enforce_http(false);
    http.set_connect_timeout(Some(FETCH_TIMEOUT));
    let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| JwksError::Fetch(e.to_string()))?
    .with_root_certificates(rustls::RootCertStore::from_iter(
        webpki_roots::TLS_SERVER_ROOTS.iter().cloned(),
    ))
    .with_no_client_auth();
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http1()
        .wrap_connector(http);
    let client: Client<_, Empty<Bytes>> = Client::builder(TokioExecutor::new()).build(connector);
    let request = http::Request::get(url.clone())
        .header(http::header::ACCEPT, "application/jwk-set+json, application/json")
        .body(Empty::new())
        .map_err(|e| JwksError::Fetch(e.to_string()))?;
    let work = async {
        let response =
            client.request(request).await.map_err(|e| JwksError::Fetch(e.to_string()))?;
        if !response.status().is_success() {
            return Err(JwksError::Fetch(format!("the server answered {}", response.status())));
        }
        let body = Limited::new(response.into_body(), MAX_JWKS_BYTES)
            .collect()
            .await
            .map_err(|e| JwksError::Fetch(e.to_string()))?;
        Ok(body.to_bytes().to_vec())
    };
    tokio::time::timeout(FETCH_TIMEOUT, work)
        .await
        .map_err(|_| JwksError::Fetch("timed out".to_owned()))?
}

/// The addresses of `host` that may be reached.
async fn checked_addresses(host: &str, allow_private: bool) -> Result<Vec<SocketAddr>, JwksError> {
    let resolved: Vec<SocketAddr> = tokio::net::lookup_host((host, 0))
        .await
        .map_err(|_| JwksError::Resolve(host.to_owned()))?
        .collect();
    if resolved.is_empty() {
        return Err(JwksError::Resolve(host.to_owned()));
    }
    let allowed: Vec<SocketAddr> = resolved
        .iter()
        .copied()
        .filter(|addr| allow_private || is_public_address(addr.ip()))
        .collect();
    if allowed.is_empty() {
        let list: Vec<String> = resolved.iter().map(|a| a.ip().to_string()).collect();
        return Err(JwksError::PrivateAddress(list.join(", ")));
    }
    Ok(allowed)
}

/// Resolves with the system resolver and keeps only the addresses that may be reached.
#[derive(Clone, Copy)]
struct CheckedResolver {
    allow_private: bool,
}

impl tower::Service<Name> for CheckedResolver {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = std::io::Error;
    type Future =
        Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send + 'static>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: Name) -> Self::Future {
        let allow_private = self.allow_private;
        Box::pin(async move {
            checked_addresses(name.as_str(), allow_private)
                .await
                .map(Vec::into_iter)
                .map_err(|e| std::io::Error::other(e.to_string()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_and_special_addresses_are_not_public() {
        for text in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "::ffff:169.254.169.254",
            "::ffff:127.0.0.1",
        ] {
            assert!(!is_public_address(text.parse().unwrap()), "{text}");
        }
        for text in ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"] {
            assert!(is_public_address(text.parse().unwrap()), "{text}");
        }
    }

    #[test]
    fn plain_http_needs_permission() {
        assert!(matches!(
            JwksSource::parse("http://issuer.example/jwks", false),
            Err(JwksError::PlainHttp)
        ));
        assert!(matches!(
            JwksSource::parse("http://127.0.0.1:9/jwks", true),
            Ok(JwksSource::Url { allow_private: true, .. })
        ));
        assert!(matches!(JwksSource::parse("keys/jwks.json", false), Ok(JwksSource::File(_))));
    }

    #[tokio::test]
    async fn metadata_address_is_refused_before_connecting() {
        let source = JwksSource::parse("https://169.254.169.254/jwks", false).unwrap();
        let error = JwksCache::load(source).await.unwrap_err();
        assert!(matches!(error, JwksError::PrivateAddress(_)), "{error}");
    }

    #[tokio::test]
    async fn loopback_name_is_refused_after_resolving() {
        let source = JwksSource::parse("https://localhost:9/jwks", false).unwrap();
        let error = JwksCache::load(source).await.unwrap_err();
        assert!(matches!(error, JwksError::PrivateAddress(_)), "{error}");
    }
}
