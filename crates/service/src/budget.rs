//! Memory budgets beyond request bodies: the answers the server builds from files
//! (`resources/read` of a photo in the image directory holds the file, its base64 and the
//! serialised message at once), and the pixels the recognitions running hold decoded.
//!
//! Each such answer takes a share of the budget, sized from the file, before the file is
//! read; a caller that finds no room waits a bounded time and is then refused with advice
//! to retry. The share is kept until the response carrying the answer has been written or
//! dropped (a [`ResponseHold`] the HTTP composition puts into each request), so a client
//! that reads slowly holds its share, and the response timeout bounds how long.

use std::{
    sync::{Arc, Mutex, PoisonError},
    time::Duration,
};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The budget is counted in units of this many bytes.
const UNIT: usize = 64 * 1024;

/// The default budget: 192 MiB, room for one answer of the largest photo (50 MiB, about
/// 150 MiB as file, base64 and message) and several small ones.
pub const DEFAULT_ANSWER_MEMORY_BYTES: usize = 192 * 1024 * 1024;

/// What an answer built from a file of `file_bytes` holds at its peak: the file, its
/// base64 (4/3 of it) and the serialised message (as much again).
pub fn answer_bytes(file_bytes: u64) -> usize {
    usize::try_from(file_bytes).unwrap_or(usize::MAX).saturating_mul(3).saturating_add(UNIT)
}

/// The bytes answers may hold at once.
#[derive(Debug, Clone)]
pub struct AnswerBudget {
    units: Arc<Semaphore>,
    total: usize,
    wait: Duration,
}

/// Why an answer got no share of the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BudgetError {
    /// The answer alone is larger than the whole budget.
    #[error("the answer is larger than the server's memory budget for answers")]
    TooLarge,
    /// Other answers held the budget for the whole wait.
    #[error("the server holds too many large answers right now")]
    Busy,
}

