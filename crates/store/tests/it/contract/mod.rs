//! The contract every backend of `Store` must pass, written once over `Arc<dyn Store>`.
//!
//! Each backend's test binary calls `contract_tests!` with a fixture factory, which makes one
//! `#[tokio::test]` per behaviour below, each on a fresh, empty store.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mrtd_store::{NewScan, ScanId, ScanRecord, Store, StoreError, spawn_sweeper, to_unix_millis};
use tokio_util::sync::CancellationToken;

/// Makes one test per contract behaviour; `$factory` is an async fn that takes the test's
/// name and returns `Option<Fixture>` (`None` when the backend is not available here, after
/// saying so), where `Fixture` has `store()` and `finish()`.
#[macro_export]
macro_rules! contract_tests {
    ($factory:path) => {
        $crate::contract_tests!(@each $factory;
            insert_then_get_round_trips,
            unknown_and_malformed_ids_are_not_found,
            another_owners_scan_is_not_found,
            expired_scans_are_never_served,
            deleted_scans_are_gone,
            deleting_another_owners_scan_is_not_found_and_keeps_it,
            list_pages_newest_first_without_duplicates,
            list_cursor_survives_changes_between_pages,
            list_rejects_foreign_cursors,
            purge_removes_only_expired_scans,
            parallel_inserts_all_land,
            api_keys_are_created_found_and_revoked,
            sweeper_purges_expired_scans_and_stops,
            ping_answers,
            a_nonce_is_redeemed_once_until_it_expires,
            a_portrait_is_kept_with_its_scan_for_its_owner_only,
            a_portrait_goes_with_its_scan,
        );
    };
    (@each $factory:path; $($behaviour:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $behaviour() {
                if let Some(fixture) = $factory(stringify!($behaviour)).await {
                    contract::$behaviour(fixture.store()).await;
                    fixture.finish().await;
                }
            }
        )*
    };
}

const ALICE: &str = "principal:alice";
const BOB: &str = "principal:bob";
const HOUR: Duration = Duration::from_secs(3600);

/// A reading shaped like the engine's, with a field per document to tell scans apart.
fn reading(document_number: &str) -> serde_json::Value {
    serde_json::json!({
        "format": "TD3",
        "fields": {
            "document_number": document_number,
            "surname": "ERIKSSON",
            "given_names": "ANNA MARIA",
            "birth_date": "1974-08-12",
            "place_of_birth": "Zürich \"Ö\" \\ 🛂",
        },
        "checks": { "composite": true },
        "confidence": 0.875,
        "diagnostics": [],
    })
}

/// Returns once the clock the store stamps rows with has left the millisecond of `stamp`, so
/// that the next row is stamped later: a wait on the clock itself, not a guessed pause.
async fn after_millisecond_of(stamp: SystemTime) {
    let stamp = to_unix_millis(stamp);
    while to_unix_millis(SystemTime::now()) <= stamp {
        tokio::task::yield_now().await;
    }
}

fn new_scan(owner: &str, document_number: &str, retain_until: SystemTime) -> NewScan {
    NewScan {
        owner: owner.to_owned(),
        result: reading(document_number),
        retain_until,
        portrait: None,
    }
}

/// A JPEG-shaped portrait (bytes of every value, a few kilobytes), to tell scans apart.
fn portrait_jpeg(seed: u8) -> Vec<u8> {
    let mut bytes = vec![0xff, 0xd8, 0xff, 0xe0, seed];
    bytes.extend((0..4096u32).map(|n| (n as u8).wrapping_mul(31).wrapping_add(seed)));
    bytes.extend([0xff, 0xd9]);
    bytes
}

fn with_portrait(scan: NewScan, seed: u8) -> NewScan {
    NewScan { portrait: Some(portrait_jpeg(seed)), ..scan }
}

/// Truncates a time to the store's millisecond precision.
fn to_millis_precision(time: SystemTime) -> SystemTime {
    mrtd_store::from_unix_millis(to_unix_millis(time))
}

fn assert_not_found<T: std::fmt::Debug>(outcome: Result<T, StoreError>, what: &str) {
    assert!(
        matches!(outcome, Err(StoreError::NotFound)),
        "{what}: expected NotFound, got {outcome:?}"
    );
}

