//! Summaries of timed samples.

use std::time::Duration;

use serde_json::{Value, json};

/// The median, 99th percentile and mean of some samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// How many samples.
    pub count: usize,
    /// The middle one.
    pub median: Duration,
    /// The one 99% of samples are at or below (nearest rank).
    pub p99: Duration,
    /// Their mean.
    pub mean: Duration,
}

impl Summary {
    /// Summarises `samples`; `None` when there are none.
    pub fn of(mut samples: Vec<Duration>) -> Option<Summary> {
        if samples.is_empty() {
            return None;
        }
        samples.sort_unstable();
        let count = samples.len();
        let total: Duration = samples.iter().sum();
        Some(Summary {
            count,
            median: percentile(&samples, 50.0),
            p99: percentile(&samples, 99.0),
            mean: total / u32::try_from(count).unwrap_or(u32::MAX),
        })
    }

    /// As JSON, in milliseconds.
    pub fn to_json(self) -> Value {
        json!({"median_ms": ms(self.median), "p99_ms": ms(self.p99), "mean_ms": ms(self.mean), "n": self.count})
    }
}

/// The nearest-rank `p`th percentile of sorted, non-empty `sorted`.
fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Milliseconds with microsecond precision, for reports.
pub fn ms(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1e6).round() / 1e3
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn nearest_rank_median_and_p99() {
        let samples: Vec<Duration> = (1..=100).rev().map(Duration::from_millis).collect();
        let summary = Summary::of(samples).unwrap();
        assert_eq!(summary.median, Duration::from_millis(50));
        assert_eq!(summary.p99, Duration::from_millis(99));
        assert_eq!(summary.mean, Duration::from_micros(50_500));
        assert_eq!(summary.count, 100);
        assert_eq!(Summary::of(Vec::new()), None);
    }

    proptest! {
        #[test]
        fn order_holds(samples in proptest::collection::vec(0u64..10_000_000, 1..300)) {
            let summary = Summary::of(samples.iter().map(|n| Duration::from_nanos(*n)).collect()).unwrap();
            let (min, max) = (samples.iter().min().unwrap(), samples.iter().max().unwrap());
            prop_assert!(Duration::from_nanos(*min) <= summary.median);
            prop_assert!(summary.median <= summary.p99);
            prop_assert!(summary.p99 <= Duration::from_nanos(*max));
        }
    }
}
