//! What a channel keeps between runs (Telegram's update offset and paired chats): small
//! strings under keys, durable once `set` returns.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::error::Result;

/// A channel's durable key-value state.
pub trait ChannelState: Send + Sync + 'static {
    /// The value under `key`.
    fn get(&self, key: &str) -> impl Future<Output = Result<Option<String>>> + Send;
    /// Stores `value` under `key`; durable when this returns.
    fn set(&self, key: &str, value: &str) -> impl Future<Output = Result<()>> + Send;
}

/// State held in memory, for tests of one channel alone.
#[derive(Debug, Default)]
pub struct MemoryState(Mutex<HashMap<String, String>>);

impl MemoryState {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        // Nothing panics while holding this lock.
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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
}
