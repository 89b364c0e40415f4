//! Telegram: the Bot API, long polling in.
//!
//! A question goes to the one paired chat (see [`new_pairing_code`]) as a plain-text message with
//! inline buttons — or, on a team server, a question addressed to people goes to the private
//! chats they paired as their own (`/start <code>` with a code from their page); presses and written replies come in through `getUpdates` long polling, and
//! the message is edited to show how its question ended.
//!
//! The bot's token is a secret and part of every URL: no URL is logged or put in an error, and
//! the Debug forms here show `<redacted>`. Everything that comes in is treated as hostile: it
//! is bounded and checked, only the paired chat and people's own paired chats are heard, and
//! nothing in it can panic the listener.

mod api;
mod form;
pub mod fuzzing;
mod in_doubt;
mod inbound;
mod keyboard;
mod pairing;
mod poll;
mod replacement;
mod replies;
mod seen;
mod text;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use self::api::{BotApi, CHANNEL, ReplyMarkup};
use self::form::Form;
use self::replies::{ReplyTarget, ReplyTargets};
use self::seen::{LastSeen, Mark};
use crate::channel::{Channel, ChannelKind, Heard, MessageRef, Person, Posting, Response, Settled};
use crate::error::{Error, Result};
use crate::state::ChannelState;

pub use self::pairing::{ChatRequest, PAIRING_LIFETIME, Pairing, PairingCode, new_pairing_code, paired_chat, pairing};
pub use self::replacement::refuse_chat;

/// Where the Bot API is.
pub const DEFAULT_API_BASE: &str = "https://api.telegram.org";

/// State keys the channel keeps: the paired chat, the waiting pairing code, a chat's waiting
/// request to replace the paired one, the update offset, the highest message id seen (and, under
/// `telegram.last_message.<chat>`, in each chat), and the messages a written reply answers.
pub const STATE_KEYS: [&str; 6] =
    [pairing::CHAT_KEY, pairing::CODE_KEY, pairing::REQUEST_KEY, poll::OFFSET_KEY, seen::KEY, replies::KEY];

/// How to reach a bot.
#[derive(Clone)]
pub struct TelegramConfig {
    /// The bot's token from @BotFather (a secret: it is never logged).
    pub token: String,
    /// Where the Bot API is: [`DEFAULT_API_BASE`], or a test server. Requests go to
    /// `{api_base}/bot{token}/{method}`.
    pub api_base: String,
    /// How long one `getUpdates` call waits for an update (whole seconds are sent).
    pub poll_timeout: Duration,
    /// The wait after a first failed `getUpdates`; it doubles with each further failure, up to
    /// 30 seconds, with ±50 % jitter.
    pub retry_base: Duration,
}

impl TelegramConfig {
    /// The real Bot API, polling 25 seconds at a time and retrying from one second.
    pub fn new(token: impl Into<String>) -> Self {
        TelegramConfig {
            token: token.into(),
            api_base: DEFAULT_API_BASE.to_owned(),
            poll_timeout: Duration::from_secs(25),
            retry_base: Duration::from_secs(1),
        }
    }
}

impl fmt::Debug for TelegramConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TelegramConfig")
            .field("token", &"<redacted>")
            .field("api_base", &self.api_base)
            .field("poll_timeout", &self.poll_timeout)
            .field("retry_base", &self.retry_base)
            .finish()
    }
}

/// How a person on Telegram is told what became of their press.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// They pressed a button: the press's callback query is answered (a short notice, or an
    /// alert when the answer is refused).
    Button {
        /// The callback query's id.
        query: String,
    },
    /// They replied with text: a reply to their message, unless the answer was accepted (the
    /// question's message shows that).
    Text {
        /// The chat.
        chat: i64,
        /// Their message.
        message: i64,
    },
    /// They sent `/start <code>` with a code from their team inbox's page: told when it paired
    /// the chat, and nothing otherwise (anyone can write to a bot; a stranger learns nothing).
    Pairing {
        /// The chat.
        chat: i64,
    },
}

