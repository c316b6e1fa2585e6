//! Fetching a URL someone else chose (a caller's `image_url`, an operator's JWKS URL),
//! guarded against server-side request forgery.
//!
//! - Only `https`, unless plain `http` is allowed; no credentials in the URL.
//! - An operator's list of hosts, when given, is the only hosts fetched from.
//! - Every address a host name resolves to is checked: private, loopback, link-local (cloud
//!   metadata), unique-local, multicast and reserved addresses are refused unless they lie
//!   in a network the operator allowed. The check runs in the connector's resolver, on the
//!   one answer the connection then uses, so no later DNS answer can slip past it (DNS
//!   rebinding). An address written in the URL is checked the same way before connecting.
//! - Redirects are followed up to a limit, each target checked like the first URL.
//! - The whole exchange is bounded in time, the body in bytes while it is read (a
//!   `Content-Length` over the limit is refused before reading), and the media type is
//!   checked against what the caller accepts.
//! - Proxies from the environment are never used: a proxy would connect on our behalf to
//!   addresses we never checked.
//!
//! Error texts name the caller's own URL parts only, never internal addresses of ours.

mod address;

use std::{
    future::Future,
    net::{IpAddr, SocketAddr},
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
    time::Duration,
};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_util::{
    client::legacy::{
        Client,
        connect::{HttpConnector, dns::Name},
    },
    rt::TokioExecutor,
};
pub use ipnet::IpNet;
use url::{Host, Url};

use address::AddressRule;
pub use address::is_public_address;

/// What may be fetched, and how much.
#[derive(Debug, Clone)]
pub struct FetchPolicy {
    /// Allow plain `http` URLs (and redirects to them).
    pub allow_http: bool,
    /// Networks whose addresses may be reached although they are not public (an internal
    /// photo store, a test server on loopback).
    pub allowed_networks: Vec<IpNet>,
    /// When not empty, the only hosts fetched from: names compared case-insensitively,
    /// `*.example.com` for every subdomain of `example.com`.
    pub allowed_hosts: Vec<String>,
    /// Largest body, in bytes.
    pub max_bytes: usize,
    /// Longest the whole fetch, redirects included, may take.
    pub timeout: Duration,
    /// Most redirects followed; 0 refuses any redirect.
    pub max_redirects: usize,
    /// Media types accepted (`image/*` for a whole type); empty accepts any. A response
    /// without a `Content-Type` is accepted.
    pub accept: Vec<String>,
    /// Fetches that may run at once; further ones wait their turn within `timeout`. Bodies
    /// held at once are thereby at most `max_concurrent × max_bytes`.
    pub max_concurrent: usize,
}

impl FetchPolicy {
    /// Public `https` URLs only, 10 seconds, 3 redirects, any media type.
    pub fn new(max_bytes: usize) -> Self {
        FetchPolicy {
            allow_http: false,
            allowed_networks: Vec::new(),
            allowed_hosts: Vec::new(),
            max_bytes,
            timeout: Duration::from_secs(10),
            max_redirects: 3,
            accept: Vec::new(),
            max_concurrent: 8,
        }
    }

    /// Every address may be reached, and plain `http` used (an issuer inside the network).
    pub fn allowing_private(mut self) -> Self {
        self.allow_http = true;
        self.allowed_networks = vec![
            IpNet::V4(ipnet::Ipv4Net::default()), // 0.0.0.0/0
            IpNet::V6(ipnet::Ipv6Net::default()), // ::/0
        ];
        self
    }
}

/// Why a URL was not fetched. The text is safe to show to whoever gave the URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// Not an absolute URL with a host, or it carries credentials.
    #[error("the URL is not valid: {0}")]
    BadUrl(String),
    /// A scheme other than `https` (or `http` where allowed).
    #[error("only https URLs are fetched (not {0})")]
    Scheme(String),
    /// The host is not on the operator's list.
    #[error("the host {0} is not one this server fetches from")]
    HostNotAllowed(String),
    /// The host is, or resolves to, an address that may not be reached.
    #[error(
        "the host {0} is, or resolves to, a private, loopback, link-local or reserved \
         address, which this server does not fetch from"
    )]
    PrivateAddress(String),
    /// The host name did not resolve.
    #[error("the host {0} could not be resolved")]
    Resolve(String),
    /// No connection, or the exchange broke off.
    #[error("the host {0} could not be reached or did not answer properly")]
    Connect(String),
    /// The server answered with an error status.
    #[error("the server answered with status {0}")]
    Status(u16),
    /// A redirect without a usable `Location`.
    #[error("the server redirected without a valid Location")]
    BadRedirect,
    /// More redirects than allowed.
    #[error("the URL redirects too often (at most {0} redirects are followed)")]
    TooManyRedirects(usize),
    /// The body is over the limit.
    #[error("the response is larger than the {0} bytes allowed")]
    TooLarge(usize),
    /// The exchange took too long (waiting for a turn included).
    #[error("the server did not answer in full within {0} seconds")]
    Timeout(u64),
    /// The media type is not one accepted.
    #[error("the response is {0}, not a kind of file accepted here")]
    MediaType(String),
}

