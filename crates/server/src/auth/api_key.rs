//! API keys: how they are made, how they are hashed, and how a key is looked up.
//!
//! A key is `mrtd_` followed by 32 random bytes in unpadded base64url. Only the SHA-256 of
//! the whole key (lower-case hex) is ever stored, so a leaked database does not leak keys;
//! 256 random bits make a plain hash as strong as a slow one, since nothing can be guessed.

use std::{future::Future, pin::Pin, sync::Arc};

use base64::Engine;
use sha2::{Digest, Sha256};

/// The prefix of every API key, so that leaked keys are easy to recognise in scans of code.
pub const API_KEY_PREFIX: &str = "mrtd_";

/// A boxed future, as returned by [`ApiKeyLookup::find`].
pub type LookupFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Option<String>, ApiKeyLookupError>> + Send + 'a>>;

/// The lookup failed for a reason other than "no such key" (the database is down, say).
#[derive(Debug, Clone, thiserror::Error)]
#[error("the API key could not be checked: {0}")]
pub struct ApiKeyLookupError(pub String);

/// Finds the stable id of the live (not revoked) key whose hash is given.
///
/// The server stays independent of any storage: the command line wires this to the scan
/// store, tests to a map.
pub trait ApiKeyLookup: Send + Sync + 'static {
    /// Returns the key's stable id (never reused, unlike a name, which a new key may take
    /// once the old one is revoked), or `None` when no live key has this hash.
    fn find<'a>(&'a self, hash: &'a str) -> LookupFuture<'a>;
}

/// A fixed set of keys held in memory: `(name, hash)` pairs, each name serving as its
/// key's id.
#[derive(Debug, Clone, Default)]
pub struct StaticApiKeys {
    keys: Vec<(String, String)>,
}

impl StaticApiKeys {
    /// Keys from `(name, secret)` pairs; the secrets are hashed at once and not kept.
    pub fn from_secrets<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        StaticApiKeys {
            keys: pairs
                .into_iter()
                .map(|(name, secret)| (name.to_owned(), hash_api_key(secret)))
                .collect(),
        }
    }
}

impl ApiKeyLookup for StaticApiKeys {
    fn find<'a>(&'a self, hash: &'a str) -> LookupFuture<'a> {
        let found = self.keys.iter().find(|(_, h)| h == hash).map(|(name, _)| name.clone());
        Box::pin(async move { Ok(found) })
    }
}

impl<T: ApiKeyLookup> ApiKeyLookup for Arc<T> {
    fn find<'a>(&'a self, hash: &'a str) -> LookupFuture<'a> {
        (**self).find(hash)
    }
}

/// Makes a new random API key. Show it once; keep only [`hash_api_key`] of it.
pub fn generate_api_key() -> String {
    let bytes: [u8; 32] = rand::random();
    format!("{API_KEY_PREFIX}{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// The stored form of a key: SHA-256 of its text, as 64 lower-case hex digits.
pub fn hash_api_key(key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    hex::encode(digest)
}

/// Whether `text` has the shape of a key this server makes (prefix and 43 base64url characters).
pub fn looks_like_api_key(text: &str) -> bool {
    text.strip_prefix(API_KEY_PREFIX).is_some_and(|rest| {
        rest.len() == 43
            && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_random_and_well_formed() {
        let a = generate_api_key();
        let b = generate_api_key();
        assert_ne!(a, b);
        assert!(looks_like_api_key(&a), "{a}");
        assert!(!looks_like_api_key("mrtd_short"));
        assert!(!looks_like_api_key(&a.replacen("mrtd_", "xxxx_", 1)));
    }

    #[test]
    fn hash_is_sha256_hex() {
        // SHA-256 of "abc" from FIPS 180-2, appendix B.1.
        assert_eq!(
            hash_api_key("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[tokio::test]
    async fn static_keys_find_by_hash() {
        let keys = StaticApiKeys::from_secrets([("ci", "secret-one")]);
        assert_eq!(keys.find(&hash_api_key("secret-one")).await.unwrap().as_deref(), Some("ci"));
        assert_eq!(keys.find(&hash_api_key("secret-two")).await.unwrap(), None);
    }
}
