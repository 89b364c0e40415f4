//! Time and ids: the only places the runtime makes them (the domain is given both).
//!
//! The runtime reads time and waits for it through a [`Clock`] it is started with: the
//! [`SystemClock`] in the app and `beckon serve`, a [`ManualClock`] in tests, which moves only
//! when told — so deadlines, retries and retention are tested in milliseconds, without sleeping.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use beckon_core::{RequestId, SessionId};
use tokio::sync::Notify;
use uuid::Uuid;

/// A wait for a moment on a clock.
pub type Sleep = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// Where the runtime reads the time, and how it waits for a moment.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Now, in Unix milliseconds.
    fn now_ms(&self) -> i64;
    /// Completes once the clock reads `at_ms` or later.
    fn sleep_until(&self, at_ms: i64) -> Sleep;
}

pub use beckon_client::now_ms;

/// The system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        now_ms()
    }

    fn sleep_until(&self, at_ms: i64) -> Sleep {
        let wait = Duration::from_millis(at_ms.saturating_sub(now_ms()).max(0) as u64);
        Box::pin(tokio::time::sleep(wait))
    }
}

/// A clock that stands still until [`ManualClock::advance`] moves it; cheap to clone (clones
/// share the time).
#[derive(Debug, Clone)]
pub struct ManualClock {
    inner: Arc<Manual>,
}

#[derive(Debug)]
struct Manual {
    now: AtomicI64,
    moved: Notify,
}

impl ManualClock {
    /// A clock reading `start_ms`.
    pub fn new(start_ms: i64) -> ManualClock {
        ManualClock { inner: Arc::new(Manual { now: AtomicI64::new(start_ms), moved: Notify::new() }) }
    }

    /// Moves the clock forward by `by`; every wait for a moment now past completes.
    pub fn advance(&self, by: Duration) {
        self.inner.now.fetch_add(by.as_millis() as i64, Ordering::SeqCst);
        self.inner.moved.notify_waiters();
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.inner.now.load(Ordering::SeqCst)
    }

    fn sleep_until(&self, at_ms: i64) -> Sleep {
        let inner = self.inner.clone();
        Box::pin(async move {
            loop {
                let moved = inner.moved.notified();
                tokio::pin!(moved);
                // Registered before the time is read, so a move in between is not missed.
                moved.as_mut().enable();
                if inner.now.load(Ordering::SeqCst) >= at_ms {
                    return;
                }
                moved.await;
            }
        })
    }
}

/// A new session id (UUID v7: time-ordered, unique).
pub fn new_session_id() -> SessionId {
    SessionId::from_uuid(Uuid::now_v7())
}

/// A new question id (UUID v7).
pub fn new_request_id() -> RequestId {
    RequestId::from_uuid(Uuid::now_v7())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_manual_clock_wakes_a_wait_only_once_it_is_moved_past_the_moment() {
        let clock = ManualClock::new(1_000);
        let mut wait = tokio::spawn(clock.sleep_until(1_500));
        clock.advance(Duration::from_millis(499));
        assert!(tokio::time::timeout(Duration::from_millis(50), &mut wait).await.is_err(), "not yet");
        clock.advance(Duration::from_millis(1));
        tokio::time::timeout(Duration::from_secs(5), wait).await.unwrap().unwrap();
        assert_eq!(clock.now_ms(), 1_500);
        // A moment already past completes at once.
        tokio::time::timeout(Duration::from_secs(5), clock.sleep_until(0)).await.unwrap();
    }
}
