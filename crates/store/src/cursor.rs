//! The pagination cursor: the position of the last scan on a page.
//!
//! Pages are ordered by `(created_at, id)` descending, a total order over immutable columns,
//! so a cursor stays valid while scans are added or removed, and no scan appears twice.

use crate::{ScanId, StoreError};

/// The version tag of the cursor format, so a later format can tell old cursors apart.
const VERSION_TAG: &str = "v1";

/// A decoded cursor: the sort key of the last scan already returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cursor {
    pub(crate) created_at_ms: i64,
    pub(crate) id: ScanId,
}

impl Cursor {
    /// The textual form handed to callers, who must treat it as opaque.
    pub(crate) fn encode(&self) -> String {
        format!("{VERSION_TAG}.{}.{}", self.created_at_ms, self.id)
    }

    /// Decodes a cursor from [`Cursor::encode`], or fails with `InvalidCursor`.
    pub(crate) fn decode(text: &str) -> Result<Cursor, StoreError> {
        let mut parts = text.splitn(3, '.');
        let (Some(VERSION_TAG), Some(millis_text), Some(id_text)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return Err(StoreError::InvalidCursor);
        };
        let created_at_ms = millis_text.parse::<i64>().map_err(|_| StoreError::InvalidCursor)?;
        let id = ScanId::parse(id_text).ok_or(StoreError::InvalidCursor)?;
        Ok(Cursor { created_at_ms, id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip() {
        let cursor = Cursor { created_at_ms: 1_764_000_000_123, id: ScanId::generate() };
        assert_eq!(Cursor::decode(&cursor.encode()).unwrap(), cursor);
    }

    #[test]
    fn foreign_text_is_an_invalid_cursor() {
        let id = ScanId::generate();
        for text in ["", "v1", "v1.12", &format!("v2.12.{id}"), &format!("v1.x.{id}"), "v1.1.scn_x"]
        {
            assert!(matches!(Cursor::decode(text), Err(StoreError::InvalidCursor)), "{text:?}");
        }
    }
}
