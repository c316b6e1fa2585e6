//! The issuer's signing keys (a JWKS), read from a file or fetched from a URL.
//!
//! Fetching a URL chosen by configuration is still a server-side request, so it goes
//! through `mrtd-fetch`'s SSRF guard: private, loopback, link-local (cloud metadata at
//! 169.254.169.254), unique-local and reserved addresses are refused unless explicitly
//! allowed, checked on the addresses the connection uses; plain `http` is refused unless private addresses
//! are allowed; redirects are not followed; the body and the time are bounded.

use std::{
    path::PathBuf,
    sync::{Arc, RwLock},
    time::{Duration, Instant},
};

use http::Uri;
use jsonwebtoken::jwk::JwkSet;
use mrtd_fetch::{FetchError, FetchPolicy, Fetcher};

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
    let mut policy = FetchPolicy::new(MAX_JWKS_BYTES);
    if allow_private {
        policy = policy.allowing_private();
    }
    policy.timeout = FETCH_TIMEOUT;
    policy.max_redirects = 0;
    let fetcher = Fetcher::new(policy).map_err(|e| JwksError::Fetch(e.to_string()))?;
    match fetcher.get(&url.to_string()).await {
        Ok(fetched) => Ok(fetched.body),
        Err(FetchError::PrivateAddress(host)) => Err(JwksError::PrivateAddress(host)),
        Err(FetchError::Resolve(host)) => Err(JwksError::Resolve(host)),
        Err(other) => Err(JwksError::Fetch(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
