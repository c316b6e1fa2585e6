//! Random record identifiers with a URL-safe textual form.

use std::fmt;
use std::str::FromStr;

/// The lowercase Crockford base32 alphabet: no `i`, `l`, `o` or `u`, so ids survive being
/// read aloud or copied by hand.
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// The number of base32 characters that carry 128 bits (3 bits in the first, 5 in each other).
const ENCODED_LEN: usize = 26;

/// The prefix of every scan id, so that ids are recognisable in logs and URLs.
const SCAN_PREFIX: &str = "scn_";

/// Encodes 128 random bits as 26 base32 characters, most significant bits first.
fn encode_u128(mut value: u128) -> String {
    let mut chars = [0u8; ENCODED_LEN];
    for char_idx in (0..ENCODED_LEN).rev() {
        chars[char_idx] = ALPHABET[(value & 0x1f) as usize];
        value >>= 5;
    }
    chars.iter().map(|&byte| char::from(byte)).collect()
}

/// Whether `text` is exactly the output of [`encode_u128`] for some value.
fn is_canonical_encoding(text: &str) -> bool {
    let bytes = text.as_bytes();
    // The first character carries only the top 3 bits, so it is one of `0`..=`7`.
    bytes.len() == ENCODED_LEN
        && (b'0'..=b'7').contains(&bytes[0])
        && bytes.iter().all(|byte| ALPHABET.contains(byte))
}

/// A fresh random identifier with the given prefix, such as `key_...` for API keys.
pub(crate) fn random_id(prefix: &str) -> String {
    // `rand::random` draws from the thread-local CSPRNG, so ids cannot be guessed from one
    // another; the ids of scans are the only thing standing between a URL and its owner's data
    // besides the owner check.
    format!("{prefix}{}", encode_u128(rand::random::<u128>()))
}

/// The identifier of a kept scan: `scn_` followed by 26 base32 characters that encode 128
/// random bits, for example `scn_3v9q0kx6m2c8p1r7t4w5yzab0d`.
///
/// Ids carry no time or order; listing order comes from the creation time.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScanId(String);

impl ScanId {
    /// A new random id.
    pub fn generate() -> ScanId {
        ScanId(random_id(SCAN_PREFIX))
    }

    /// Parses the textual form, or `None` if `text` is not a well-formed scan id.
    ///
    /// The store treats a malformed id as an unknown one, so callers rarely need this.
    pub fn parse(text: &str) -> Option<ScanId> {
        let encoded = text.strip_prefix(SCAN_PREFIX)?;
        is_canonical_encoding(encoded).then(|| ScanId(text.to_owned()))
    }

    /// The textual form.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Wraps text read back from the database, which only ever holds generated ids.
    pub(crate) fn from_trusted(text: String) -> ScanId {
        ScanId(text)
    }
}

impl fmt::Display for ScanId {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl fmt::Debug for ScanId {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, formatter)
    }
}

/// The error of parsing a [`ScanId`] with [`str::parse`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed scan id")]
pub struct ParseScanIdError;

impl FromStr for ScanId {
    type Err = ParseScanIdError;

    fn from_str(text: &str) -> Result<ScanId, ParseScanIdError> {
        ScanId::parse(text).ok_or(ParseScanIdError)
    }
}

impl AsRef<str> for ScanId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_ids_parse_back_and_differ() {
        let first = ScanId::generate();
        let second = ScanId::generate();
        assert_ne!(first, second);
        assert_eq!(first.as_str().len(), SCAN_PREFIX.len() + ENCODED_LEN);
        assert_eq!(ScanId::parse(first.as_str()), Some(first.clone()));
        assert_eq!(first.to_string().parse::<ScanId>(), Ok(first));
    }

    #[test]
    fn encoding_covers_all_128_bits() {
        assert_eq!(encode_u128(0), "0".repeat(ENCODED_LEN));
        let all_ones = encode_u128(u128::MAX);
        assert_eq!(&all_ones[..1], "7");
        assert!(all_ones[1..].chars().all(|c| c == 'z'));
        assert!(is_canonical_encoding(&all_ones));
    }

    #[test]
    fn malformed_ids_are_rejected() {
        let valid = ScanId::generate().to_string();
        let cases = [
            String::new(),
            "scn_".to_owned(),
            valid.replacen("scn_", "key_", 1),
            valid.to_uppercase(),
            format!("{valid}0"),
            valid[..valid.len() - 1].to_owned(),
            format!("scn_8{}", &valid[5..]),
            format!("scn_{}", "u".repeat(ENCODED_LEN)),
            "scn_' OR 1=1 --".to_owned(),
        ];
        for case in cases {
            assert_eq!(ScanId::parse(&case), None, "{case:?} should be rejected");
        }
    }
}