/// The TLS client could not be configured (the crypto provider lacks the default
/// protocol versions).
#[derive(Debug, Clone, thiserror::Error)]
#[error("the TLS client could not be set up: {0}")]
pub struct TlsSetupError(String);

/// A fetched body with its media type (lower case, without parameters).
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The body.
    pub body: Vec<u8>,
    /// The `Content-Type`, when the server sent one.
    pub media_type: Option<String>,
}

/// A client bound to one policy; cheap to clone.
#[derive(Clone)]
pub struct Fetcher {
    policy: Arc<FetchPolicy>,
    /// The address rule the resolver applies, also applied to addresses written in URLs.
    rule: Arc<AddressRule>,
    turns: Arc<tokio::sync::Semaphore>,
    client: Client<hyper_rustls::HttpsConnector<HttpConnector<CheckedResolver>>, Empty<Bytes>>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher").field("policy", &self.policy).finish_non_exhaustive()
    }
}

impl Fetcher {
    /// A client for `policy`, trusting the Mozilla root certificates (`webpki-roots`), so
    /// that it works in an image without a system certificate store.
    pub fn new(policy: FetchPolicy) -> Result<Self, TlsSetupError> {
        let rule = Arc::new(AddressRule { allowed_networks: policy.allowed_networks.clone() });
        let mut http = HttpConnector::new_with_resolver(CheckedResolver { rule: rule.clone() });
        http.enforce_http(false);
        http.set_connect_timeout(Some(policy.timeout));
        let roots =
            rustls::RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(|error| TlsSetupError(error.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        // No connection is kept for a later fetch: fetches are rare, each one resolves and
        // checks its host afresh, and a kept connection the server has meanwhile closed
        // would fail the next fetch.
        let client =
            Client::builder(TokioExecutor::new()).pool_max_idle_per_host(0).build(connector);
        let turns = Arc::new(tokio::sync::Semaphore::new(policy.max_concurrent.max(1)));
        Ok(Fetcher { policy: Arc::new(policy), rule, turns, client })
    }

    /// Fetches `url` with `GET`, following allowed redirects.
    pub async fn get(&self, url: &str) -> Result<Fetched, FetchError> {
        let seconds = self.policy.timeout.as_secs().max(1);
        let fetch = async {
            let _turn = self.turns.acquire().await.map_err(|_| FetchError::Timeout(seconds))?;
            self.follow(url).await
        };
        tokio::time::timeout(self.policy.timeout, fetch)
            .await
            .map_err(|_| FetchError::Timeout(seconds))?
    }

    async fn follow(&self, text: &str) -> Result<Fetched, FetchError> {
        let mut url = Url::parse(text.trim()).map_err(|e| FetchError::BadUrl(e.to_string()))?;
        let mut redirects = 0;
        loop {
            // A fragment names a part of the page for the browser; it is never sent.
            url.set_fragment(None);
            let host = self.check(&url)?;
            let uri: http::Uri = url
                .as_str()
                .parse()
                .map_err(|_| FetchError::BadUrl("it cannot be requested".to_owned()))?;
            let mut request = http::Request::get(uri);
            if !self.policy.accept.is_empty() {
                request = request.header(http::header::ACCEPT, self.policy.accept.join(", "));
            }
            let request =
                request.body(Empty::new()).map_err(|e| FetchError::BadUrl(e.to_string()))?;
            let response = self.client.request(request).await.map_err(|error| {
                resolver_refusal(&error).unwrap_or_else(|| FetchError::Connect(host.clone()))
            })?;
            let status = response.status();
            if status.is_redirection() && status != http::StatusCode::NOT_MODIFIED {
                if redirects == self.policy.max_redirects {
                    return Err(FetchError::TooManyRedirects(self.policy.max_redirects));
                }
                redirects += 1;
                let location = response
                    .headers()
                    .get(http::header::LOCATION)
                    .and_then(|value| value.to_str().ok())
                    .ok_or(FetchError::BadRedirect)?;
                url = url.join(location).map_err(|_| FetchError::BadRedirect)?;
                continue;
            }
            if !status.is_success() {
                return Err(FetchError::Status(status.as_u16()));
            }
            let media_type = response
                .headers()
                .get(http::header::CONTENT_TYPE)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.split(';').next())
                .map(|value| value.trim().to_ascii_lowercase())
                .filter(|value| !value.is_empty());
            if let Some(media_type) = &media_type
                && !self.accepts(media_type)
            {
                return Err(FetchError::MediaType(media_type.clone()));
            }
            let declared = response
                .headers()
                .get(http::header::CONTENT_LENGTH)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.parse::<u64>().ok());
            if declared.is_some_and(|length| length > self.policy.max_bytes as u64) {
                return Err(FetchError::TooLarge(self.policy.max_bytes));
            }
            let body = Limited::new(response.into_body(), self.policy.max_bytes)
                .collect()
                .await
                .map_err(|error| {
                    if error.is::<http_body_util::LengthLimitError>() {
                        FetchError::TooLarge(self.policy.max_bytes)
                    } else {
                        FetchError::Connect(host.clone())
                    }
                })?;
            return Ok(Fetched { body: body.to_bytes().to_vec(), media_type });
        }
    }

