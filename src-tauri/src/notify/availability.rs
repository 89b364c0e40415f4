//! Whether to try the notification service now. A failure (no session bus, no service, a
//! service that refused) waits before the next try, longer after each failure in a row, so a
//! missing service costs little; a success ends the wait. Time is passed in.

use std::time::{Duration, Instant};

/// The wait after the first failure.
const FIRST_WAIT: Duration = Duration::from_secs(5);
/// The longest wait between tries.
const LONGEST_WAIT: Duration = Duration::from_secs(300);

/// Failures in a row, and when the next try may be made.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Availability {
    retry_at: Option<Instant>,
    wait: Duration,
}

/// What a report changed, for the log: said once each way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Notifications just stopped working.
    Lost,
    /// They work again after failing.
    Back,
    /// No change worth saying.
    Same,
}

impl Availability {
    /// Whether a notification may be tried at `now`.
    pub fn may_try(&self, now: Instant) -> bool {
        self.retry_at.is_none_or(|at| now >= at)
    }

    /// A try failed at `now`.
    pub fn failed(&mut self, now: Instant) -> Change {
        let first = self.retry_at.is_none();
        self.wait = if first { FIRST_WAIT } else { (self.wait * 2).min(LONGEST_WAIT) };
        self.retry_at = Some(now + self.wait);
        if first { Change::Lost } else { Change::Same }
    }

    /// A try worked.
    pub fn worked(&mut self) -> Change {
        let was_down = self.retry_at.take().is_some();
        self.wait = Duration::ZERO;
        if was_down { Change::Back } else { Change::Same }
    }

    /// How long the wait after the last failure is.
    #[cfg(test)]
    pub fn wait(&self) -> Duration {
        self.wait
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_wait_longer_each_time_up_to_a_bound_and_a_success_ends_the_wait() {
        let start = Instant::now();
        let mut availability = Availability::default();
        assert!(availability.may_try(start));
        assert_eq!(availability.failed(start), Change::Lost, "said once");
        assert!(!availability.may_try(start + Duration::from_secs(4)));
        assert!(availability.may_try(start + FIRST_WAIT));

        let mut now = start;
        let mut waits = Vec::new();
        for _ in 0..10 {
            now += availability.wait();
            assert!(availability.may_try(now));
            assert_eq!(availability.failed(now), Change::Same, "not said again");
            waits.push(availability.wait().as_secs());
        }
        assert_eq!(waits, [10, 20, 40, 80, 160, 300, 300, 300, 300, 300]);

        assert_eq!(availability.worked(), Change::Back, "said once when back");
        assert!(availability.may_try(now));
        assert_eq!(availability.worked(), Change::Same);
        assert_eq!(availability.failed(now), Change::Lost);
        assert_eq!(availability.wait(), FIRST_WAIT, "the waits start over");
    }
}
