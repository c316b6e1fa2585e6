//! The records that go in and out of the store, and how times are stored.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::ScanId;

/// The most scans one [`list`](crate::Store::list) call returns.
pub const MAX_PAGE_SIZE: u32 = 100;

/// A scan to keep: the reading of one document, bound to the principal that asked for it.
///
/// The image the reading came from is never part of it; only the holder's portrait may be,
/// when the caller asked for images, kept with the scan and gone with it.
#[derive(Clone, PartialEq)]
pub struct NewScan {
    /// The principal that owns the scan; only this principal can read, list or delete it.
    pub owner: String,
    /// The reading as JSON, with the document fields.
    pub result: serde_json::Value,
    /// The moment after which the scan is no longer served and may be purged.
    pub retain_until: SystemTime,
    /// The holder's portrait as a JPEG, when the caller asked for it to be kept; it has the
    /// scan's owner and expiry and is deleted with it ([`Store::portrait`](crate::Store::portrait)).
    pub portrait: Option<Vec<u8>>,
}

/// A kept scan as read back from the store.
///
/// Times are stored with millisecond precision, so `created_at` and `expires_at` are the
/// requested times truncated to whole milliseconds.
#[derive(Clone, PartialEq)]
pub struct ScanRecord {
    /// The scan's identifier.
    pub id: ScanId,
    /// The principal that owns the scan.
    pub owner: String,
    /// When the store accepted the scan.
    pub created_at: SystemTime,
    /// When the scan stops being served; it is alive while `now < expires_at`.
    pub expires_at: SystemTime,
    /// The reading as JSON, exactly as it was stored.
    pub result: serde_json::Value,
    /// Whether a portrait is kept with the scan ([`Store::portrait`](crate::Store::portrait)).
    pub has_portrait: bool,
}

// The Debug forms leave out the reading, because it holds personal data from the document
// and Debug output ends up in logs and panic messages.
impl fmt::Debug for NewScan {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("NewScan")
            .field("owner", &self.owner)
            .field("result", &format_args!("<redacted>"))
            .field("retain_until", &self.retain_until)
            .field("portrait", &self.portrait.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl fmt::Debug for ScanRecord {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("ScanRecord")
            .field("id", &self.id)
            .field("owner", &self.owner)
            .field("created_at", &self.created_at)
            .field("expires_at", &self.expires_at)
            .field("result", &format_args!("<redacted>"))
            .field("has_portrait", &self.has_portrait)
            .finish()
    }
}

/// One page of a caller's scans, newest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// The scans on this page.
    pub items: Vec<ScanRecord>,
    /// The cursor for the next page, or `None` when this is the last one.
    pub next_cursor: Option<String>,
}

/// An API key as the store knows it.
///
/// The store only ever sees a hash of the key, computed by the caller, and never returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyRecord {
    /// The key's identifier, `key_` followed by 26 base32 characters.
    pub id: String,
    /// The operator's name for the key, unique among keys that are not revoked.
    pub name: String,
    /// When the key was created.
    pub created_at: SystemTime,
    /// When the key was revoked, if it was.
    pub revoked_at: Option<SystemTime>,
}

/// Converts a time to whole milliseconds since the Unix epoch, as stored in the database.
///
/// Times before the epoch are negative; times beyond the range of `i64` saturate.
pub fn to_unix_millis(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_millis()).unwrap_or(i64::MAX),
        Err(before) => i64::try_from(before.duration().as_millis()).map_or(i64::MIN, |ms| -ms),
    }
}

/// Converts stored milliseconds since the Unix epoch back to a time.
pub fn from_unix_millis(millis: i64) -> SystemTime {
    let magnitude = Duration::from_millis(millis.unsigned_abs());
    if millis >= 0 { UNIX_EPOCH + magnitude } else { UNIX_EPOCH - magnitude }
}

/// Clamps a requested page size to `1..=MAX_PAGE_SIZE`.
pub(crate) fn clamp_limit(limit: u32) -> u32 {
    limit.clamp(1, MAX_PAGE_SIZE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn millis_round_trip_on_both_sides_of_the_epoch() {
        for millis in [0, 1, -1, 1_764_000_000_123, -86_400_000] {
            assert_eq!(to_unix_millis(from_unix_millis(millis)), millis);
        }
        let with_nanos = UNIX_EPOCH + Duration::new(5, 999_999_999);
        assert_eq!(to_unix_millis(with_nanos), 5_999);
    }

    #[test]
    fn debug_output_leaves_out_document_fields() {
        let new_scan = NewScan {
            owner: "alice".to_owned(),
            result: serde_json::json!({ "surname": "ERIKSSON" }),
            retain_until: UNIX_EPOCH,
            portrait: Some(b"\xff\xd8JFIF-PORTRAIT".to_vec()),
        };
        let debug_text = format!("{new_scan:?}");
        assert!(debug_text.contains("alice"));
        assert!(!debug_text.contains("ERIKSSON"));
        assert!(!debug_text.contains("255") && !debug_text.contains("PORTRAIT"), "{debug_text}");
    }

    #[test]
    fn limits_are_clamped() {
        assert_eq!(clamp_limit(0), 1);
        assert_eq!(clamp_limit(7), 7);
        assert_eq!(clamp_limit(1000), MAX_PAGE_SIZE);
    }
}
