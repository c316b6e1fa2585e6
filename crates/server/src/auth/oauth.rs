//! The OAuth 2.1 resource server: access tokens are JWTs signed by the configured issuer.
//!
//! A token is accepted only when all of these hold:
//!
//! * its header names an asymmetric algorithm (RSA, RSA-PSS, ECDSA or EdDSA): `alg: none`
//!   does not even parse, and HMAC is refused before any key is looked at, so a token
//!   "signed" with the issuer's public key as an HMAC secret cannot pass;
//! * its `kid` is in the issuer's key set (a token without `kid` is accepted only when the
//!   set has exactly one key), the key is a signing key of the same family as `alg`, and
//!   when the key names an algorithm it is this one;
//! * the signature verifies;
//! * `iss` is exactly the configured issuer;
//! * `aud` (a string or a list) contains this server's canonical resource URI (RFC 8707),
//!   compared with scheme and host case-folded and without a trailing slash;
//! * `exp` is in the future and `nbf`, when present, in the past, with 30 seconds of leeway;
//! * its header's `typ` is `at+jwt` (RFC 9068), so an ID token or another JWT the issuer
//!   signs cannot pass for an access token; [`OAuthConfig::accept_untyped`] relaxes this for
//!   issuers that do not set it;
//! * `sub` is present; with `iss` it becomes the principal `oauth:<iss>#<sub>`, so the same
//!   subject of another issuer is another principal.
//!
//! Scopes come from `scope` (space-separated, RFC 9068) or `scp` (a list or a string).

use std::collections::BTreeSet;

use jsonwebtoken::{
    Algorithm, DecodingKey, Validation,
    jwk::{AlgorithmParameters, Jwk, PublicKeyUse},
};
use serde::Deserialize;

use super::{
    Principal,
    jwks::{JwksCache, JwksError, JwksSource},
};

/// Clock skew tolerated on `exp` and `nbf`, in seconds.
pub const LEEWAY_SECONDS: u64 = 30;

/// Settings of the OAuth resource server.
#[derive(Debug, Clone)]
pub struct OAuthConfig {
    /// The canonical URI of this MCP server (`https://mrtd.example.com/mcp`): the RFC 9728
    /// `resource` and the audience tokens must carry.
    pub resource: String,
    /// The authorization server's issuer identifier, compared exactly with `iss`.
    pub issuer: String,
    /// Where the issuer's keys are.
    pub jwks: JwksSource,
    /// Accept tokens whose header has no `typ: at+jwt` (issuers that omit it); off by default.
    pub accept_untyped: bool,
}

/// Why a configuration could not be used.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthConfigError {
    /// `--public-url` is not an absolute `http(s)` URL without query or fragment.
    #[error("the public URL {0} must be an absolute http(s) URL without query or fragment")]
    Resource(String),
    /// The issuer is empty.
    #[error("the OAuth issuer must not be empty")]
    Issuer,
    /// The key set could not be loaded.
    #[error(transparent)]
    Jwks(#[from] JwksError),
}

/// A token that was accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedToken {
    /// `oauth:<iss>#<sub>`.
    pub principal: Principal,
    /// The granted scopes.
    pub scopes: BTreeSet<String>,
}

/// Why a token was refused. The text is safe to send back in `error_description`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// Not a JWT, or a header that cannot be read (`alg: none` lands here).
    #[error("the access token is malformed")]
    Malformed,
    /// An algorithm this server does not accept (HMAC, or one not matching the key).
    #[error("the access token's algorithm is not accepted")]
    Algorithm,
    /// No key in the issuer's set has the token's `kid`.
    #[error("the access token was signed with an unknown key")]
    UnknownKey,
    /// The signature does not verify.
    #[error("the access token's signature is invalid")]
    Signature,
    /// `exp` has passed.
    #[error("the access token has expired")]
    Expired,
    /// `nbf` is in the future.
    #[error("the access token is not valid yet")]
    NotYetValid,
    /// `iss` is not the configured issuer.
    #[error("the access token was issued by another issuer")]
    Issuer,
    /// `aud` does not name this server.
    #[error("the access token was issued for another audience")]
    Audience,
    /// A required claim is missing.
    #[error("the access token lacks a required claim")]
    MissingClaim,
    /// The header's `typ` is not `at+jwt`: not an access token.
    #[error("the token is not an access token (typ must be at+jwt)")]
    NotAccessToken,
}

/// Checks bearer tokens against the issuer's keys.
#[derive(Debug)]
pub struct TokenVerifier {
    resource: String,
    issuer: String,
    keys: JwksCache,
    accept_untyped: bool,
}

