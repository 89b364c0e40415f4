//! Token buckets for writes, so one runaway script cannot flood the person's inbox. Writes are
//! counted per connection and, above that, over all connections together: a caller can open
//! new connections (up to the gateway's cap) but cannot get past the overall bucket, which it
//! shares with everyone. A header a client sends is no key: any caller could rotate it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use crate::serve::ConnectionId;

/// How many connections' buckets are remembered before the least recently seen are forgotten.
const MAX_CONNECTIONS: usize = 1024;
/// The overall bucket, as a multiple of one connection's.
pub const OVERALL_FACTOR: f64 = 4.0;

/// One bucket.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    seen: Instant,
}

impl Bucket {
    fn full(burst: f64, now: Instant) -> Bucket {
        Bucket { tokens: burst, seen: now }
    }

    /// Refills for the time since it was last seen.
    fn refill(&mut self, per_second: f64, burst: f64, now: Instant) {
        self.tokens = (self.tokens + now.duration_since(self.seen).as_secs_f64() * per_second).min(burst);
        self.seen = now;
    }

    /// Seconds until one token is there.
    fn wait(&self, per_second: f64) -> u64 {
        ((1.0 - self.tokens) / per_second).ceil().max(1.0) as u64
    }
}

#[derive(Debug)]
struct Buckets {
    overall: Bucket,
    connections: HashMap<ConnectionId, Bucket>,
}

/// Per-connection and overall buckets.
#[derive(Debug)]
pub struct RateLimiter {
    per_second: f64,
    burst: f64,
    buckets: Mutex<Buckets>,
}

impl RateLimiter {
    /// `per_second` writes sustained and `burst` at once per connection; four times as many
    /// over all connections.
    pub fn new(per_second: f64, burst: f64) -> RateLimiter {
        let now = Instant::now();
        let overall = Bucket::full(burst * OVERALL_FACTOR, now);
        RateLimiter { per_second, burst, buckets: Mutex::new(Buckets { overall, connections: HashMap::new() }) }
    }

    /// Takes one token for a write on `connection` at `now`; `Err(seconds)` says how long
    /// until one is free. A write refused takes nothing from either bucket.
    pub fn take(&self, connection: ConnectionId, now: Instant) -> Result<(), u64> {
        let mut buckets = self.buckets.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Buckets { overall, connections } = &mut *buckets;
        if connections.len() >= MAX_CONNECTIONS
            && !connections.contains_key(&connection)
            && let Some(oldest) = connections.iter().min_by_key(|(_, bucket)| bucket.seen).map(|(id, _)| *id)
        {
            connections.remove(&oldest);
        }
        let own = connections.entry(connection).or_insert_with(|| Bucket::full(self.burst, now));
        own.refill(self.per_second, self.burst, now);
        overall.refill(self.per_second * OVERALL_FACTOR, self.burst * OVERALL_FACTOR, now);
        if own.tokens < 1.0 {
            return Err(own.wait(self.per_second));
        }
        if overall.tokens < 1.0 {
            return Err(overall.wait(self.per_second * OVERALL_FACTOR));
        }
        own.tokens -= 1.0;
        overall.tokens -= 1.0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_burst_is_allowed_then_the_connection_waits_and_others_do_not() {
        let limiter = RateLimiter::new(1.0, 3.0);
        let now = Instant::now();
        for _ in 0..3 {
            assert_eq!(limiter.take(ConnectionId(1), now), Ok(()));
        }
        assert_eq!(limiter.take(ConnectionId(1), now), Err(1));
        assert_eq!(limiter.take(ConnectionId(2), now), Ok(()));
        assert_eq!(limiter.take(ConnectionId(1), now + Duration::from_secs(1)), Ok(()), "refilled");
    }

    #[test]
    fn new_connections_cannot_get_past_the_overall_bucket() {
        let limiter = RateLimiter::new(1.0, 3.0);
        let now = Instant::now();
        let taken = (0..100).filter(|n| limiter.take(ConnectionId(*n), now).is_ok()).count();
        assert_eq!(taken, 12, "four connections' bursts in all");
        assert_eq!(limiter.take(ConnectionId(500), now), Err(1));
        assert_eq!(limiter.take(ConnectionId(500), now + Duration::from_secs(1)), Ok(()), "4 per second overall");
    }
}