    /// Checks a URL before it is requested; returns its host for error texts.
    fn check(&self, url: &Url) -> Result<String, FetchError> {
        match url.scheme() {
            "https" => {}
            "http" if self.policy.allow_http => {}
            other => return Err(FetchError::Scheme(other.to_owned())),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(FetchError::BadUrl("credentials in a URL are not sent".to_owned()));
        }
        let host = url.host().ok_or_else(|| FetchError::BadUrl("it has no host".to_owned()))?;
        let name = match &host {
            Host::Domain(name) => name.trim_end_matches('.').to_ascii_lowercase(),
            Host::Ipv4(ip) => ip.to_string(),
            Host::Ipv6(ip) => ip.to_string(),
        };
        if !self.policy.allowed_hosts.is_empty()
            && !self.policy.allowed_hosts.iter().any(|pattern| host_matches(pattern, &name))
        {
            return Err(FetchError::HostNotAllowed(name));
        }
        // An address written in the URL never reaches the resolver: check it here. A name
        // is checked by the connector's resolver, on the very addresses it connects to.
        let literal = match host {
            Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
            Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
            Host::Domain(_) => None,
        };
        match literal {
            Some(ip) if !self.rule.permits(ip) => Err(FetchError::PrivateAddress(name)),
            _ => Ok(name),
        }
    }

    fn accepts(&self, media_type: &str) -> bool {
        self.policy.accept.is_empty()
            || self.policy.accept.iter().any(|accepted| {
                let accepted = accepted.split(';').next().unwrap_or_default().trim();
                match accepted.strip_suffix("/*") {
                    Some(kind) => media_type.split('/').next() == Some(kind),
                    None => accepted.eq_ignore_ascii_case(media_type),
                }
            })
    }
}

/// Whether `host` (lower case) matches an allowlist entry.
fn host_matches(pattern: &str, host: &str) -> bool {
    let pattern = pattern.trim().trim_end_matches('.').to_ascii_lowercase();
    match pattern.strip_prefix("*.") {
        Some(domain) => host.strip_suffix(domain).is_some_and(|rest| rest.ends_with('.')),
        None => pattern == host,
    }
}

/// The addresses of `host`, all of which must be permitted: a name that resolves to one
/// address we may not reach is refused whole, since which address a client picks is not
/// ours to choose.
async fn resolve_checked(host: &str, rule: &AddressRule) -> Result<Vec<SocketAddr>, FetchError> {
    let resolved: Vec<SocketAddr> = tokio::net::lookup_host((host, 0))
        .await
        .map_err(|_| FetchError::Resolve(host.to_owned()))?
        .collect();
    if resolved.is_empty() {
        return Err(FetchError::Resolve(host.to_owned()));
    }
    if resolved.iter().any(|addr| !rule.permits(addr.ip())) {
        return Err(FetchError::PrivateAddress(host.to_owned()));
    }
    Ok(resolved)
}

/// Why the resolver gave the connector no address, carried through hyper's error chain.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct ResolverRefusal(FetchError);

/// The resolver's refusal (a private address, a name that does not resolve) inside an
/// error from the client, if that is what failed.
fn resolver_refusal(error: &(dyn std::error::Error + 'static)) -> Option<FetchError> {
    let mut next = Some(error);
    while let Some(current) = next {
        if let Some(refusal) = current
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .and_then(|inner| inner.downcast_ref::<ResolverRefusal>())
        {
            return Some(refusal.0.clone());
        }
        next = current.source();
    }
    None
}

/// Resolves with the system resolver and gives the connector only permitted addresses.
#[derive(Clone)]
struct CheckedResolver {
    rule: Arc<AddressRule>,
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
        let rule = self.rule.clone();
        Box::pin(async move {
            resolve_checked(name.as_str(), &rule)
                .await
                .map(Vec::into_iter)
                .map_err(|refusal| std::io::Error::other(ResolverRefusal(refusal)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_patterns() {
        assert!(host_matches("photos.example.com", "photos.example.com"));
        assert!(host_matches("Photos.Example.com.", "photos.example.com"));
        assert!(!host_matches("photos.example.com", "evil-photos.example.com"));
        assert!(host_matches("*.example.com", "a.b.example.com"));
        assert!(!host_matches("*.example.com", "example.com"));
        assert!(!host_matches("*.example.com", "badexample.com"));
    }
}