/// Collects every page of `owner`'s scans at `now`, checking each page's size.
async fn list_all(store: &dyn Store, owner: &str, now: SystemTime, limit: u32) -> Vec<ScanRecord> {
    let mut all_records = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..1000 {
        let page = store.list(owner, now, cursor.as_deref(), limit).await.expect("list");
        assert!(page.items.len() <= limit as usize);
        if page.next_cursor.is_some() {
            assert_eq!(page.items.len(), limit as usize, "only the last page may be short");
        }
        all_records.extend(page.items);
        cursor = page.next_cursor;
        if cursor.is_none() {
            return all_records;
        }
    }
    panic!("pagination did not end");
}

pub async fn insert_then_get_round_trips(store: Arc<dyn Store>) {
    let before = to_millis_precision(SystemTime::now());
    let retain_until = SystemTime::now() + HOUR;
    let inserted = store.insert(new_scan(ALICE, "L898902C3", retain_until)).await.unwrap();
    let after = SystemTime::now();

    assert_eq!(ScanId::parse(inserted.id.as_str()).as_ref(), Some(&inserted.id));
    assert_eq!(inserted.owner, ALICE);
    assert_eq!(inserted.result, reading("L898902C3"));
    assert_eq!(inserted.expires_at, to_millis_precision(retain_until));
    assert!(before <= inserted.created_at && inserted.created_at <= after);

    let read_back = store.get(ALICE, inserted.id.as_str(), SystemTime::now()).await.unwrap();
    assert_eq!(read_back, inserted);
    // The reading comes back with its fields in the order they were written.
    assert_eq!(read_back.result.to_string(), reading("L898902C3").to_string());
}

pub async fn unknown_and_malformed_ids_are_not_found(store: Arc<dyn Store>) {
    let now = SystemTime::now();
    let kept = store.insert(new_scan(ALICE, "X1", now + HOUR)).await.unwrap();
    let unknown = ScanId::generate().to_string();
    let kept_upper = kept.id.as_str().to_uppercase();
    let kept_prefix = &kept.id.as_str()[..10];
    let malformed = ["", "scn_", "scn_x", "' OR '1'='1", "%", kept_upper.as_str(), kept_prefix];
    for id in std::iter::once(unknown.as_str()).chain(malformed) {
        assert_not_found(store.get(ALICE, id, now).await, &format!("get {id:?}"));
        assert_not_found(store.delete(ALICE, id, now).await, &format!("delete {id:?}"));
    }
    // None of that disturbed the kept scan.
    store.get(ALICE, kept.id.as_str(), now).await.unwrap();
}

pub async fn another_owners_scan_is_not_found(store: Arc<dyn Store>) {
    let now = SystemTime::now();
    let alices = store.insert(new_scan(ALICE, "A1", now + HOUR)).await.unwrap();
    assert_not_found(store.get(BOB, alices.id.as_str(), now).await, "bob reads alice's scan");
    assert_not_found(store.get("", alices.id.as_str(), now).await, "empty owner");
    assert!(store.list(BOB, now, None, 100).await.unwrap().items.is_empty());
    assert_eq!(store.get(ALICE, alices.id.as_str(), now).await.unwrap(), alices);
}

pub async fn expired_scans_are_never_served(store: Arc<dyn Store>) {
    let now = SystemTime::now();
    let retain_until = to_millis_precision(now + HOUR);
    let kept = store.insert(new_scan(ALICE, "E1", retain_until)).await.unwrap();
    let id = kept.id.as_str();

    // Alive up to the last millisecond before the expiry time, gone from it on.
    let last_alive = retain_until - Duration::from_millis(1);
    assert_eq!(store.get(ALICE, id, last_alive).await.unwrap(), kept);
    assert_eq!(store.list(ALICE, last_alive, None, 10).await.unwrap().items, vec![kept.clone()]);
    assert_not_found(store.get(ALICE, id, retain_until).await, "get at expiry");
    assert_not_found(store.get(ALICE, id, retain_until + HOUR).await, "get after expiry");
    assert!(store.list(ALICE, retain_until, None, 10).await.unwrap().items.is_empty());
    assert_not_found(store.delete(ALICE, id, retain_until).await, "delete after expiry");

    // A scan whose retention is already over when it is stored is never served.
    let stillborn = store.insert(new_scan(ALICE, "E2", now - HOUR)).await.unwrap();
    assert_not_found(store.get(ALICE, stillborn.id.as_str(), now).await, "already expired");
}

