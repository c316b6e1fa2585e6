//! The store contract on SQLite, on a fresh file per test, plus what only SQLite has.

#![cfg(feature = "sqlite")]

use crate::contract;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use mrtd_store::{NewScan, Store, StoreError, default_sqlite_url};
use sqlx::Connection;
use tempfile::TempDir;

/// A store in a database file of its own, removed with the fixture.
struct Fixture {
    store: Arc<dyn Store>,
    _data_dir: TempDir,
}

impl Fixture {
    fn store(&self) -> Arc<dyn Store> {
        Arc::clone(&self.store)
    }

    async fn finish(self) {}
}

async fn sqlite_fixture(_test_name: &str) -> Option<Fixture> {
    let data_dir = tempfile::tempdir().expect("temporary directory");
    let store = mrtd_store::open(&default_sqlite_url(data_dir.path())).await.expect("open");
    Some(Fixture { store, _data_dir: data_dir })
}

contract_tests!(sqlite_fixture);

fn sample_scan() -> NewScan {
    NewScan {
        owner: "principal:alice".to_owned(),
        result: serde_json::json!({ "document_number": "L898902C3" }),
        retain_until: SystemTime::now() + Duration::from_secs(3600),
        portrait: None,
    }
}

#[tokio::test]
async fn reopening_the_file_keeps_the_scans() {
    let data_dir = tempfile::tempdir().unwrap();
    // The parent directories of the file do not exist yet; opening creates them.
    let nested_dir = data_dir.path().join("state").join("mrtd");
    let url = default_sqlite_url(&nested_dir);
    let kept = {
        let store = mrtd_store::open(&url).await.unwrap();
        store.insert(sample_scan()).await.unwrap()
    };
    assert!(nested_dir.join("mrtd.db").is_file());

    // Opening again runs the migrations again, which must be a no-op.
    let reopened = mrtd_store::open(&url).await.unwrap();
    let read_back = reopened.get("principal:alice", kept.id.as_str(), SystemTime::now()).await;
    assert_eq!(read_back.unwrap(), kept);
}

#[tokio::test]
async fn files_use_write_ahead_logging() {
    let data_dir = tempfile::tempdir().unwrap();
    let url = default_sqlite_url(data_dir.path());
    let _store = mrtd_store::open(&url).await.unwrap();
    let mut connection = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let journal_mode: String =
        sqlx::query_scalar("PRAGMA journal_mode").fetch_one(&mut connection).await.unwrap();
    assert_eq!(journal_mode, "wal");
}

#[tokio::test]
async fn in_memory_stores_are_private_and_work_across_calls() {
    let first = mrtd_store::open("sqlite::memory:").await.unwrap();
    let second = mrtd_store::open("sqlite::memory:").await.unwrap();
    let kept = first.insert(sample_scan()).await.unwrap();
    let now = SystemTime::now();
    assert_eq!(first.get("principal:alice", kept.id.as_str(), now).await.unwrap(), kept);
    assert!(second.get("principal:alice", kept.id.as_str(), now).await.is_err());
}

#[tokio::test]
async fn a_changed_migration_history_is_a_migration_error() {
    let data_dir = tempfile::tempdir().unwrap();
    let url = default_sqlite_url(data_dir.path());
    drop(mrtd_store::open(&url).await.unwrap());
    // As if the database had been migrated with a different first migration.
    let mut connection = sqlx::SqliteConnection::connect(&url).await.unwrap();
    sqlx::query("UPDATE _sqlx_migrations SET checksum = X'00' WHERE version = 1")
        .execute(&mut connection)
        .await
        .unwrap();
    connection.close().await.unwrap();

    let outcome = mrtd_store::open(&url).await;
    assert!(matches!(outcome, Err(StoreError::Migration { .. })), "{:?}", outcome.err());
}

#[tokio::test]
async fn a_data_directory_that_cannot_be_created_is_unavailable() {
    let data_dir = tempfile::tempdir().unwrap();
    let blocking_file = data_dir.path().join("not-a-directory");
    std::fs::write(&blocking_file, b"").unwrap();
    let url = default_sqlite_url(&blocking_file.join("mrtd"));
    let outcome = mrtd_store::open(&url).await;
    assert!(matches!(outcome, Err(StoreError::Unavailable { .. })), "{:?}", outcome.err());
}

/// Whether any file in `dir` holds `needle`.
fn any_file_holds(dir: &std::path::Path, needle: &[u8]) -> bool {
    std::fs::read_dir(dir).unwrap().any(|entry| {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap_or_default();
        bytes.windows(needle.len()).any(|window| window == needle)
    })
}

#[tokio::test]
async fn a_deleted_portrait_leaves_no_copy_in_the_files() {
    let data_dir = tempfile::tempdir().unwrap();
    let store = mrtd_store::open(&default_sqlite_url(data_dir.path())).await.unwrap();
    // Larger than a page, so that it spills onto overflow pages.
    let marker = b"PORTRAIT-OF-ANNA-MARIA-ERIKSSON";
    let portrait: Vec<u8> = marker.iter().copied().cycle().take(marker.len() * 400).collect();
    let now = SystemTime::now();
    let kept = store.insert(NewScan { portrait: Some(portrait), ..sample_scan() }).await.unwrap();
    assert!(any_file_holds(data_dir.path(), marker), "the portrait is in the files");
    store.delete("principal:alice", kept.id.as_str(), now).await.unwrap();
    assert!(!any_file_holds(data_dir.path(), marker), "a copy of the portrait is left");
}
