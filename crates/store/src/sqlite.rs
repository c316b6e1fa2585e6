//! The embedded backend: one SQLite file in write-ahead-log mode.

use std::str::FromStr;
use std::time::Duration;

use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::sql::{SqlDialect, impl_sql_store};
use crate::{StoreError, migrations};

/// How long a connection waits for another writer before reporting the file as busy.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// How many connections a file-backed store keeps; WAL lets readers run beside the one writer.
const MAX_CONNECTIONS: u32 = 8;

/// A store in a SQLite database.
pub(crate) struct SqliteStore {
    pool: SqlitePool,
}

impl SqliteStore {
    const DIALECT: SqlDialect = SqlDialect {
        insert_scan: "INSERT INTO scans \
                      (id, owner, created_at_ms, expires_at_ms, result, portrait) \
                      VALUES ($1, $2, $3, $4, $5, $6)",
        is_transient_code,
        // With `secure_delete` a deleted row's bytes are overwritten in the database file,
        // but the write-ahead log still holds the pages as they were; checkpointing and
        // truncating it removes that copy.
        after_delete: Some("PRAGMA wal_checkpoint(TRUNCATE)"),
    };
}

impl_sql_store!(SqliteStore);

/// Whether a SQLite result code means the file is temporarily unusable rather than that the
/// statement is wrong.
fn is_transient_code(code: &str) -> bool {
    // sqlx reports extended result codes; the primary code is the low byte.
    const SQLITE_BUSY: i64 = 5;
    const SQLITE_LOCKED: i64 = 6;
    const SQLITE_IOERR: i64 = 10;
    const SQLITE_FULL: i64 = 13;
    const SQLITE_CANTOPEN: i64 = 14;
    code.parse::<i64>().is_ok_and(|extended_code| {
        matches!(
            extended_code & 0xff,
            SQLITE_BUSY | SQLITE_LOCKED | SQLITE_IOERR | SQLITE_FULL | SQLITE_CANTOPEN
        )
    })
}

/// Whether the URL names an in-memory database rather than a file.
fn is_in_memory(url: &str) -> bool {
    let rest = url.trim_start_matches("sqlite://").trim_start_matches("sqlite:");
    let (database, params) = rest.split_once('?').unwrap_or((rest, ""));
    database == ":memory:" || params.split('&').any(|param| param == "mode=memory")
}

/// Opens (creating if needed) the database named by a `sqlite:` URL and migrates it.
pub(crate) async fn open(url: &str) -> Result<SqliteStore, StoreError> {
    let in_memory = is_in_memory(url);
    let connect_options = SqliteConnectOptions::from_str(url)
        .map_err(|_| StoreError::invalid_url("malformed sqlite URL"))?
        .busy_timeout(BUSY_TIMEOUT)
        .foreign_keys(true)
        // Deleted rows are overwritten with zeros, not left in free pages.
        .pragma("secure_delete", "ON");
    let pool_options = SqlitePoolOptions::new().acquire_timeout(crate::ACQUIRE_TIMEOUT);
    let pool = if in_memory {
        // Each in-memory database lives only as long as a connection to it, so the pool holds
        // exactly one connection forever; that also avoids the table locks of a shared cache.
        pool_options
            .max_connections(1)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_with(connect_options)
            .await
    } else {
        if let Some(parent_dir) = connect_options.get_filename().parent()
            && !parent_dir.as_os_str().is_empty()
        {
            tokio::fs::create_dir_all(parent_dir)
                .await
                .map_err(|io_error| StoreError::Unavailable { source: io_error.into() })?;
        }
        private_file(connect_options.get_filename())
            .map_err(|io_error| StoreError::Unavailable { source: io_error.into() })?;
        let connect_options = connect_options
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // With WAL, NORMAL loses at most the last transactions on power loss, never
            // consistency, and avoids an fsync per insert.
            .synchronous(SqliteSynchronous::Normal);
        pool_options.max_connections(MAX_CONNECTIONS).connect_with(connect_options).await
    }
    .map_err(SqliteStore::map_error)?;

    migrations::migrator(migrations::SQLITE)
        .await?
        .run(&pool)
        .await
        .map_err(|migrate_error| crate::error::from_migrate(migrate_error, is_transient_code))?;
    Ok(SqliteStore { pool })
}

/// Creates the database file readable and writable by this user only (0600), or narrows an
/// existing one to that. SQLite gives its write-ahead log and shared-memory files the
/// database file's mode, so they are private too.
fn private_file(path: &std::path::Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        std::fs::OpenOptions::new().create(true).append(true).mode(0o600).open(path)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_memory_urls_are_recognised() {
        assert!(is_in_memory("sqlite::memory:"));
        assert!(is_in_memory("sqlite://:memory:"));
        assert!(is_in_memory("sqlite://?mode=memory&cache=private"));
        assert!(!is_in_memory("sqlite:///var/lib/mrtd/mrtd.db"));
        assert!(!is_in_memory("sqlite://data/mrtd.db?mode=rwc"));
    }

    #[test]
    fn busy_and_locked_are_transient_but_constraints_are_not() {
        assert!(is_transient_code("5"));
        assert!(is_transient_code("517"));
        assert!(is_transient_code("14"));
        assert!(!is_transient_code("2067"));
        assert!(!is_transient_code("1"));
        assert!(!is_transient_code("not a number"));
    }
}