pub async fn deleted_scans_are_gone(store: Arc<dyn Store>) {
    let now = SystemTime::now();
    let doomed = store.insert(new_scan(ALICE, "D1", now + HOUR)).await.unwrap();
    let kept = store.insert(new_scan(ALICE, "D2", now + HOUR)).await.unwrap();
    store.delete(ALICE, doomed.id.as_str(), now).await.unwrap();
    assert_not_found(store.get(ALICE, doomed.id.as_str(), now).await, "get after delete");
    assert_not_found(store.delete(ALICE, doomed.id.as_str(), now).await, "second delete");
    assert_eq!(store.list(ALICE, now, None, 10).await.unwrap().items, vec![kept]);
}

pub async fn deleting_another_owners_scan_is_not_found_and_keeps_it(store: Arc<dyn Store>) {
    let now = SystemTime::now();
    let alices = store.insert(new_scan(ALICE, "O1", now + HOUR)).await.unwrap();
    assert_not_found(store.delete(BOB, alices.id.as_str(), now).await, "bob deletes alice's");
    assert_eq!(store.get(ALICE, alices.id.as_str(), now).await.unwrap(), alices);
}

pub async fn list_pages_newest_first_without_duplicates(store: Arc<dyn Store>) {
    let now = SystemTime::now();
    let oldest = store.insert(new_scan(ALICE, "P-oldest", now + HOUR)).await.unwrap();
    // Stamps a millisecond apart make "newest first" observable despite millisecond times.
    after_millisecond_of(oldest.created_at).await;
    let mut expected_ids = HashSet::from([oldest.id.clone()]);
    let mut last_made = oldest.created_at;
    for scan_idx in 0..24 {
        let document_number = format!("P{scan_idx}");
        let scan = store.insert(new_scan(ALICE, &document_number, now + HOUR)).await.unwrap();
        last_made = scan.created_at;
        expected_ids.insert(scan.id);
    }
    after_millisecond_of(last_made).await;
    let newest = store.insert(new_scan(ALICE, "P-newest", now + HOUR)).await.unwrap();
    expected_ids.insert(newest.id.clone());
    // Noise that must not show up: another owner's scans and an expired scan of alice's.
    store.insert(new_scan(BOB, "B1", now + HOUR)).await.unwrap();
    store.insert(new_scan(ALICE, "P-expired", now - HOUR)).await.unwrap();

    let listed = list_all(store.as_ref(), ALICE, SystemTime::now(), 7).await;
    assert_eq!(listed.len(), 26);
    let listed_ids: HashSet<ScanId> = listed.iter().map(|record| record.id.clone()).collect();
    assert_eq!(listed_ids, expected_ids, "every own live scan exactly once");
    assert!(listed.iter().all(|record| record.owner == ALICE));
    assert_eq!(listed.first().map(|record| &record.id), Some(&newest.id));
    assert_eq!(listed.last().map(|record| &record.id), Some(&oldest.id));
    for pair in listed.windows(2) {
        let newer = (pair[0].created_at, &pair[0].id);
        let older = (pair[1].created_at, &pair[1].id);
        assert!(newer > older, "listing order must be strictly newest first");
    }

    // The same walk again gives the same pages: the order is stable.
    let listed_again = list_all(store.as_ref(), ALICE, SystemTime::now(), 7).await;
    assert_eq!(listed_again, listed);

    // Page sizes are clamped to 1..=100.
    let smallest = store.list(ALICE, SystemTime::now(), None, 0).await.unwrap();
    assert_eq!(smallest.items.len(), 1);
    assert!(smallest.next_cursor.is_some());
    let whole = store.list(ALICE, SystemTime::now(), None, u32::MAX).await.unwrap();
    assert_eq!(whole.items.len(), 26);
    assert_eq!(whole.next_cursor, None);
}

