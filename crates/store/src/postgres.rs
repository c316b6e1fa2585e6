//! The server backend: PostgreSQL, shared by every replica of a deployment.

use std::str::FromStr;
use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use crate::sql::{SqlDialect, impl_sql_store};
use crate::{StoreError, migrations};

/// How many connections one replica keeps at most.
const MAX_CONNECTIONS: u32 = 10;

/// How long an unused connection is kept before it is closed.
const IDLE_TIMEOUT: Duration = Duration::from_secs(600);

/// A store in a PostgreSQL database (or in the first schema of its `search_path`).
pub(crate) struct PostgresStore {
    pool: PgPool,
}

impl PostgresStore {
    const DIALECT: SqlDialect = SqlDialect {
        // The reading is bound as text and cast, because the `json` type keeps it verbatim.
        insert_scan: "INSERT INTO scans \
                      (id, owner, created_at_ms, expires_at_ms, result, portrait) \
                      VALUES ($1, $2, $3, $4, CAST($5 AS JSON), $6)",
        is_transient_code,
        // Rows are deleted for real (no soft delete); their dead tuples are reclaimed by
        // the server's autovacuum.
        after_delete: None,
    };
}

impl_sql_store!(PostgresStore);

/// Whether a SQLSTATE means the server cannot serve right now rather than that the statement
/// is wrong.
fn is_transient_code(sqlstate: &str) -> bool {
    // Class 08 is connection exceptions and class 53 insufficient resources; 57P01..57P05 are
    // the server shutting down or refusing connections; 40001 and 40P01 are serialisation
    // failures and deadlocks, which succeed when retried; 57014 is a cancelled statement.
    sqlstate.starts_with("08")
        || sqlstate.starts_with("53")
        || sqlstate.starts_with("57P")
        || matches!(sqlstate, "40001" | "40P01" | "55P03" | "57014")
}

/// Connects to the database named by a `postgres://` URL and migrates it.
pub(crate) async fn open(url: &str) -> Result<PostgresStore, StoreError> {
    let connect_options = PgConnectOptions::from_str(url)
        .map_err(|_| StoreError::invalid_url("malformed postgres URL"))?;
    let pool = PgPoolOptions::new()
        .max_connections(MAX_CONNECTIONS)
        .min_connections(0)
        .idle_timeout(IDLE_TIMEOUT)
        // A short acquire timeout makes requests fail fast with `Unavailable` while the
        // database is down; the pool opens new connections on later requests, so the store
        // recovers by itself when the database returns.
        .acquire_timeout(crate::ACQUIRE_TIMEOUT)
        // Checking a connection before handing it out discards those the server closed
        // (after a restart, say) instead of failing the request that drew them.
        .test_before_acquire(true)
        .connect_with(connect_options)
        .await
        .map_err(PostgresStore::map_error)?;

    // The migrator takes an advisory lock, so replicas starting together migrate once.
    migrations::migrator(migrations::POSTGRES)
        .await?
        .run(&pool)
        .await
        .map_err(|migrate_error| crate::error::from_migrate(migrate_error, is_transient_code))?;
    Ok(PostgresStore { pool })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_and_shutdown_states_are_transient() {
        for sqlstate in ["08006", "08001", "57P01", "57P03", "53300", "40001"] {
            assert!(is_transient_code(sqlstate), "{sqlstate}");
        }
        for sqlstate in ["23505", "42P01", "42601", "22P02"] {
            assert!(!is_transient_code(sqlstate), "{sqlstate}");
        }
    }
}
