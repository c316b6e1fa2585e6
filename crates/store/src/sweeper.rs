//! The background task that deletes expired scans.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::task::JoinHandle;
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

use crate::Store;

/// Starts a task that calls [`Store::purge_expired`] every `every`, first right away, until
/// `shutdown` is cancelled.
///
/// Expired scans are never served even before they are purged, so the sweeper only bounds how
/// long expired data stays on disk; several replicas may each run one without harm.
/// It logs how many scans it deleted, never what they held, and logs failures as warnings
/// and carries on, so a database outage does not end it.
///
/// # Panics
///
/// Panics if `every` is zero, or when called outside a Tokio runtime.
pub fn spawn_sweeper(
    store: Arc<dyn Store>,
    every: Duration,
    shutdown: CancellationToken,
) -> JoinHandle<()> {
    assert!(!every.is_zero(), "the sweep interval must be positive");
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(every);
        // After a slow purge, the next one waits a whole period rather than running at once.
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = shutdown.cancelled() => break,
                _ = ticker.tick() => {}
            }
            // The purge itself also yields to shutdown, so stopping never waits on a slow
            // database.
            let outcome = tokio::select! {
                () = shutdown.cancelled() => break,
                outcome = store.purge_expired(SystemTime::now()) => outcome,
            };
            match outcome {
                Ok(0) => tracing::debug!("no expired scans to purge"),
                Ok(n_purged) => tracing::info!(n_purged, "purged expired scans"),
                Err(store_error) => tracing::warn!(
                    error = %store_error,
                    cause = ?std::error::Error::source(&store_error).map(ToString::to_string),
                    "purging expired scans failed"
                ),
            }
        }
        tracing::debug!("scan sweeper stopped");
    })
}
