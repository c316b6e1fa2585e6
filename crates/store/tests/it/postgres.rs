//! The store contract on PostgreSQL, plus how the store behaves when the database goes away.
//!
//! These tests need a server: set `MRTD_TEST_DATABASE_URL` (or `DATABASE_URL`) to a database
//! the user may create schemas in, for example the one `scripts/postgres.sh` starts.
//! Each test works in a fresh schema of its own, dropped when it passes.
//! Without a URL the tests say on standard error that they were not run, and with
//! `MRTD_REQUIRE_POSTGRES=1` (as in CI) they fail instead.
//! The dead-database test needs no server and always runs.

#![cfg(feature = "postgres")]

use crate::contract;

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use mrtd_store::{ACQUIRE_TIMEOUT, NewScan, Store, StoreError};
use sqlx::Connection;
use sqlx::postgres::PgConnection;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

/// A variable of the test environment, if set and not empty.
#[allow(clippy::disallowed_methods, reason = "tests take their database from the environment")]
fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

/// The database URL from the environment, if any.
fn database_url() -> Option<String> {
    env_var("MRTD_TEST_DATABASE_URL").or_else(|| env_var("DATABASE_URL"))
}

/// The URL, or `None` after saying why the calling test does not run.
fn database_url_or_report(test_name: &str) -> Option<String> {
    let url = database_url();
    if url.is_none() {
        assert!(
            env_var("MRTD_REQUIRE_POSTGRES").as_deref() != Some("1"),
            "MRTD_REQUIRE_POSTGRES=1 but MRTD_TEST_DATABASE_URL is not set; \
             start a server with scripts/postgres.sh"
        );
        // Written to the real stderr, past the test harness's capture, so it shows up even
        // though the test passes.
        let _ = writeln!(
            std::io::stderr(),
            "NOT RUN: postgres test `{test_name}`: MRTD_TEST_DATABASE_URL is not set \
             (export MRTD_TEST_DATABASE_URL=\"$(scripts/postgres.sh)\")"
        );
    }
    url
}

/// `base_url` with its `search_path` set to `schema`, so the store's tables land there.
fn url_with_schema(base_url: &str, schema: &str) -> String {
    let separator = if base_url.contains('?') { '&' } else { '?' };
    format!("{base_url}{separator}options=-c%20search_path%3D{schema}")
}

/// A store in a fresh schema of the test database.
struct Fixture {
    store: Arc<dyn Store>,
    base_url: String,
    schema: String,
}

impl Fixture {
    async fn create(base_url: String) -> Fixture {
        let schema = format!("mrtd_test_{:032x}", rand::random::<u128>());
        let mut admin =
            PgConnection::connect(&base_url).await.expect("connect to the test database");
        sqlx::raw_sql(&format!("CREATE SCHEMA {schema}")).execute(&mut admin).await.unwrap();
        let store = mrtd_store::open(&url_with_schema(&base_url, &schema)).await.expect("open");
        Fixture { store, base_url, schema }
    }

    fn store(&self) -> Arc<dyn Store> {
        Arc::clone(&self.store)
    }

    async fn finish(self) {
        drop(self.store);
        let mut admin = PgConnection::connect(&self.base_url).await.unwrap();
        let drop_schema = format!("DROP SCHEMA {} CASCADE", self.schema);
        sqlx::raw_sql(&drop_schema).execute(&mut admin).await.unwrap();
    }
}

async fn postgres_fixture(test_name: &str) -> Option<Fixture> {
    let base_url = database_url_or_report(test_name)?;
    Some(Fixture::create(base_url).await)
}

contract_tests!(postgres_fixture);