#[derive(Deserialize)]
struct Claims {
    sub: Option<String>,
    #[serde(default)]
    aud: Option<Audience>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    scp: Option<Scp>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Audience {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Scp {
    Text(String),
    List(Vec<String>),
}

const ACCEPTED_ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

impl TokenVerifier {
    /// Checks the configuration and loads the key set once.
    pub async fn new(config: OAuthConfig) -> Result<Self, OAuthConfigError> {
        let resource = canonical_resource(&config.resource)
            .ok_or_else(|| OAuthConfigError::Resource(config.resource.clone()))?;
        if config.issuer.trim().is_empty() {
            return Err(OAuthConfigError::Issuer);
        }
        let keys = JwksCache::load(config.jwks).await?;
        Ok(TokenVerifier {
            resource,
            issuer: config.issuer,
            keys,
            accept_untyped: config.accept_untyped,
        })
    }

    /// The canonical resource URI.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The issuer.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Verifies one bearer token.
    pub async fn verify(&self, token: &str) -> Result<VerifiedToken, TokenError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| TokenError::Malformed)?;
        if !ACCEPTED_ALGORITHMS.contains(&header.alg) {
            return Err(TokenError::Algorithm);
        }
        if !self.accept_untyped && !header.typ.as_deref().is_some_and(is_access_token_type) {
            return Err(TokenError::NotAccessToken);
        }
        let set = self.keys.keys(header.kid.as_deref()).await;
        let jwk = match header.kid.as_deref() {
            Some(kid) => set.find(kid).ok_or(TokenError::UnknownKey)?,
            None if set.keys.len() == 1 => &set.keys[0],
            None => return Err(TokenError::UnknownKey),
        };
        let key = signing_key(jwk, header.alg)?;
        let mut validation = Validation::new(header.alg);
        validation.algorithms = vec![header.alg];
        validation.leeway = LEEWAY_SECONDS;
        validation.validate_exp = true;
        validation.validate_nbf = true;
        // The audience is compared below, with the URI normalisation RFC 8707 clients expect.
        validation.validate_aud = false;
        validation.set_issuer(&[self.issuer.as_str()]);
        validation.set_required_spec_claims(&["exp", "iss", "sub", "aud"]);
        let data = jsonwebtoken::decode::<Claims>(token, &key, &validation).map_err(|e| {
            use jsonwebtoken::errors::ErrorKind;
            match e.kind() {
                ErrorKind::ExpiredSignature => TokenError::Expired,
                ErrorKind::ImmatureSignature => TokenError::NotYetValid,
                ErrorKind::InvalidIssuer => TokenError::Issuer,
                ErrorKind::InvalidSignature => TokenError::Signature,
                ErrorKind::MissingRequiredClaim(_) => TokenError::MissingClaim,
                ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName => {
                    TokenError::Algorithm
                }
                _ => TokenError::Malformed,
            }
        })?;
        let claims = data.claims;
        let audiences = match claims.aud {
            Some(Audience::One(one)) => vec![one],
            Some(Audience::Many(many)) => many,
            None => Vec::new(),
        };
        if !audiences.iter().any(|aud| canonical_resource(aud).as_deref() == Some(&self.resource)) {
            return Err(TokenError::Audience);
        }
        let sub = claims.sub.filter(|s| !s.is_empty()).ok_or(TokenError::MissingClaim)?;
        let mut scopes = BTreeSet::new();
        if let Some(scope) = claims.scope {
            scopes.extend(scope.split_ascii_whitespace().map(str::to_owned));
        }
        match claims.scp {
            Some(Scp::Text(text)) => {
                scopes.extend(text.split_ascii_whitespace().map(str::to_owned))
            }
            Some(Scp::List(list)) => scopes.extend(list),
            None => {}
        }
        let principal = Principal(format!("oauth:{}#{sub}", self.issuer));
        Ok(VerifiedToken { principal, scopes })
    }
}

/// `at+jwt` or `application/at+jwt`, in any case (RFC 9068 section 2.1).
fn is_access_token_type(typ: &str) -> bool {
    let typ = typ.trim();
    typ.eq_ignore_ascii_case("at+jwt") || typ.eq_ignore_ascii_case("application/at+jwt")
}

/// The key to check a token signed with `alg`, refusing keys that do not fit it.
fn signing_key(jwk: &Jwk, alg: Algorithm) -> Result<DecodingKey, TokenError> {
    if matches!(jwk.common.public_key_use, Some(ref u) if *u != PublicKeyUse::Signature) {
        return Err(TokenError::Algorithm);
    }
    if let Some(declared) = jwk.common.key_algorithm
        && declared.to_string() != format!("{alg:?}")
    {
        return Err(TokenError::Algorithm);
    }
    let family_fits = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => matches!(
            alg,
            Algorithm::RS256
                | Algorithm::RS384
                | Algorithm::RS512
                | Algorithm::PS256
                | Algorithm::PS384
                | Algorithm::PS512
        ),
        AlgorithmParameters::EllipticCurve(_) => matches!(alg, Algorithm::ES256 | Algorithm::ES384),
        AlgorithmParameters::OctetKeyPair(_) => alg == Algorithm::EdDSA,
        // Symmetric keys are never accepted: the JWKS is public.
        _ => false,
    };
    if !family_fits {
        return Err(TokenError::Algorithm);
    }
    DecodingKey::from_jwk(jwk).map_err(|_| TokenError::Algorithm)
}

/// `scheme://host[:port][/path]` with scheme and host lower-cased and no trailing slash, or
/// `None` for anything that is not an absolute http(s) URI without query and fragment.
pub fn canonical_resource(text: &str) -> Option<String> {
    let text = text.trim();
    if text.contains(['#', '?', ' ']) {
        return None;
    }
    let (scheme, rest) = text.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "https" && scheme != "http" {
        return None;
    }
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    if authority.is_empty() || authority.contains('@') {
        return None;
    }
    let path = path.trim_end_matches('/');
    Some(format!("{scheme}://{}{path}", authority.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_resource_folds_case_and_trailing_slash() {
        assert_eq!(
            canonical_resource("HTTPS://MRTD.Example.com/mcp/").as_deref(),
            Some("https://mrtd.example.com/mcp")
        );
        assert_eq!(
            canonical_resource("https://mrtd.example.com").as_deref(),
            Some("https://mrtd.example.com")
        );
        assert_eq!(canonical_resource("mrtd.example.com"), None);
        assert_eq!(canonical_resource("https://mrtd.example.com#x"), None);
        assert_eq!(canonical_resource("ftp://mrtd.example.com"), None);
    }
}
