//! Callers who have shown no credential yet — a browser on its way to sign in, a scanner, a
//! flood — are kept apart from those who have, per network address:
//!
//! - **Connections.** Until a request on it is authenticated, a TCP connection counts against
//!   its address's share of the places ([`ConnectionLimits::stranger_connections_per_address`]).
//!   One address cannot hold every place with requests that never finish; once a request on a
//!   connection shows a token or a session, the connection is no longer a stranger's.
//! - **Budget.** The routes anyone may call (signing in) and every failed authentication spend
//!   from the address's own bucket, never from the write budget that tokens and signed-in
//!   people share: a flood of `GET /auth/login` or of random bearer tokens is refused with 429
//!   for that address alone, before it reaches the database.
//! - **Misses.** A credential that named no one is remembered for a moment, so the same wrong
//!   token sent again costs a map lookup, not a database transaction.
//!
//! Behind a load balancer or a reverse proxy every caller has the proxy's address, and these
//! shares are the proxy's: they still keep strangers from taking what authenticated callers
//! need, which is the point.
//!
//! [`ConnectionLimits::stranger_connections_per_address`]: crate::ConnectionLimits

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// How many addresses' buckets, and how many missed credentials, are remembered before the
/// least recently seen are forgotten.
const REMEMBERED: usize = 4096;
/// How long a credential that named no one is answered from memory.
const MISS_FOR: Duration = Duration::from_secs(2);

/// Where a request came from: an address over TCP, nothing over the private socket (only the
/// person's own processes can open it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Peer(pub Option<IpAddr>);

/// What a stranger's request spends: each has a bucket of its own per address, so a flood of
/// logins does not keep people on the same address (behind one proxy) from being recognised,
/// and a flood of wrong credentials does not keep them from signing in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Spending {
    /// A request to a sign-in route.
    SignIn,
    /// A credential that named no one.
    FailedAuthentication,
}

/// How much strangers get, per address.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StrangerLimits {
    /// Connections one address may hold before any of them is authenticated.
    pub connections_per_address: usize,
    /// Sign-in requests and failed authentications per second per address, sustained.
    pub per_second: f64,
    /// ... and at once.
    pub burst: f64,
}

/// A token bucket.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    seen: Instant,
}

/// The strangers' shares of one gateway.
#[derive(Debug)]
pub struct Strangers {
    limits: StrangerLimits,
    connections: Mutex<HashMap<IpAddr, usize>>,
    buckets: Mutex<HashMap<(Peer, Spending), Bucket>>,
    misses: Mutex<HashMap<[u8; 32], Instant>>,
}

/// A stranger's connection, holding one place of its address's share until a request on it is
/// authenticated ([`Stranger::known`]) or it closes.
#[derive(Debug)]
pub struct Stranger {
    strangers: Arc<Strangers>,
    address: IpAddr,
    held: AtomicBool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Forgets the least recently seen entry of `map` when it is full and `key` is new.
fn make_room<K: Eq + std::hash::Hash + Copy, V>(map: &mut HashMap<K, V>, key: &K, seen: impl Fn(&V) -> Instant) {
    if map.len() >= REMEMBERED
        && !map.contains_key(key)
        && let Some(oldest) = map.iter().min_by_key(|(_, value)| seen(value)).map(|(key, _)| *key)
    {
        map.remove(&oldest);
    }
}

impl Strangers {
    /// Shares within `limits`.
    pub fn new(limits: StrangerLimits) -> Arc<Strangers> {
        Arc::new(Strangers {
            limits,
            connections: Mutex::new(HashMap::new()),
            buckets: Mutex::new(HashMap::new()),
            misses: Mutex::new(HashMap::new()),
        })
    }

    /// A place for a new connection from `address`, or `None` when the address already holds
    /// its share of unauthenticated connections.
    pub fn admit(self: &Arc<Self>, address: IpAddr) -> Option<Stranger> {
        let mut connections = lock(&self.connections);
        let held = connections.entry(address).or_insert(0);
        if *held >= self.limits.connections_per_address {
            return None;
        }
        *held += 1;
        Some(Stranger { strangers: self.clone(), address, held: AtomicBool::new(true) })
    }