/// A Telegram bot as one of Beckon's channels.
pub struct Telegram<S: ChannelState> {
    api: BotApi,
    state: Arc<S>,
    poll_timeout: Duration,
    retry_base: Duration,
    seen: LastSeen,
    replies: ReplyTargets,
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
    async fn chat(&self, posting: &Posting, method: &'static str) -> Result<i64> {
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
    async fn hears(&self, chat: i64, paired: Option<i64>) -> bool {
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
    async fn note_message(&self, chat: i64, message: i64) {
        if let Err(err) = self.seen.saw(&*self.state, chat, message).await {
            tracing::warn!(chat_id = chat, %err, "cannot note the chat's latest message");
        }
    }

    /// Notes a question's message once it is known to be out: as the latest message, and as
    /// one a written reply answers when its question takes one.
    async fn note_question(&self, chat: i64, message: i64, posting: &Posting) {
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
fn ids(message: &MessageRef, method: &'static str) -> Result<(i64, i64)> {
    match (message.conversation.parse(), message.message.parse()) {
        (Ok(chat), Ok(id)) => Ok((chat, id)),
        _ => Err(Error::Refused { channel: CHANNEL, method, detail: "not a Telegram chat and message id".into() }),
    }
}

fn message_ref(chat: i64, message: i64) -> MessageRef {
    MessageRef { conversation: chat.to_string(), message: message.to_string() }
}

impl<S: ChannelState> Channel for Telegram<S> {
    type Reply = Reply;

    fn kind(&self) -> ChannelKind {
        ChannelKind::Telegram
    }

    /// The paired chat is the person's own private chat with the bot: everything goes there.
    fn shows(&self, _posting: &Posting) -> bool {
        true
    }

    /// Only private chats are heard at all — the paired one, and those people on a team server
    /// paired as their own (the listener drops every other chat's presses) — and a press counts
    /// only on a message the store recorded in that very chat, so whoever presses is the chat's
    /// own person.
    fn is_the_person(&self, _person: &Person) -> bool {
        true
    }

    fn shows_whole(&self, posting: &Posting) -> bool {
        text::shows_whole(posting)
    }

    async fn mark(&self, posting: &Posting, _now_ms: i64) -> Result<String> {
        let chat = self.chat(posting, "sendMessage").await?;
        let message = self.seen.highest(&*self.state, chat).await?;
        Ok(Mark { chat, message }.to_string())
    }

    async fn post(&self, posting: &Posting) -> Result<MessageRef> {
        let chat = self.chat(posting, "sendMessage").await?;
        let keyboard = keyboard::keyboard(posting);
        let text = text::question(posting);
        let sent = self.api.send_message(chat, &text, Some(ReplyMarkup::Buttons(&keyboard)), None).await?;
        // The post is out: whatever fails from here on must not make it look unsent.
        self.note_question(chat, sent.message_id, posting).await;
        Ok(message_ref(chat, sent.message_id))
    }

    async fn find_posted(&self, posting: &Posting, mark: &str) -> Result<Option<MessageRef>> {
        in_doubt::find_posted(self, posting, mark).await
    }

    async fn settle(&self, message: &MessageRef, posting: &Posting, settled: &Settled) -> Result<()> {
        let (chat, id) = ids(message, "editMessageText")?;
        match self.api.edit_message_text(chat, id, &text::settled(posting, settled)).await {
            Ok(()) => Ok(()),
            // Already showing it (an earlier settle whose answer was lost).
            Err(err) if err.says("message is not modified") => Ok(()),
            // Deleted, or no longer editable: trying again cannot help.
            Err(err) if err.says("message to edit not found") || err.says("message can't be edited") => {
                tracing::info!(request_id = %posting.request_id, "the question's message is gone or fixed; left as it is");
                Ok(())
            }
            Err(err) => Err(err.into()),
        }
    }

    async fn respond(&self, reply: Reply, response: &Response) -> Result<()> {
        match reply {
            Reply::Button { query } => {
                let (notice, alert) = match response {
                    Response::Accepted => ("Answered".to_owned(), false),
                    Response::AlreadyAnswered(winner) => (format!("already answered: {winner}"), false),
                    Response::Refused(why) => (why.clone(), true),
                    Response::Told(what) => (what.clone(), false),
                };
                match self.api.answer_callback(&query, Some(&text::notice(&notice)), alert).await {
                    Ok(()) => Ok(()),
                    // Telegram waits only so long for an answer; the message shows the outcome.
                    Err(err) if err.says("query is too old") => {
                        tracing::debug!("a press was answered too late to show a notice");
                        Ok(())
                    }
                    Err(err) => Err(err.into()),
                }
            }
            Reply::Pairing { chat } => match response {
                Response::Told(told) => {
                    let sent = self.api.send_message(chat, &text::reply(told), None, None).await?;
                    self.note_message(chat, sent.message_id).await;
                    Ok(())
                }
                _ => {
                    tracing::info!(chat_id = chat, "/start with no good pairing code; ignored");
                    Ok(())
                }
            },
            Reply::Text { chat, message } => {
                let told = match response {
                    Response::Accepted => return Ok(()),
                    Response::AlreadyAnswered(winner) => format!("already answered: {winner}"),
                    Response::Refused(why) | Response::Told(why) => why.clone(),
                };
                let sent = self.api.send_message(chat, &text::reply(&told), None, Some(message)).await?;
                self.note_message(chat, sent.message_id).await;
                Ok(())
            }
        }
    }

    async fn listen(self: Arc<Self>, heard: mpsc::Sender<Heard<Reply>>, stop: CancellationToken) {
        poll::listen(self, heard, stop).await;
    }
}
