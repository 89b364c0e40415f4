//! What a channel keeps between runs (Telegram's update offset and paired chats): small
//! strings under keys, durable once `set` returns, and the clock that what is kept is judged by
//! (a pairing code's age) and that the channel waits on (a retry's backoff).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use beckon_runtime::{Clock, ManualClock, Sleep};

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
    /// Completes once that clock reads `at_ms` or later.
    fn sleep_until(&self, at_ms: i64) -> Sleep;

    /// Whether a person on a team server paired `account` on `channel` as their own (a Telegram
    /// private chat): a place the channel hears besides the chat paired to the person Beckon
    /// answers for.
    fn is_paired_account(&self, channel: &str, account: &str) -> impl Future<Output = Result<bool>> + Send;
}

/// State held in memory, for tests of one channel alone, on a clock that moves only when the
/// test moves it (it starts at 0).
#[derive(Debug)]
pub struct MemoryState {
    values: Mutex<HashMap<String, String>>,
    clock: ManualClock,
}

impl Default for MemoryState {
    fn default() -> Self {
        MemoryState { values: Mutex::default(), clock: ManualClock::new(0) }
    }
}

impl MemoryState {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        // Nothing panics while holding this lock.
        self.values.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Moves the state's clock forward by `by`; every wait for a moment now past completes.
    pub fn advance(&self, by: Duration) {
        self.clock.advance(by);
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
        self.clock.now_ms()
    }

    fn sleep_until(&self, at_ms: i64) -> Sleep {
        self.clock.sleep_until(at_ms)
    }

    /// No team server here: nobody pairs their own account.
    async fn is_paired_account(&self, _channel: &str, _account: &str) -> Result<bool> {
        Ok(false)
    }
}
