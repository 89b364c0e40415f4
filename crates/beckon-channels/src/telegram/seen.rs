//! The highest message id seen or sent in each chat the bot hears: the mark a post left in doubt
//! is looked for after (see `in_doubt.rs`).

use std::fmt;

use tokio::sync::Mutex;

use crate::error::Result;
use crate::state::ChannelState;

/// State key: the highest message id seen in the paired chat, as a [`Mark`], as kept before each
/// chat had its own (`telegram.last_message.<chat>`); still read.
pub(super) const KEY: &str = "telegram.last_message";

/// A message of a chat: "<chat id>:<message id>" as stored and as a post's mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Mark {
    pub chat: i64,
    pub message: i64,
}

impl Mark {
    /// Reads "<chat id>:<message id>".
    pub fn parse(text: &str) -> Option<Mark> {
        let (chat, message) = text.split_once(':')?;
        Some(Mark { chat: chat.parse().ok()?, message: message.parse().ok()? })
    }
}

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.chat, self.message)
    }
}

/// Keeps the highest message id of each chat in state.
#[derive(Debug, Default)]
pub(super) struct LastSeen {
    // The listener and the worker both write: one read-and-raise at a time.
    lock: Mutex<()>,
}

impl LastSeen {
    /// Notes that `message` exists in `chat` (sent by the bot or by the person).
    pub async fn saw<S: ChannelState>(&self, state: &S, chat: i64, message: i64) -> Result<()> {
        let _one_at_a_time = self.lock.lock().await;
        if Self::read(state, chat).await? >= message {
            return Ok(());
        }
        state.set(&chat_key(chat), &Mark { chat, message }.to_string()).await
    }

    /// The highest message id noted in `chat` (0: none).
    pub async fn highest<S: ChannelState>(&self, state: &S, chat: i64) -> Result<i64> {
        Self::read(state, chat).await
    }

    async fn read<S: ChannelState>(state: &S, chat: i64) -> Result<i64> {
        let mut highest = 0;
        // Each chat's own key; and the one key of the time when only one chat was heard.
        for key in [chat_key(chat), KEY.to_owned()] {
            let stored = state.get(&key).await?.as_deref().and_then(Mark::parse);
            // A mark of another chat (from before a re-pairing) says nothing about this one.
            highest = highest.max(stored.filter(|mark| mark.chat == chat).map_or(0, |mark| mark.message));
        }
        Ok(highest)
    }
}

/// State key: the highest message id seen in `chat`.
fn chat_key(chat: i64) -> String {
    format!("{KEY}.{chat}")
}
