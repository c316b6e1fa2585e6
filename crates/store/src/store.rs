//! The `Store` trait that every backend implements.

use std::time::SystemTime;

use async_trait::async_trait;

use crate::{ApiKeyRecord, NewScan, Page, ScanRecord, StoreError};

/// Where kept scans and API keys live.
///
/// A store is shared as `Arc<dyn Store>` by every request of a server, and several server
/// replicas may share one database, so implementations keep no per-request state in memory.
///
/// Every operation that reads scans takes `now` from the caller, so that expiry is decided
/// by one clock per request and tests can move time freely.
/// A scan is alive while `now < expires_at`; an expired scan is never served, even before
/// [`purge_expired`](Store::purge_expired) removes it.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Keeps a scan and returns it with its new id and creation time.
    ///
    /// The creation time is the store's clock at the time of the call.
    async fn insert(&self, new_scan: NewScan) -> Result<ScanRecord, StoreError>;

    /// Reads one of `owner`'s scans.
    ///
    /// Fails with [`StoreError::NotFound`] when `id` is malformed or unknown, belongs to
    /// another owner, or has expired by `now`.
    async fn get(&self, owner: &str, id: &str, now: SystemTime) -> Result<ScanRecord, StoreError>;

    /// The portrait kept with one of `owner`'s scans (a JPEG), with the same
    /// [`StoreError::NotFound`] cases as [`get`](Store::get), and `NotFound` too when the
    /// scan was kept without one.
    async fn portrait(&self, owner: &str, id: &str, now: SystemTime)
    -> Result<Vec<u8>, StoreError>;

    /// Deletes one of `owner`'s scans, and its portrait, with the same [`StoreError::NotFound`] cases as
    /// [`get`](Store::get); another owner's scan is left untouched.
    async fn delete(&self, owner: &str, id: &str, now: SystemTime) -> Result<(), StoreError>;

    /// Lists `owner`'s scans that are alive at `now`, newest first.
    ///
    /// `limit` is clamped to `1..=`[`MAX_PAGE_SIZE`](crate::MAX_PAGE_SIZE).
    /// Pass the previous page's `next_cursor` to continue; a cursor that this store did not
    /// produce fails with [`StoreError::InvalidCursor`].
    async fn list(
        &self,
        owner: &str,
        now: SystemTime,
        cursor: Option<&str>,
        limit: u32,
    ) -> Result<Page, StoreError>;

    /// Deletes every scan that has expired by `now`, with its portrait, and returns how many were deleted
    /// (redeemed request states that have expired go too, uncounted).
    async fn purge_expired(&self, now: SystemTime) -> Result<u64, StoreError>;

    /// Marks the single-use token `nonce` as used until `expires_at`: `true` the first
    /// time, `false` for every later call with the same nonce, on any replica sharing the
    /// database.
    async fn redeem(&self, nonce: &str, expires_at: SystemTime) -> Result<bool, StoreError>;

    /// Checks that the database answers, for readiness probes.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Records a new API key under `name`, given the hash of its secret.
    ///
    /// Fails with [`StoreError::Conflict`] when a key that is not revoked already has this
    /// name or this hash.
    async fn create_api_key(&self, name: &str, hash: &str) -> Result<ApiKeyRecord, StoreError>;

    /// Lists every API key, revoked ones included, oldest first.
    async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError>;

    /// Revokes the key that is not yet revoked and has this id or name, and returns it.
    ///
    /// Fails with [`StoreError::NotFound`] when there is no such key.
    async fn revoke_api_key(&self, name_or_id: &str) -> Result<ApiKeyRecord, StoreError>;

    /// Finds the key, not revoked, whose hash is `hash`.
    async fn find_api_key_by_hash(&self, hash: &str) -> Result<Option<ApiKeyRecord>, StoreError>;
}
