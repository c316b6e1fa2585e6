//! Limits that keep one caller, or many, from exhausting the server.
//!
//! * [`RateLimiter`]: a token bucket per principal. A request over the limit is answered at
//!   once with `429` and `Retry-After`, never queued.
//! * [`ScanGate`]: a global bound on recognitions running at once. A request waits a bounded
//!   time for a slot and is then answered `503` with `Retry-After`, never left hanging.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Requests per second and burst size of the per-principal limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    /// Tokens added per second.
    pub per_second: f64,
    /// Bucket size: how many requests may arrive at once.
    pub burst: u32,
}

impl Default for RateLimit {
    fn default() -> Self {
        RateLimit { per_second: 10.0, burst: 50 }
    }
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

/// Token buckets keyed by principal.
#[derive(Debug)]
pub struct RateLimiter {
    limit: RateLimit,
    buckets: Mutex<HashMap<String, Bucket>>,
}

/// Buckets are swept when the map grows past this many principals.
const SWEEP_THRESHOLD: usize = 10_000;

impl RateLimiter {
    /// A limiter; `per_second` must be positive.
    pub fn new(limit: RateLimit) -> Self {
        RateLimiter { limit, buckets: Mutex::new(HashMap::new()) }
    }

    /// Takes one token for `principal`, or says how long until one is available.
    pub fn check(&self, principal: &str, now: Instant) -> Result<(), Duration> {
        let burst = f64::from(self.limit.burst.max(1));
        let rate = self.limit.per_second.max(f64::MIN_POSITIVE);
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= SWEEP_THRESHOLD {
            // A bucket that would be full again carries no information.
            let full_after = Duration::from_secs_f64(burst / rate);
            buckets.retain(|_, b| now.saturating_duration_since(b.updated) < full_after);
        }
        let bucket =
            buckets.entry(principal.to_owned()).or_insert(Bucket { tokens: burst, updated: now });
        let elapsed = now.saturating_duration_since(bucket.updated).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * rate).min(burst);
        bucket.updated = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / rate))
        }
    }
}

/// The global bound on recognitions running at once.
#[derive(Debug, Clone)]
pub struct ScanGate {
    slots: Arc<Semaphore>,
    wait: Duration,
}

impl ScanGate {
    /// At most `slots` recognitions at once; a caller waits at most `wait` for a slot.
    pub fn new(slots: usize, wait: Duration) -> Self {
        ScanGate { slots: Arc::new(Semaphore::new(slots.max(1))), wait }
    }

    /// A slot, held until the permit is dropped, or `None` when none freed up in time.
    pub async fn enter(&self) -> Option<OwnedSemaphorePermit> {
        tokio::time::timeout(self.wait, self.slots.clone().acquire_owned()).await.ok()?.ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_allows_burst_then_refuses_then_refills() {
        let limiter = RateLimiter::new(RateLimit { per_second: 2.0, burst: 3 });
        let start = Instant::now();
        for _ in 0..3 {
            assert!(limiter.check("alice", start).is_ok());
        }
        let wait = limiter.check("alice", start).unwrap_err();
        assert!(
            wait > Duration::from_millis(400) && wait <= Duration::from_millis(500),
            "{wait:?}"
        );
        // Another principal has its own bucket.
        assert!(limiter.check("bob", start).is_ok());
        // Half a second later one token is back.
        assert!(limiter.check("alice", start + Duration::from_millis(500)).is_ok());
        assert!(limiter.check("alice", start + Duration::from_millis(500)).is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn gate_waits_a_bounded_time() {
        let gate = ScanGate::new(1, Duration::from_secs(2));
        let held = gate.enter().await.expect("a free slot");
        assert!(gate.enter().await.is_none(), "the only slot is taken");
        drop(held);
        assert!(gate.enter().await.is_some());
    }
}
