//! The one error type of the store, with the same kinds for every backend.

use std::error::Error as StdError;

/// The boxed backend error kept as the `source` of a [`StoreError`].
type BoxedSource = Box<dyn StdError + Send + Sync + 'static>;

/// Why a store operation failed.
///
/// The kinds are the same for every backend, so callers match on them without knowing which
/// database is behind the store.
/// The `Display` text of each kind is safe to show to a client: it never contains SQL, paths,
/// host names or document fields.
/// The backend's own error, which may contain those, is kept as the `source` for logs.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// No such record for this caller: an unknown or malformed id, another owner's record,
    /// or an expired scan.
    ///
    /// These cases are deliberately indistinguishable, so that a caller cannot probe for the
    /// existence of other principals' scans.
    #[error("not found")]
    NotFound,
    /// The write collides with an existing record, such as an API key name already in use.
    #[error("conflict with an existing record")]
    Conflict {
        /// The backend's report of the violated constraint.
        #[source]
        source: Option<BoxedSource>,
    },
    /// The database cannot be reached or cannot serve the request right now.
    ///
    /// This covers a refused connection, a pool timeout, a database shutting down and a
    /// locked SQLite file; retrying later may succeed.
    #[error("the scan store is unavailable")]
    Unavailable {
        /// The backend error.
        #[source]
        source: BoxedSource,
    },
    /// Bringing the schema up to date failed when the store was opened.
    #[error("the scan store schema could not be migrated")]
    Migration {
        /// The migrator's error.
        #[source]
        source: BoxedSource,
    },
    /// The database URL is malformed or names a backend that this build does not include.
    #[error("invalid database URL: {reason}")]
    InvalidUrl {
        /// What is wrong with the URL, without repeating the URL (it may hold a password).
        reason: String,
    },
    /// The pagination cursor was not produced by this store.
    #[error("invalid cursor")]
    InvalidCursor,
    /// The database answered with something the store does not expect, such as a row that
    /// does not decode; this points at a bug or a schema changed behind the store's back.
    #[error("internal store error")]
    Internal {
        /// The backend error.
        #[source]
        source: BoxedSource,
    },
}

impl StoreError {
    /// Whether the error is transient, so that retrying later may succeed.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, StoreError::Unavailable { .. })
    }

    pub(crate) fn internal(source: impl Into<BoxedSource>) -> StoreError {
        StoreError::Internal { source: source.into() }
    }

    pub(crate) fn invalid_url(reason: impl Into<String>) -> StoreError {
        StoreError::InvalidUrl { reason: reason.into() }
    }
}

/// Sorts an sqlx error into one of the backend-neutral kinds.
///
/// Each backend passes its own `is_transient_code`, which tells from a database error code
/// (an SQLite result code or a PostgreSQL SQLSTATE) whether the database is only temporarily
/// unable to serve.
pub(crate) fn from_sqlx(error: sqlx::Error, is_transient_code: fn(&str) -> bool) -> StoreError {
    match error {
        sqlx::Error::RowNotFound => StoreError::NotFound,
        sqlx::Error::Configuration(_) => {
            StoreError::invalid_url("the connection settings were rejected")
        }
        sqlx::Error::Migrate(migrate_error) => StoreError::Migration { source: migrate_error },
        sqlx::Error::Database(database_error) => {
            if database_error.is_unique_violation() {
                StoreError::Conflict { source: Some(database_error.into()) }
            } else if database_error.code().is_some_and(|code| is_transient_code(&code)) {
                StoreError::Unavailable { source: database_error.into() }
            } else {
                StoreError::internal(database_error)
            }
        }
        // Everything about the connection itself means the database is out of reach for now.
        error @ (sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed) => StoreError::Unavailable { source: error.into() },
        error => StoreError::internal(error),
    }
}

/// Sorts a migration failure: one caused by losing the database is `Unavailable`, anything
/// else (a bad or changed migration) is `Migration`.
pub(crate) fn from_migrate(
    migrate_error: sqlx::migrate::MigrateError,
    is_transient_code: fn(&str) -> bool,
) -> StoreError {
    match migrate_error {
        sqlx::migrate::MigrateError::Execute(sqlx_error) => {
            match from_sqlx(sqlx_error, is_transient_code) {
                unavailable @ StoreError::Unavailable { .. } => unavailable,
                StoreError::Internal { source } | StoreError::Migration { source } => {
                    StoreError::Migration { source }
                }
                other => StoreError::Migration { source: other.into() },
            }
        }
        other => StoreError::Migration { source: other.into() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_timeout_is_unavailable_and_display_hides_the_source() {
        let store_error = from_sqlx(sqlx::Error::PoolTimedOut, |_| false);
        assert!(store_error.is_unavailable());
        assert_eq!(store_error.to_string(), "the scan store is unavailable");
        assert!(StdError::source(&store_error).is_some());
    }

    #[test]
    fn row_not_found_is_not_found() {
        assert!(matches!(from_sqlx(sqlx::Error::RowNotFound, |_| false), StoreError::NotFound));
    }
}