/// A loopback port with nothing listening on it.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[tokio::test]
async fn a_dead_database_is_unavailable_without_hanging() {
    let url = format!("postgres://mrtd:mrtd@127.0.0.1:{}/mrtd", closed_port());
    // The bound guards against a hang only; the store gives up after ACQUIRE_TIMEOUT.
    let outcome = tokio::time::timeout(ACQUIRE_TIMEOUT * 3, mrtd_store::open(&url))
        .await
        .expect("opening a dead database must not hang");
    match outcome {
        Err(store_error @ StoreError::Unavailable { .. }) => {
            // Clients see a plain message; the detail stays in the source.
            assert_eq!(store_error.to_string(), "the scan store is unavailable");
            assert!(!store_error.to_string().contains("127.0.0.1"));
        }
        other => panic!("expected Unavailable, got {:?}", other.map(|_| "a store")),
    }
}

#[tokio::test]
async fn malformed_postgres_urls_are_invalid() {
    let outcome = mrtd_store::open("postgres://user@host:notaport/db").await;
    assert!(matches!(outcome, Err(StoreError::InvalidUrl { .. })), "{:?}", outcome.err());
}

/// A TCP forwarder between the store and the database, which a test can cut and restore.
struct Proxy {
    accept_task: JoinHandle<()>,
}

impl Proxy {
    /// Forwards connections made to `listen` to `upstream` until dropped.
    async fn start(listen: SocketAddr, upstream: SocketAddr) -> (Proxy, SocketAddr) {
        let listener = TcpListener::bind(listen).await.unwrap();
        let bound = listener.local_addr().unwrap();
        let accept_task = tokio::spawn(async move {
            // The connections live in this set, so aborting the accept task closes them all,
            // as a database crash would.
            let mut connections = JoinSet::new();
            while let Ok((mut client, _)) = listener.accept().await {
                connections.spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
            }
        });
        (Proxy { accept_task }, bound)
    }

    async fn cut(self) {
        self.accept_task.abort();
        let _ = self.accept_task.await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_recovers_when_the_database_returns() {
    let Some(base_url) = database_url_or_report("the_store_recovers_when_the_database_returns")
    else {
        return;
    };
    let fixture = Fixture::create(base_url.clone()).await;
    let parsed = url::Url::parse(&base_url).unwrap();
    let host = parsed.host_str().unwrap();
    let upstream = tokio::net::lookup_host((host, parsed.port().unwrap_or(5432)))
        .await
        .unwrap()
        .next()
        .unwrap();
    let (proxy, proxy_addr) = Proxy::start("127.0.0.1:0".parse().unwrap(), upstream).await;
    let mut proxied = parsed.clone();
    proxied.set_host(Some("127.0.0.1")).unwrap();
    proxied.set_port(Some(proxy_addr.port())).unwrap();
    let store =
        mrtd_store::open(&url_with_schema(proxied.as_str(), &fixture.schema)).await.unwrap();

    let kept = store
        .insert(NewScan {
            owner: "principal:alice".to_owned(),
            result: serde_json::json!({ "document_number": "R1" }),
            retain_until: SystemTime::now() + Duration::from_secs(3600),
            portrait: None,
        })
        .await
        .unwrap();

    // With the database gone, every operation reports Unavailable (never NotFound) promptly.
    proxy.cut().await;
    let outage_guard = ACQUIRE_TIMEOUT * 3;
    let ping = tokio::time::timeout(outage_guard, store.ping()).await.expect("ping must not hang");
    assert!(matches!(ping, Err(StoreError::Unavailable { .. })), "{ping:?}");
    let get = tokio::time::timeout(
        outage_guard,
        store.get("principal:alice", kept.id.as_str(), SystemTime::now()),
    )
    .await
    .expect("get must not hang");
    assert!(matches!(get, Err(StoreError::Unavailable { .. })), "{get:?}");

    // Once the database is back, the same store serves again without being reopened.
    let (restored, _) = Proxy::start(proxy_addr, upstream).await;
    let mut recovered = false;
    for _ in 0..50 {
        if store.ping().await.is_ok() {
            recovered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(recovered, "the store did not recover within 10 s of the database returning");
    let read_back = store.get("principal:alice", kept.id.as_str(), SystemTime::now()).await;
    assert_eq!(read_back.unwrap(), kept);

    restored.cut().await;
    drop(store);
    fixture.finish().await;
}
