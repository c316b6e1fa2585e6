//! The schema migrations, embedded in the binary and run when a store is opened.
//!
//! They are embedded with `include_str!` rather than read from disk at run time, so a
//! deployed binary needs no files beside it, and without sqlx's `migrate!` macro, which would
//! pull in its whole compile-time query machinery.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;

use sqlx::error::BoxDynError;
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};

use crate::StoreError;

/// One migration file: its version, its description and its SQL.
type MigrationFile = (i64, &'static str, &'static str);

/// The SQLite migrations, oldest first.
#[cfg(feature = "sqlite")]
pub(crate) const SQLITE: &[MigrationFile] = &[
    (1, "initial", include_str!("../migrations/sqlite/0001_initial.sql")),
    (2, "redeemed states", include_str!("../migrations/sqlite/0002_redeemed_states.sql")),
    (3, "portraits", include_str!("../migrations/sqlite/0003_portraits.sql")),
];

/// The PostgreSQL migrations, oldest first.
#[cfg(feature = "postgres")]
pub(crate) const POSTGRES: &[MigrationFile] = &[
    (1, "initial", include_str!("../migrations/postgres/0001_initial.sql")),
    (2, "redeemed states", include_str!("../migrations/postgres/0002_redeemed_states.sql")),
    (3, "portraits", include_str!("../migrations/postgres/0003_portraits.sql")),
];

/// A migration source over one of the embedded lists.
#[derive(Debug)]
struct EmbeddedMigrations(&'static [MigrationFile]);

impl MigrationSource<'static> for EmbeddedMigrations {
    fn resolve(
        self,
    ) -> Pin<Box<dyn Future<Output = Result<Vec<Migration>, BoxDynError>> + Send + 'static>> {
        let migrations = self
            .0
            .iter()
            .map(|&(version, description, sql)| {
                Migration::new(
                    version,
                    Cow::Borrowed(description),
                    MigrationType::Simple,
                    Cow::Borrowed(sql),
                    false,
                )
            })
            .collect();
        Box::pin(async move { Ok(migrations) })
    }
}

/// Builds the migrator for one backend's list.
pub(crate) async fn migrator(files: &'static [MigrationFile]) -> Result<Migrator, StoreError> {
    Migrator::new(EmbeddedMigrations(files))
        .await
        .map_err(|migrate_error| StoreError::Migration { source: migrate_error.into() })
}
