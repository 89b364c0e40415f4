//! The bot: what the channel holds (the Bot API, its state, what it noted of chats) and the
//! steps its parts share — where a posting goes, whose chats are heard, what to note of a
//! message once it is out.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::api::{BotApi, CHANNEL};
use super::config::TelegramConfig;
use super::form::Form;
use super::pairing::paired_chat;
use super::replies::{ReplyTarget, ReplyTargets};
use super::seen::LastSeen;
use super::text;
use crate::channel::{ChannelKind, MessageRef, Posting};
use crate::error::{Error, Result};
use crate::state::ChannelState;

/// A Telegram bot as one of Beckon's channels.
pub struct Telegram<S: ChannelState> {
    pub(super) api: BotApi,
    pub(super) state: Arc<S>,
    pub(super) poll_timeout: Duration,
    pub(super) retry_base: Duration,
    pub(super) seen: LastSeen,
    pub(super) replies: ReplyTargets,
}

impl<S: ChannelState> fmt::Debug for Telegram<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Telegram")
            .field("api", &self.api)
            .field("poll_timeout", &self.poll_timeout)
            .field("retry_base", &self.retry_base)
            .finish_non_exhaustive()
    }
}

impl<S: ChannelState> Telegram<S> {
    /// The bot `config` names, keeping its offset and pairing in `state`.
    pub fn new(config: TelegramConfig, http: reqwest::Client, state: Arc<S>) -> Self {
        Telegram {
            api: BotApi::new(http, &config.api_base, config.token),
            state,
            poll_timeout: config.poll_timeout,
            retry_base: config.retry_base,
            seen: LastSeen::default(),
            replies: ReplyTargets::default(),
        }
    }

    /// The chat `posting` goes to: the private chat of the paired person it is for, else the
    /// paired chat; or why nothing can be sent.
    pub(super) async fn chat(&self, posting: &Posting, method: &'static str) -> Result<i64> {
        if let Some(to) = &posting.to {
            return to.parse().map_err(|_| Error::Refused {
                channel: CHANNEL,
                method,
                detail: "the person's paired account is not a Telegram chat id".into(),
            });
        }
        paired_chat(&*self.state).await?.ok_or_else(|| Error::Refused {
            channel: CHANNEL,
            method,
            detail: "no chat is paired yet: send /start <code> to the bot".into(),
        })
    }

    /// Whether the bot hears `chat`: the paired chat (`paired`), or a person's own paired chat.
    pub(super) async fn hears(&self, chat: i64, paired: Option<i64>) -> bool {
        if paired == Some(chat) {
            return true;
        }
        match self.state.is_paired_account(ChannelKind::Telegram.as_str(), &chat.to_string()).await {
            Ok(heard) => heard,
            Err(err) => {
                tracing::warn!(chat_id = chat, %err, "cannot tell whether a person paired the chat; not heard");
                false
            }
        }
    }

    /// Notes a message the bot sent or saw in a chat it hears; a failure only makes a later
    /// search for a post in doubt look further.
    pub(super) async fn note_message(&self, chat: i64, message: i64) {
        if let Err(err) = self.seen.saw(&*self.state, chat, message).await {
            tracing::warn!(chat_id = chat, %err, "cannot note the chat's latest message");
        }
    }

    /// Notes a question's message once it is known to be out: as the latest message, and as
    /// one a written reply answers when its question takes one.
    pub(super) async fn note_question(&self, chat: i64, message: i64, posting: &Posting) {
        self.note_message(chat, message).await;
        if !Form::of(&posting.request).takes_replies() {
            return;
        }
        let target = ReplyTarget {
            chat,
            message,
            question_message: message,
            request: posting.request_id,
            question: text::prompt_question(&posting.request),
        };
        if let Err(err) = self.replies.remember(&*self.state, target).await {
            tracing::warn!(request_id = %posting.request_id, %err, "cannot remember the question for replies");
        }
    }
}

/// A message reference as Telegram's chat and message ids.
pub(super) fn ids(message: &MessageRef, method: &'static str) -> Result<(i64, i64)> {
    match (message.conversation.parse(), message.message.parse()) {
        (Ok(chat), Ok(id)) => Ok((chat, id)),
        _ => Err(Error::Refused { channel: CHANNEL, method, detail: "not a Telegram chat and message id".into() }),
    }
}

/// A chat and message id as a message reference.
pub(super) fn message_ref(chat: i64, message: i64) -> MessageRef {
    MessageRef { conversation: chat.to_string(), message: message.to_string() }
}