pub async fn list_cursor_survives_changes_between_pages(store: Arc<dyn Store>) {
    let now = SystemTime::now();
    for scan_idx in 0..10 {
        store.insert(new_scan(ALICE, &format!("C{scan_idx}"), now + HOUR)).await.unwrap();
    }
    let first_page = store.list(ALICE, now, None, 4).await.unwrap();
    let cursor = first_page.next_cursor.clone().expect("more pages");
    // Deleting the scan the cursor points at and adding a newer one change nothing for the
    // rest of the walk.
    let at_cursor = first_page.items.last().unwrap();
    store.delete(ALICE, at_cursor.id.as_str(), now).await.unwrap();
    // Creation times are kept to the millisecond and ties are ordered by the random id, so
    // a scan made within the same millisecond may rightly sort after the cursor: wait for
    // the newer one to be newer than the newest listed.
    after_millisecond_of(first_page.items[0].created_at).await;
    store.insert(new_scan(ALICE, "C-late", now + HOUR)).await.unwrap();

    let mut rest = Vec::new();
    let mut next_cursor = Some(cursor);
    while let Some(cursor) = next_cursor {
        let page = store.list(ALICE, now, Some(&cursor), 4).await.unwrap();
        rest.extend(page.items);
        next_cursor = page.next_cursor;
    }
    assert_eq!(rest.len(), 6);
    let first_ids: HashSet<&ScanId> = first_page.items.iter().map(|record| &record.id).collect();
    assert!(rest.iter().all(|record| !first_ids.contains(&record.id)), "no duplicates");
}

pub async fn list_rejects_foreign_cursors(store: Arc<dyn Store>) {
    let now = SystemTime::now();
    for cursor in ["", "garbage", "v1.12.scn_nope", "' OR 1=1 --"] {
        let outcome = store.list(ALICE, now, Some(cursor), 10).await;
        assert!(matches!(outcome, Err(StoreError::InvalidCursor)), "{cursor:?}: {outcome:?}");
    }
}

pub async fn purge_removes_only_expired_scans(store: Arc<dyn Store>) {
    let now = SystemTime::now();
    let mut expired = Vec::new();
    for scan_idx in 0..3 {
        let retain_until = now - Duration::from_secs(scan_idx + 1);
        expired.push(store.insert(new_scan(ALICE, "X", retain_until)).await.unwrap());
    }
    let at_boundary = store.insert(new_scan(BOB, "X", now)).await.unwrap();
    let alive = store.insert(new_scan(ALICE, "Y", now + HOUR)).await.unwrap();
    let bobs_alive = store.insert(new_scan(BOB, "Z", now + HOUR)).await.unwrap();

    assert_eq!(store.purge_expired(now).await.unwrap(), 4);
    // Asking with a time long past shows which rows still exist at all.
    let long_ago = UNIX_EPOCH;
    for gone in expired.iter().chain([&at_boundary]) {
        assert_not_found(store.get(&gone.owner, gone.id.as_str(), long_ago).await, "purged");
    }
    assert_eq!(store.get(ALICE, alive.id.as_str(), now).await.unwrap(), alive);
    assert_eq!(store.get(BOB, bobs_alive.id.as_str(), now).await.unwrap(), bobs_alive);
    assert_eq!(store.purge_expired(now).await.unwrap(), 0);
}

pub async fn parallel_inserts_all_land(store: Arc<dyn Store>) {
    const N_TASKS: usize = 16;
    const N_PER_TASK: usize = 8;
    let retain_until = SystemTime::now() + HOUR;
    let mut tasks = Vec::new();
    for task_idx in 0..N_TASKS {
        let store = Arc::clone(&store);
        tasks.push(tokio::spawn(async move {
            let mut ids = Vec::new();
            for scan_idx in 0..N_PER_TASK {
                let owner = if task_idx % 2 == 0 { ALICE } else { BOB };
                let document_number = format!("T{task_idx}-{scan_idx}");
                let scan = store.insert(new_scan(owner, &document_number, retain_until)).await;
                ids.push((owner, scan.expect("parallel insert").id));
            }
            ids
        }));
    }
    let mut all_ids = Vec::new();
    for task in tasks {
        all_ids.extend(task.await.unwrap());
    }
    let distinct: HashSet<&ScanId> = all_ids.iter().map(|(_, id)| id).collect();
    assert_eq!(distinct.len(), N_TASKS * N_PER_TASK);
    let now = SystemTime::now();
    for (owner, id) in &all_ids {
        assert_eq!(&store.get(owner, id.as_str(), now).await.unwrap().owner, owner);
    }
    let n_alices = all_ids.iter().filter(|(owner, _)| *owner == ALICE).count();
    assert_eq!(list_all(store.as_ref(), ALICE, now, 100).await.len(), n_alices);

    // With more than a page's worth, a huge limit is clamped to the maximum page.
    let page = store.list(ALICE, now, None, 500).await.unwrap();
    assert_eq!(page.items.len(), 64);
    for _ in 0..40 {
        store.insert(new_scan(ALICE, "fill", retain_until)).await.unwrap();
    }
    let page = store.list(ALICE, now, None, 500).await.unwrap();
    assert_eq!(page.items.len(), mrtd_store::MAX_PAGE_SIZE as usize);
    assert!(page.next_cursor.is_some());
}