    fn release(&self, address: IpAddr) {
        let mut connections = lock(&self.connections);
        if let Some(held) = connections.get_mut(&address) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                connections.remove(&address);
            }
        }
    }

    /// Unauthenticated connections `address` holds now.
    pub fn held(&self, address: IpAddr) -> usize {
        lock(&self.connections).get(&address).copied().unwrap_or(0)
    }

    /// Spends one from `peer`'s bucket for `what` at `now`; `Err(seconds)` until one is there
    /// again.
    pub fn spend(&self, peer: Peer, what: Spending, now: Instant) -> Result<(), u64> {
        self.ready(peer, what, now)?;
        let mut buckets = lock(&self.buckets);
        if let Some(bucket) = buckets.get_mut(&(peer, what)) {
            bucket.tokens -= 1.0;
        }
        Ok(())
    }

    /// Whether `peer` has one left in its bucket for `what` at `now`, without spending it:
    /// `Err(seconds)` until it has.
    pub fn ready(&self, peer: Peer, what: Spending, now: Instant) -> Result<(), u64> {
        let StrangerLimits { per_second, burst, .. } = self.limits;
        let mut buckets = lock(&self.buckets);
        let key = (peer, what);
        make_room(&mut buckets, &key, |bucket| bucket.seen);
        let bucket = buckets.entry(key).or_insert(Bucket { tokens: burst, seen: now });
        bucket.tokens =
            (bucket.tokens + now.saturating_duration_since(bucket.seen).as_secs_f64() * per_second).min(burst);
        bucket.seen = now;
        if bucket.tokens < 1.0 {
            return Err(((1.0 - bucket.tokens) / per_second).ceil().max(1.0) as u64);
        }
        Ok(())
    }

    /// Remembers, until a moment after `now`, that `credential` named no one.
    pub fn missed(&self, credential: &str, now: Instant) {
        let key = Sha256::digest(credential.as_bytes()).into();
        let mut misses = lock(&self.misses);
        make_room(&mut misses, &key, |at| *at);
        misses.insert(key, now);
    }

    /// Whether `credential` named no one a moment before `now`.
    pub fn recently_missed(&self, credential: &str, now: Instant) -> bool {
        let key: [u8; 32] = Sha256::digest(credential.as_bytes()).into();
        let mut misses = lock(&self.misses);
        match misses.get(&key) {
            Some(at) if now.saturating_duration_since(*at) < MISS_FOR => true,
            Some(_) => {
                misses.remove(&key);
                false
            }
            None => false,
        }
    }
}

impl Stranger {
    /// A request on this connection was authenticated: its place in the address's share is
    /// given back (once; later calls do nothing).
    pub fn known(&self) {
        if self.held.swap(false, Ordering::AcqRel) {
            self.strangers.release(self.address);
        }
    }
}

impl Drop for Stranger {
    fn drop(&mut self) {
        self.known();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> StrangerLimits {
        StrangerLimits { connections_per_address: 2, per_second: 1.0, burst: 3.0 }
    }

    fn address(last: u8) -> IpAddr {
        IpAddr::from([127, 0, 0, last])
    }

    #[test]
    fn an_address_holds_its_share_of_connections_and_no_more() {
        let strangers = Strangers::new(limits());
        let first = strangers.admit(address(1)).unwrap();
        let second = strangers.admit(address(1)).unwrap();
        assert!(strangers.admit(address(1)).is_none(), "a third from the same address");
        assert!(strangers.admit(address(2)).is_some(), "another address has its own share");
        first.known();
        first.known();
        assert_eq!(strangers.held(address(1)), 1, "authenticated once, given back once");
        let third = strangers.admit(address(1)).unwrap();
        drop(second);
        drop(third);
        drop(first);
        assert_eq!(strangers.held(address(1)), 0);
    }

    #[test]
    fn an_address_spends_its_own_bucket() {
        let strangers = Strangers::new(limits());
        let now = Instant::now();
        let (one, two) = (Peer(Some(address(1))), Peer(Some(address(2))));
        let sign_in = Spending::SignIn;
        for _ in 0..3 {
            assert_eq!(strangers.spend(one, sign_in, now), Ok(()));
        }
        assert_eq!(strangers.ready(one, sign_in, now), Err(1));
        assert_eq!(strangers.spend(one, sign_in, now), Err(1));
        assert_eq!(strangers.spend(two, sign_in, now), Ok(()), "another address is not held back");
        assert_eq!(strangers.ready(one, Spending::FailedAuthentication, now), Ok(()), "nor another purpose");
        assert_eq!(strangers.spend(one, sign_in, now + Duration::from_secs(1)), Ok(()), "refilled");
    }

    #[test]
    fn a_miss_is_remembered_for_a_moment() {
        let strangers = Strangers::new(limits());
        let now = Instant::now();
        assert!(!strangers.recently_missed("wrong", now));
        strangers.missed("wrong", now);
        assert!(strangers.recently_missed("wrong", now + Duration::from_millis(500)));
        assert!(!strangers.recently_missed("other", now));
        assert!(!strangers.recently_missed("wrong", now + MISS_FOR));
    }
}
