//! What a channel keeps between runs (Telegram's update offset and paired chats): small
//! strings under keys, durable once `set` returns, and the clock that what is kept is judged by
//! (a pairing code's age).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use crate::error::Result;

/// A channel's durable key-value state.
pub trait ChannelState: Send + Sync + 'static {
    /// The value under `key`.
    fn get(&self, key: &str) -> impl Future<Output = Result<Option<String>>> + Send;
    /// Stores `value` under `key`; durable when this returns.
    fn set(&self, key: &str, value: &str) -> impl Future<Output = Result<()>> + Send;
    /// The time now (Unix ms) by the clock of whoever keeps the state: read here, by the
    /// caller, and passed to the rules that judge time, which never read a clock themselves.
    fn now_ms(&self) -> i64;
}

/// State held in memory, for tests of one channel alone, on a clock that moves only when the
/// test moves it (it starts at 0).
#[derive(Debug, Default)]
pub struct MemoryState {
    values: Mutex<HashMap<String, String>>,
    now_ms: AtomicI64,
}

impl MemoryState {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        // Nothing panics while holding this lock.
        self.values.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Moves the state's clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        self.now_ms.fetch_add(i64::try_from(by.as_millis()).unwrap_or(i64::MAX), Ordering::SeqCst);
    }
}

impl ChannelState for MemoryState {
    async fn get(&self, key: &str) -> Result<Option<String>> {
        Ok(self.map().get(key).cloned())
    }

    async fn set(&self, key: &str, value: &str) -> Result<()> {
        self.map().insert(key.to_owned(), value.to_owned());
        Ok(())
    }

    fn now_ms(&self) -> i64 {
        self.now_ms.load(Ordering::SeqCst)
    }
}
