//! Limits that keep one caller, or many, from exhausting the server.
//!
//! * [`RateLimiter`]: a token bucket per caller (a principal, or a client address when
//!   there is no authentication). A request over the limit is answered at once with `429`
//!   and `Retry-After`, never queued.
//!
//! The bound on recognitions running at once is the service's (`mrtd_service::gate`): the
//! guard names each request's [`Caller`], whose turn its recognitions wait in.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

/// Who a request is limited as, and whose turn its recognitions wait in: the authenticated
/// principal wherever it calls from, or, without authentication, the client's address. The
/// guard puts it into the request's extensions; the composition hands it on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller(pub String);

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
}