pub async fn api_keys_are_created_found_and_revoked(store: Arc<dyn Store>) {
    assert!(store.list_api_keys().await.unwrap().is_empty());
    let ci_key = store.create_api_key("ci", "hash-one").await.unwrap();
    assert!(ci_key.id.starts_with("key_"));
    assert_eq!((ci_key.name.as_str(), ci_key.revoked_at), ("ci", None));
    assert_eq!(store.find_api_key_by_hash("hash-one").await.unwrap(), Some(ci_key.clone()));
    assert_eq!(store.find_api_key_by_hash("hash-two").await.unwrap(), None);

    // Names and hashes are unique among live keys.
    let same_name = store.create_api_key("ci", "hash-two").await;
    assert!(matches!(same_name, Err(StoreError::Conflict { .. })), "{same_name:?}");
    let same_hash = store.create_api_key("other", "hash-one").await;
    assert!(matches!(same_hash, Err(StoreError::Conflict { .. })), "{same_hash:?}");
    // Creation times a millisecond apart make the listing order below the creation order.
    after_millisecond_of(ci_key.created_at).await;
    let ops_key = store.create_api_key("ops", "hash-three").await.unwrap();
    assert_eq!(store.list_api_keys().await.unwrap(), vec![ci_key.clone(), ops_key.clone()]);

    // Revoking by name stops the key from being found; a second revoke finds nothing.
    let revoked = store.revoke_api_key("ci").await.unwrap();
    assert_eq!(revoked.id, ci_key.id);
    assert!(revoked.revoked_at.is_some());
    assert_eq!(store.find_api_key_by_hash("hash-one").await.unwrap(), None);
    assert_not_found(store.revoke_api_key("ci").await, "revoke twice");
    assert_not_found(store.revoke_api_key("nobody").await, "revoke unknown");

    // A revoked key's name and hash can be used again; revoking by id works too.
    after_millisecond_of(ops_key.created_at).await;
    let renewed = store.create_api_key("ci", "hash-one").await.unwrap();
    assert_ne!(renewed.id, ci_key.id);
    assert_eq!(store.find_api_key_by_hash("hash-one").await.unwrap(), Some(renewed.clone()));
    assert_eq!(store.revoke_api_key(&ops_key.id).await.unwrap().id, ops_key.id);
    assert_eq!(store.find_api_key_by_hash("hash-three").await.unwrap(), None);

    let listed = store.list_api_keys().await.unwrap();
    assert_eq!(listed.len(), 3);
    let revoked_names: Vec<&str> =
        listed.iter().filter(|key| key.revoked_at.is_some()).map(|key| key.name.as_str()).collect();
    assert_eq!(revoked_names, vec!["ci", "ops"]);
}

pub async fn sweeper_purges_expired_scans_and_stops(store: Arc<dyn Store>) {
    let now = SystemTime::now();
    let expired = store.insert(new_scan(ALICE, "S1", now - HOUR)).await.unwrap();
    let alive = store.insert(new_scan(ALICE, "S2", now + HOUR)).await.unwrap();
    let long_ago = UNIX_EPOCH;
    // The expired row is still there until the sweeper runs.
    store.get(ALICE, expired.id.as_str(), long_ago).await.unwrap();

    let shutdown = CancellationToken::new();
    let sweeper = spawn_sweeper(Arc::clone(&store), Duration::from_millis(50), shutdown.clone());
    let mut purged = false;
    for _ in 0..100 {
        if store.get(ALICE, expired.id.as_str(), long_ago).await.is_err() {
            purged = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(purged, "the sweeper did not purge the expired scan within 5 s");
    assert_eq!(store.get(ALICE, alive.id.as_str(), now).await.unwrap(), alive);

    shutdown.cancel();
    tokio::time::timeout(Duration::from_secs(5), sweeper)
        .await
        .expect("the sweeper stops when cancelled")
        .expect("the sweeper task does not panic");
}

pub async fn ping_answers(store: Arc<dyn Store>) {
    store.ping().await.unwrap();
}

/// A single-use token is accepted once, by every caller of the store at once as much as
/// one after another, and forgotten once it has expired and been purged.
pub async fn a_nonce_is_redeemed_once_until_it_expires(store: Arc<dyn Store>) {
    let now = SystemTime::now();
    assert!(store.redeem("nonce-1", now + HOUR).await.unwrap());
    assert!(!store.redeem("nonce-1", now + HOUR).await.unwrap());
    assert!(store.redeem("nonce-2", now + HOUR).await.unwrap());

    let racers: Vec<_> = (0..8)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.redeem("contested", SystemTime::now() + HOUR).await })
        })
        .collect();
    let mut winners = 0;
    for racer in racers {
        if racer.await.unwrap().unwrap() {
            winners += 1;
        }
    }
    assert_eq!(winners, 1, "exactly one caller redeems a contested nonce");

    // Purging after the expiry forgets the nonce (its request state has expired too).
    store.purge_expired(now + 2 * HOUR).await.unwrap();
    assert!(store.redeem("nonce-1", now + 3 * HOUR).await.unwrap());
}

