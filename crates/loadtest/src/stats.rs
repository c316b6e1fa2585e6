//! Latency percentiles and the memory flatness verdict.

/// The nearest-rank percentile `p` (0 < p <= 100) of sorted samples: the smallest sample
/// with at least `p` % of all samples at or below it.
pub fn percentile(sorted: &[u64], p: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// The median of unsorted values (the lower one of the middle two for an even count).
pub fn median(values: &[u64]) -> Option<u64> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    percentile(&sorted, 50.0)
}

/// Latency figures of one method, in microseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatencySummary {
    pub count: usize,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub max: u64,
}

impl LatencySummary {
    /// Summarises samples in any order; `None` when there are none.
    pub fn of(mut samples: Vec<u64>) -> Option<LatencySummary> {
        samples.sort_unstable();
        Some(LatencySummary {
            count: samples.len(),
            p50: percentile(&samples, 50.0)?,
            p90: percentile(&samples, 90.0)?,
            p99: percentile(&samples, 99.0)?,
            max: *samples.last()?,
        })
    }
}

/// What the memory samples of a run say.
#[derive(Debug, Clone, PartialEq)]
pub enum Flatness {
    /// Fewer samples than a verdict needs (eight: two per quarter).
    TooFewSamples(usize),
    /// The last quarter's median against the second quarter's; the third quarter's median
    /// is kept to tell a step that levelled off from growth that goes on.
    Measured {
        second_quarter: u64,
        third_quarter: u64,
        last_quarter: u64,
        change_percent: f64,
        flat: bool,
    },
}

impl Flatness {
    pub fn is_flat(&self) -> bool {
        matches!(self, Flatness::Measured { flat: true, .. })
    }
}

/// Judges whether memory stayed flat: the median of the last quarter of the samples may
/// exceed the median of the second quarter by at most `tolerance` (0.10 for 10 %).
///
/// The first quarter is left out because a server's memory grows while it warms up
/// (allocator arenas, connection buffers, database caches); a leak keeps growing after.
/// A fall is flat: memory handed back is not a leak.
pub fn flatness(samples: &[u64], tolerance: f64) -> Flatness {
    if samples.len() < 8 {
        return Flatness::TooFewSamples(samples.len());
    }
    let quarter = samples.len() / 4;
    let second = median(&samples[quarter..2 * quarter]).unwrap_or(0);
    let third = median(&samples[2 * quarter..3 * quarter]).unwrap_or(0);
    let last = median(&samples[samples.len() - quarter..]).unwrap_or(0);
    let change = if second == 0 { 0.0 } else { (last as f64 - second as f64) / second as f64 };
    Flatness::Measured {
        second_quarter: second,
        third_quarter: third,
        last_quarter: last,
        change_percent: change * 100.0,
        flat: change <= tolerance,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let hundred: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&hundred, 50.0), Some(50));
        assert_eq!(percentile(&hundred, 90.0), Some(90));
        assert_eq!(percentile(&hundred, 99.0), Some(99));
        assert_eq!(percentile(&hundred, 100.0), Some(100));
        assert_eq!(percentile(&hundred, 0.1), Some(1));
        assert_eq!(percentile(&[42], 99.0), Some(42));
        assert_eq!(percentile(&[10, 20, 30], 50.0), Some(20));
        assert_eq!(percentile(&[10, 20, 30, 40], 50.0), Some(20));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn summaries_sort_their_samples() {
        let summary = LatencySummary::of(vec![5, 1, 4, 2, 3, 100, 6, 7, 8, 9]).unwrap();
        assert_eq!(summary.count, 10);
        assert_eq!(summary.p50, 5);
        assert_eq!(summary.p90, 9);
        assert_eq!(summary.p99, 100);
        assert_eq!(summary.max, 100);
        assert_eq!(LatencySummary::of(Vec::new()), None);
        assert_eq!(median(&[3, 1, 2]), Some(2));
    }

    #[test]
    fn steady_memory_after_warm_up_is_flat() {
        // Memory climbs during the first quarter, then wobbles around 200.
        let mut samples: Vec<u64> = vec![50, 100, 150, 190];
        samples.extend([200, 205, 198, 202, 201, 199, 204, 200, 203, 197, 202, 206]);
        let verdict = flatness(&samples, 0.10);
        assert!(verdict.is_flat(), "{verdict:?}");
        match verdict {
            Flatness::Measured { second_quarter, third_quarter, last_quarter, .. } => {
                assert_eq!(second_quarter, 200);
                assert_eq!(third_quarter, 200);
                assert_eq!(last_quarter, 202);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn steadily_growing_memory_is_not_flat() {
        let samples: Vec<u64> = (0..40).map(|i| 100 + 10 * i).collect();
        let verdict = flatness(&samples, 0.10);
        assert!(!verdict.is_flat(), "{verdict:?}");
        let Flatness::Measured { change_percent, .. } = verdict else { panic!("{verdict:?}") };
        assert!(change_percent > 50.0, "{change_percent}");
    }

    #[test]
    fn shrinking_memory_is_flat_and_few_samples_give_no_verdict() {
        let samples: Vec<u64> = (0..16).map(|i| 400 - 10 * i).collect();
        assert!(flatness(&samples, 0.10).is_flat());
        assert_eq!(flatness(&[1, 2, 3], 0.10), Flatness::TooFewSamples(3));
        assert!(!flatness(&[1, 2, 3], 0.10).is_flat());
        // Exactly at the tolerance is still flat; just above is not.
        let edge = [100, 100, 100, 100, 100, 100, 110, 110];
        assert!(flatness(&edge, 0.10).is_flat());
        let over = [100, 100, 100, 100, 100, 100, 111, 111];
        assert!(!flatness(&over, 0.10).is_flat());
    }
}
