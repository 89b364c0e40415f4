//! A token bucket per client for writes, so one runaway script cannot flood the person's
//! inbox. Clients name themselves with `X-Beckon-Client` (else their User-Agent).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

/// How many clients are remembered before the least recently seen are forgotten.
const MAX_CLIENTS: usize = 1024;

/// Per-client buckets.
#[derive(Debug)]
pub struct RateLimiter {
    per_second: f64,
    burst: f64,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

impl RateLimiter {
    /// `per_second` writes sustained, `burst` at once.
    pub fn new(per_second: f64, burst: f64) -> RateLimiter {
        RateLimiter { per_second, burst, buckets: Mutex::new(HashMap::new()) }
    }

    /// Takes one token for `client`; `Err(seconds)` says how long until one is free.
    pub fn take(&self, client: &str) -> Result<(), u64> {
        let now = Instant::now();
        let mut buckets = self.buckets.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if buckets.len() >= MAX_CLIENTS
            && !buckets.contains_key(client)
            && let Some(oldest) = buckets.iter().min_by_key(|(_, (_, seen))| *seen).map(|(key, _)| key.clone())
        {
            buckets.remove(&oldest);
        }
        let (tokens, seen) = buckets.entry(client.to_owned()).or_insert((self.burst, now));
        *tokens = (*tokens + now.duration_since(*seen).as_secs_f64() * self.per_second).min(self.burst);
        *seen = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            Err(((1.0 - *tokens) / self.per_second).ceil().max(1.0) as u64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_is_allowed_then_the_client_waits_and_others_do_not() {
        let limiter = RateLimiter::new(1.0, 3.0);
        for _ in 0..3 {
            assert_eq!(limiter.take("script"), Ok(()));
        }
        assert_eq!(limiter.take("script"), Err(1));
        assert_eq!(limiter.take("other"), Ok(()));
    }
}
