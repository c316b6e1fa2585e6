//! Work on a large request body, kept off the async worker threads.
//!
//! Scanning a 35 MiB JSON body takes tens of milliseconds; on a worker thread it would hold
//! back every other request that thread serves (a `tools/list` waiting behind an upload).

use bytes::Bytes;

/// Bodies at least this large are scanned on the blocking pool.
pub(crate) const LARGE_BODY_BYTES: usize = 1 << 20;

/// Runs `work` on `bytes`: inline for a small body, on the blocking pool for a large one.
/// `None` only when the blocking task could not run (the runtime is shutting down).
pub(crate) async fn for_large<T: Send + 'static>(
    bytes: Bytes,
    work: impl FnOnce(&[u8]) -> T + Send + 'static,
) -> Option<T> {
    if bytes.len() < LARGE_BODY_BYTES {
        return Some(work(&bytes));
    }
    tokio::task::spawn_blocking(move || work(&bytes)).await.ok()
}
