//! Which question a written reply answers: a reply to a question's own message, or to the
//! prompt its "Other…" button sent, stands for that question's message.
//!
//! Kept in state (a bounded list, newest last), not written into a prompt's text: what the
//! person reads carries no ids to parse back, and the list survives restarts.

use beckon_core::RequestId;
use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

use crate::error::Result;
use crate::state::ChannelState;

/// State key: the list of [`ReplyTarget`]s, as JSON.
pub(super) const KEY: &str = "telegram.reply_targets";
/// How many targets are kept; older questions are answered with their buttons or in Beckon.
const KEPT: usize = 64;

/// A message a reply may be to, and the question the reply answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct ReplyTarget {
    /// The chat.
    pub chat: i64,
    /// The message replied to: the question's own, or a prompt for it.
    pub message: i64,
    /// The question's message.
    pub question_message: i64,
    /// The question.
    pub request: RequestId,
    /// What a prompt repeats of the question (already cut short).
    pub question: Option<String>,
}

/// The list of reply targets in state.
#[derive(Debug, Default)]
pub(super) struct ReplyTargets {
    // The listener (prompts) and the worker (posts) both add: one read-and-write at a time.
    lock: Mutex<()>,
}

impl ReplyTargets {
    /// Adds `target`, replacing any for the same message and dropping the oldest past the bound.
    pub async fn remember<S: ChannelState>(&self, state: &S, target: ReplyTarget) -> Result<()> {
        let _one_at_a_time = self.lock.lock().await;
        let mut targets = Self::read(state).await?;
        targets.retain(|kept| (kept.chat, kept.message) != (target.chat, target.message));
        targets.push(target);
        let excess = targets.len().saturating_sub(KEPT);
        targets.drain(..excess);
        // Serialising plain numbers and strings cannot fail.
        let text = serde_json::to_string(&targets).unwrap_or_default();
        state.set(KEY, &text).await
    }

    /// What a reply to `message` in `chat` answers, if anything.
    pub async fn find<S: ChannelState>(&self, state: &S, chat: i64, message: i64) -> Result<Option<ReplyTarget>> {
        Ok(Self::read(state).await?.into_iter().find(|target| target.chat == chat && target.message == message))
    }

    async fn read<S: ChannelState>(state: &S) -> Result<Vec<ReplyTarget>> {
        let Some(text) = state.get(KEY).await? else { return Ok(Vec::new()) };
        Ok(serde_json::from_str(&text).unwrap_or_else(|err| {
            tracing::warn!(%err, "the remembered reply targets cannot be read; starting afresh");
            Vec::new()
        }))
    }
}