pub async fn a_portrait_is_kept_with_its_scan_for_its_owner_only(store: Arc<dyn Store>) {
    let now = SystemTime::now();
    let with = store.insert(with_portrait(new_scan(ALICE, "P1", now + HOUR), 1)).await.unwrap();
    let without = store.insert(new_scan(ALICE, "P2", now + HOUR)).await.unwrap();
    let bobs = store.insert(with_portrait(new_scan(BOB, "P3", now + HOUR), 3)).await.unwrap();
    assert!(with.has_portrait && !without.has_portrait);
    // The record says whether there is one, as read back and as listed.
    assert_eq!(store.get(ALICE, with.id.as_str(), now).await.unwrap(), with);
    assert_eq!(store.get(ALICE, without.id.as_str(), now).await.unwrap(), without);
    let listed = store.list(ALICE, now, None, 10).await.unwrap().items;
    assert_eq!(listed.len(), 2);
    for record in listed {
        assert_eq!(record.has_portrait, record.id == with.id, "{record:?}");
    }

    assert_eq!(store.portrait(ALICE, with.id.as_str(), now).await.unwrap(), portrait_jpeg(1));
    assert_eq!(store.portrait(BOB, bobs.id.as_str(), now).await.unwrap(), portrait_jpeg(3));
    assert_not_found(store.portrait(BOB, with.id.as_str(), now).await, "bob's look at alice's");
    assert_not_found(store.portrait(ALICE, bobs.id.as_str(), now).await, "alice's at bob's");
    assert_not_found(store.portrait("", with.id.as_str(), now).await, "empty owner");
    assert_not_found(store.portrait(ALICE, without.id.as_str(), now).await, "kept without one");
    let unknown = ScanId::generate().to_string();
    for id in [unknown.as_str(), "", "scn_", "' OR '1'='1", &with.id.as_str()[..10]] {
        assert_not_found(store.portrait(ALICE, id, now).await, &format!("portrait {id:?}"));
    }
}

pub async fn a_portrait_goes_with_its_scan(store: Arc<dyn Store>) {
    let now = SystemTime::now();
    let retain_until = to_millis_precision(now + HOUR);
    let deleted = store.insert(with_portrait(new_scan(ALICE, "G1", retain_until), 1)).await;
    let expiring = store.insert(with_portrait(new_scan(ALICE, "G2", retain_until), 2)).await;
    let (deleted, expiring) = (deleted.unwrap(), expiring.unwrap());

    store.delete(ALICE, deleted.id.as_str(), now).await.unwrap();
    assert_not_found(store.portrait(ALICE, deleted.id.as_str(), now).await, "after delete");

    // Served up to the scan's expiry, never from it on, and purged with it.
    let last_alive = retain_until - Duration::from_millis(1);
    let id = expiring.id.as_str();
    assert_eq!(store.portrait(ALICE, id, last_alive).await.unwrap(), portrait_jpeg(2));
    assert_not_found(store.portrait(ALICE, id, retain_until).await, "at expiry");
    assert_eq!(store.purge_expired(retain_until).await.unwrap(), 1);
    // Asking with a time long past shows that the row is gone, portrait and all.
    assert_not_found(store.portrait(ALICE, id, UNIX_EPOCH).await, "purged");
    assert_not_found(store.get(ALICE, id, UNIX_EPOCH).await, "purged");
}