/// A share of the [`AnswerBudget`], given back when dropped.
#[derive(Debug)]
pub struct BudgetShare(#[allow(dead_code)] OwnedSemaphorePermit);

impl AnswerBudget {
    /// A budget of `bytes`, a caller waiting at most `wait` for room.
    pub fn new(bytes: usize, wait: Duration) -> Self {
        let units = bytes.div_ceil(UNIT).clamp(1, Semaphore::MAX_PERMITS);
        AnswerBudget { units: Arc::new(Semaphore::new(units)), total: units * UNIT, wait }
    }

    /// How long a caller waits for room before it is refused.
    pub fn wait(&self) -> Duration {
        self.wait
    }

    /// A share of `bytes`, waiting at most the budget's wait for room.
    pub async fn take(&self, bytes: usize) -> Result<BudgetShare, BudgetError> {
        if bytes > self.total {
            return Err(BudgetError::TooLarge);
        }
        let units = u32::try_from(bytes.div_ceil(UNIT)).map_err(|_| BudgetError::TooLarge)?;
        share_of(&self.units, units, self.wait).await
    }
}

/// `units` of `semaphore` at once when they are free, otherwise once they are within `wait`.
/// With no wait a share that is not free at once is refused without queueing: a queued
/// waiter is handed freed units as they come, and one that gives up a moment later would
/// still have kept them from a smaller share that fit.
async fn share_of(
    semaphore: &Arc<Semaphore>,
    units: u32,
    wait: Duration,
) -> Result<BudgetShare, BudgetError> {
    let permit = match semaphore.clone().try_acquire_many_owned(units) {
        Ok(permit) => permit,
        Err(_) if wait.is_zero() => return Err(BudgetError::Busy),
        Err(_) => tokio::time::timeout(wait, semaphore.clone().acquire_many_owned(units))
            .await
            .map_err(|_| BudgetError::Busy)?
            .map_err(|_| BudgetError::Busy)?,
    };
    Ok(BudgetShare(permit))
}

/// The default pixel budget: 80 megapixels decoded at once across recognitions, two photos
/// at the engine's pixel limit (about 4 bytes each as gray, colour and working images).
pub const DEFAULT_DECODED_PIXELS: u64 = 80_000_000;

/// The pixels counted as one unit of the [`PixelBudget`].
const PIXEL_UNIT: u64 = 64 * 1024;

/// The pixels the recognitions running may hold decoded at once. A recognition takes the
/// pixels its photo's header declares before it is decoded, and waits a bounded time for
/// room; recognition slots bound how many run, this bounds what they hold.
#[derive(Debug, Clone)]
pub struct PixelBudget {
    units: Arc<Semaphore>,
    total: u64,
    wait: Duration,
}

impl PixelBudget {
    /// A budget of `pixels`, a recognition waiting at most `wait` for room.
    pub fn new(pixels: u64, wait: Duration) -> Self {
        let units = usize::try_from(pixels.div_ceil(PIXEL_UNIT))
            .unwrap_or(usize::MAX)
            .clamp(1, Semaphore::MAX_PERMITS);
        PixelBudget {
            units: Arc::new(Semaphore::new(units)),
            total: units as u64 * PIXEL_UNIT,
            wait,
        }
    }

    /// How long a recognition waits for room before it is refused.
    pub fn wait(&self) -> Duration {
        self.wait
    }

    /// A share of `pixels` (the whole budget at most: a photo larger than the budget waits
    /// for all of it), waiting at most the budget's wait for room.
    pub async fn take(&self, pixels: u64) -> Result<BudgetShare, BudgetError> {
        let units = u32::try_from(pixels.min(self.total).div_ceil(PIXEL_UNIT).max(1))
            .map_err(|_| BudgetError::TooLarge)?;
        share_of(&self.units, units, self.wait).await
    }
}

/// Shares kept until the response of the request they were taken for is written or
/// dropped: the HTTP composition puts one into each request's extensions and drops it with
/// the response body; without one (stdio), a share ends with the handler.
///
/// It also carries back to the HTTP composition that the request was refused for want of
/// room, so that the composition can answer `503` with `Retry-After` and close the
/// connection, as the HTTP front answers its other limits.
#[derive(Debug, Clone, Default)]
pub struct ResponseHold(Arc<Mutex<Held>>);

#[derive(Debug, Default)]
struct Held {
    shares: Vec<BudgetShare>,
    refused: Option<Duration>,
}

impl ResponseHold {
    /// Keeps `share` as long as this hold (and its clones) live.
    pub fn keep(&self, share: BudgetShare) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).shares.push(share);
    }

    /// Marks the request as refused because a budget had no room; the caller may retry
    /// after `retry_after`.
    pub fn refuse(&self, retry_after: Duration) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).refused = Some(retry_after);
    }

    /// When the request was refused for want of room, how long the caller should wait.
    pub fn refused(&self) -> Option<Duration> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).refused
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn answers_share_the_budget_and_wait_a_bounded_time() {
        let budget = AnswerBudget::new(10 * UNIT, Duration::from_secs(2));
        assert_eq!(budget.take(11 * UNIT).await.unwrap_err(), BudgetError::TooLarge);
        let first = budget.take(6 * UNIT).await.unwrap();
        // No room beside the first: refused after the wait.
        assert_eq!(budget.take(6 * UNIT).await.unwrap_err(), BudgetError::Busy);
        // Kept by a hold, the share lives until the hold's last clone is dropped.
        let hold = ResponseHold::default();
        hold.keep(first);
        let clone = hold.clone();
        drop(hold);
        assert_eq!(budget.take(6 * UNIT).await.unwrap_err(), BudgetError::Busy);
        drop(clone);
        assert!(budget.take(6 * UNIT).await.is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn decoded_pixels_share_the_budget() {
        let budget = PixelBudget::new(10 * PIXEL_UNIT, Duration::from_secs(2));
        let first = budget.take(6 * PIXEL_UNIT).await.unwrap();
        assert_eq!(budget.take(6 * PIXEL_UNIT).await.unwrap_err(), BudgetError::Busy);
        // A photo larger than the whole budget waits for all of it rather than never running.
        drop(first);
        let whole = budget.take(100 * PIXEL_UNIT).await.unwrap();
        assert_eq!(budget.take(1).await.unwrap_err(), BudgetError::Busy);
        drop(whole);
        assert!(budget.take(1).await.is_ok());
    }
}
