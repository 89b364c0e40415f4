//! What channels (Slack, Telegram) keep in the store: each question's message as a row of the
//! channel's outbox, and the channel's own small state (Telegram's update offset, its paired
//! chat). The channels crate drives them through a [`ChannelOutbox`]; the rules of the rows live
//! in the store.

use std::sync::Arc;
use std::time::Duration;

use beckon_core::RequestId;
use beckon_store::{ChannelMessage, ChannelMessageState, ChannelScope, ChannelWork};

use crate::clock::Clock;
use crate::db::Db;
use crate::error::Result;
use crate::service::Beckon;

/// What a channel's own state is stored under, apart from Beckon's other settings.
const STATE_PREFIX: &str = "channel.";
/// The longest value a channel may store.
const STATE_MAX_BYTES: usize = 64 * 1024;
/// Rows of each kind read at a time.
const WORK_PAGE: usize = 64;

/// The channels' rows and state in the store: what a channel's worker reads and records, and
/// nothing else of the runtime. Cheap to clone.
#[derive(Clone)]
pub struct ChannelOutbox {
    db: Db,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for ChannelOutbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChannelOutbox").finish_non_exhaustive()
    }
}

impl Beckon {
    /// The channels' rows and state.
    pub fn channel_outbox(&self) -> ChannelOutbox {
        ChannelOutbox { db: self.rt.records.db().clone(), clock: self.rt.clock.clone() }
    }
}

impl ChannelOutbox {
    fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// What `channel` has to do now: posts left in doubt, pending questions to post (those
    /// asked at least `delay` ago, of `agents` when given, addressed to one of `audiences` when
    /// given), and messages to settle.
    pub async fn work(
        &self,
        channel: &str,
        delay: Duration,
        agents: Option<Vec<String>>,
        audiences: Option<Vec<String>>,
    ) -> Result<ChannelWork> {
        let now = self.now_ms();
        let delay_ms = i64::try_from(delay.as_millis()).unwrap_or(i64::MAX);
        let channel = channel.to_owned();
        self.db
            .call(move |store| {
                let scope = ChannelScope {
                    asked_by_ms: now.saturating_sub(delay_ms),
                    delay_ms,
                    agents: agents.as_deref(),
                    audiences: audiences.as_deref(),
                };
                store.read().channel_work(&channel, now, scope, WORK_PAGE)
            })
            .await
    }

    /// The names people's own messages on `channel` are kept under that still have a posted
    /// message (see [`beckon_store::Reader::channel_people_with_messages`]).
    pub async fn people_with_messages(&self, channel: &str) -> Result<Vec<String>> {
        let channel = channel.to_owned();
        self.db.call(move |store| store.read().channel_people_with_messages(&channel)).await
    }

    /// A question's message on `channel`.
    pub async fn message(&self, channel: &str, request_id: RequestId) -> Result<Option<ChannelMessage>> {
        let channel = channel.to_owned();
        self.db.call(move |store| store.read().channel_message(&channel, request_id)).await
    }

    /// Records, durably, that a post of the question's message is about to be sent; false when
    /// it must not be sent (the question ended, or its message is posted or in doubt).
    pub async fn begin_post(&self, channel: &str, request_id: RequestId, mark: &str) -> Result<bool> {
        let (channel, mark, now) = (channel.to_owned(), mark.to_owned(), self.now_ms());
        self.db.write(move |tx| tx.begin_channel_post(&channel, request_id, &mark, now)).await
    }

    /// Records where the question's message was posted.
    pub async fn posted(&self, channel: &str, request_id: RequestId, conversation: &str, message: &str) -> Result<()> {
        let (channel, conversation, message) = (channel.to_owned(), conversation.to_owned(), message.to_owned());
        let now = self.now_ms();
        self.db.write(move |tx| tx.channel_posted(&channel, request_id, &conversation, &message, now)).await
    }

    /// Records a failed attempt on the question's message, to try again after `retry_in`.
    pub async fn attempt_failed(
        &self,
        channel: &str,
        request_id: RequestId,
        state: ChannelMessageState,
        error: &str,
        retry_in: Duration,
    ) -> Result<()> {
        let (channel, error, now) = (channel.to_owned(), error.to_owned(), self.now_ms());
        let retry_at = now.saturating_add(i64::try_from(retry_in.as_millis()).unwrap_or(i64::MAX));
        self.db.write(move |tx| tx.channel_attempt_failed(&channel, request_id, state, &error, retry_at, now)).await
    }

    /// Records that the question's message shows how it ended.
    pub async fn settled(&self, channel: &str, request_id: RequestId) -> Result<()> {
        let (channel, now) = (channel.to_owned(), self.now_ms());
        self.db.write(move |tx| tx.channel_settled(&channel, request_id, now)).await
    }

    /// Forgets a message that was never posted because its question ended first.
    pub async fn abandon(&self, channel: &str, request_id: RequestId) -> Result<()> {
        let channel = channel.to_owned();
        self.db.write(move |tx| tx.channel_abandon(&channel, request_id)).await
    }

    /// Records that the channel does not show this question (one only the person may answer,
    /// where the channel has no place only they read), so it is not offered to it again.
    pub async fn pass_over(&self, channel: &str, request_id: RequestId) -> Result<()> {
        let (channel, now) = (channel.to_owned(), self.now_ms());
        self.db.write(move |tx| tx.channel_pass_over(&channel, request_id, now)).await
    }

    /// A channel's stored value under `key`.
    pub async fn state(&self, key: &str) -> Result<Option<String>> {
        let key = format!("{STATE_PREFIX}{key}");
        self.db.call(move |store| store.read().setting(&key)).await
    }

    /// Stores a channel's value under `key`, durably.
    pub async fn set_state(&self, key: &str, value: &str) -> Result<()> {
        if value.len() > STATE_MAX_BYTES {
            return Err(crate::error::Error::InvalidInput(beckon_core::Problems::one(
                "value",
                format!("a channel's state is at most {STATE_MAX_BYTES} bytes"),
            )));
        }
        let (key, value) = (format!("{STATE_PREFIX}{key}"), value.to_owned());
        self.db.write(move |tx| tx.set_setting(&key, &value)).await
    }
}
