//! The scan store: where mrtd keeps scans that a caller asked to keep, and its API keys.
//!
//! The server is stateless, so anything kept between requests lives here, behind one
//! [`Store`] trait used as `Arc<dyn Store>`.
//! Two backends implement it and pass the same contract test suite:
//!
//! - SQLite (feature `sqlite`, the default): one file in write-ahead-log mode under the data
//!   directory, for a single process. URL `sqlite://PATH`, or `sqlite::memory:` for tests.
//! - PostgreSQL (feature `postgres`): for several replicas sharing one database. URL
//!   `postgres://USER:PASSWORD@HOST:PORT/DATABASE`.
//!
//! [`open`] picks the backend from the URL, connects and brings the schema up to date with the
//! embedded migrations (`migrations/{sqlite,postgres}/`).
//!
//! # Invariants
//!
//! - **Owner binding.** Every scan belongs to the principal that created it. Reading, listing
//!   and deleting take the caller's principal and never reach another principal's scans: to
//!   the caller they do not exist ([`StoreError::NotFound`]), just like unknown or malformed
//!   ids, so ids cannot be probed.
//! - **Expiry.** Every scan has an expiry time. A scan is alive while `now < expires_at`;
//!   an expired scan is never served, listed or deleted, even before the sweeper
//!   ([`spawn_sweeper`]) purges it.
//! - **No photos.** The store keeps the reading (JSON), never the image it came from; the
//!   one image it may hold is the holder's portrait (a JPEG the caller asked for with
//!   `include_images`), in the scan's own row: the scan's owner, the scan's expiry, deleted
//!   with it, served only by [`Store::portrait`] and never part of a listing.
//! - **No document data in logs.** Values are always bound, never formatted into SQL; the
//!   `Debug` forms of the records leave out the reading; the sweeper logs counts only.
//! - **Opaque errors.** The `Display` text of a [`StoreError`] is safe for clients; backend
//!   detail is only in its `source`.
//!
//! # Schema
//!
//! Both backends have the same two tables, with times as whole milliseconds since the Unix
//! epoch (`BIGINT`/`INTEGER`), so behaviour cannot differ through time zones or precision:
//!
//! - `scans (id, owner, created_at_ms, expires_at_ms, result, portrait)`: `id` is a
//!   [`ScanId`], `result` the reading as JSON (`TEXT` in SQLite, `json` in PostgreSQL),
//!   `portrait` a JPEG or `NULL` (`BLOB`, `bytea`), indexed by
//!   `(owner, created_at_ms DESC, id DESC)` for listing and by `expires_at_ms` for purging.
//! - `api_keys (id, name, hash, created_at_ms, revoked_at_ms)`: `name` and `hash` are unique
//!   among keys that are not revoked. The key's secret is never stored, only its hash.
//!
//! In the public API, times are [`std::time::SystemTime`], truncated to milliseconds on the
//! way in ([`to_unix_millis`]).
//!
//! # Example
//!
//! ```
//! use std::time::{Duration, SystemTime};
//! use mrtd_store::{NewScan, StoreError};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), StoreError> {
//! let store = mrtd_store::open("sqlite::memory:").await?;
//! let now = SystemTime::now();
//! let kept = store
//!     .insert(NewScan {
//!         owner: "alice".to_owned(),
//!         result: serde_json::json!({ "document_number": "L898902C3" }),
//!         retain_until: now + Duration::from_secs(3600),
//!         portrait: None,
//!     })
//!     .await?;
//! let read_back = store.get("alice", kept.id.as_str(), now).await?;
//! assert_eq!(read_back.result, kept.result);
//! // Another principal cannot tell the scan exists.
//! assert!(matches!(
//!     store.get("mallory", kept.id.as_str(), now).await,
//!     Err(StoreError::NotFound)
//! ));
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs, unreachable_pub)]
// A build with neither backend still compiles, so that feature combinations can be checked
// one by one; its `open` only reports that no backend is available, and the shared SQL code
// has no user.
#![cfg_attr(
    not(any(feature = "sqlite", feature = "postgres")),
    allow(dead_code, unused_imports, unused_macros)
)]

mod cursor;
mod error;
mod id;
mod migrations;
#[cfg(feature = "postgres")]
mod postgres;
mod rows;
mod sql;
#[cfg(feature = "sqlite")]
mod sqlite;
mod store;
mod sweeper;
mod types;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

pub use crate::error::StoreError;
pub use crate::id::{ParseScanIdError, ScanId};
pub use crate::store::Store;
pub use crate::sweeper::spawn_sweeper;
pub use crate::types::{
    ApiKeyRecord, MAX_PAGE_SIZE, NewScan, Page, ScanRecord, from_unix_millis, to_unix_millis,
};

/// How long a request waits for a database connection before failing with
/// [`StoreError::Unavailable`], so that a dead database answers quickly instead of hanging.
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

/// The file name of the SQLite database inside the data directory.
const SQLITE_FILE_NAME: &str = "mrtd.db";

/// Opens the store named by `url`, creating and migrating its schema as needed.
///
/// - `sqlite://PATH` (relative) or `sqlite:///ABSOLUTE/PATH`: the file and its parent
///   directories are created if missing. `sqlite::memory:` gives a private in-memory store.
/// - `postgres://...` or `postgresql://...`: the database must exist; the tables are created
///   in the first schema of its `search_path`.
///
/// Fails with [`StoreError::InvalidUrl`] for other schemes or a backend this build lacks,
/// with [`StoreError::Unavailable`] when the database cannot be reached within
/// [`ACQUIRE_TIMEOUT`], and with [`StoreError::Migration`] when the schema cannot be brought
/// up to date.
pub async fn open(url: &str) -> Result<Arc<dyn Store>, StoreError> {
    if url.starts_with("sqlite:") {
        #[cfg(feature = "sqlite")]
        return Ok(Arc::new(sqlite::open(url).await?));
        #[cfg(not(feature = "sqlite"))]
        return Err(StoreError::invalid_url("this build has no SQLite support"));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        #[cfg(feature = "postgres")]
        return Ok(Arc::new(postgres::open(url).await?));
        #[cfg(not(feature = "postgres"))]
        return Err(StoreError::invalid_url("this build has no PostgreSQL support"));
    }
    Err(StoreError::invalid_url("expected a sqlite: or postgres:// URL"))
}

/// The URL of the default SQLite database in `data_dir`, for [`open`].
pub fn default_sqlite_url(data_dir: &Path) -> String {
    let path = data_dir.join(SQLITE_FILE_NAME);
    // The URL parser percent-decodes the path and stops at `?`, so these characters are
    // encoded to survive the round trip.
    let mut encoded = String::from("sqlite://");
    for path_char in path.to_string_lossy().chars() {
        match path_char {
            '%' => encoded.push_str("%25"),
            '?' => encoded.push_str("%3F"),
            '#' => encoded.push_str("%23"),
            other => encoded.push(other),
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_url_names_a_file_in_the_data_directory() {
        assert_eq!(
            default_sqlite_url(Path::new("/var/lib/mrtd")),
            "sqlite:///var/lib/mrtd/mrtd.db"
        );
        assert_eq!(default_sqlite_url(Path::new("data")), "sqlite://data/mrtd.db");
        assert_eq!(default_sqlite_url(Path::new("/a?b%c")), "sqlite:///a%3Fb%25c/mrtd.db");
    }

    #[tokio::test]
    async fn unknown_schemes_are_invalid_urls() {
        for url in ["mysql://localhost/db", "", "/var/lib/mrtd/mrtd.db"] {
            assert!(matches!(open(url).await, Err(StoreError::InvalidUrl { .. })), "{url:?}");
        }
    }
}
