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
mod bot;
mod config;
mod form;
pub mod fuzzing;
mod in_doubt;
mod inbound;
mod keyboard;
mod pairing;
mod poll;
mod replacement;
mod replies;
mod reply;
mod seen;
mod text;

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use self::api::ReplyMarkup;
use self::bot::{ids, message_ref};
use self::seen::Mark;
use crate::channel::{Channel, ChannelKind, Heard, MessageRef, Person, Posting, Response, Settled};
use crate::error::Result;
use crate::state::ChannelState;

pub use self::bot::Telegram;
pub use self::config::{DEFAULT_API_BASE, TelegramConfig};
pub use self::pairing::{ChatRequest, PAIRING_LIFETIME, Pairing, PairingCode, new_pairing_code, paired_chat, pairing};
pub use self::replacement::refuse_chat;
pub use self::reply::Reply;

/// State keys the channel keeps: the paired chat, the waiting pairing code, a chat's waiting
/// request to replace the paired one, the update offset, the highest message id seen (and, under
/// `telegram.last_message.<chat>`, in each chat), and the messages a written reply answers.
pub const STATE_KEYS: [&str; 6] =
    [pairing::CHAT_KEY, pairing::CODE_KEY, pairing::REQUEST_KEY, poll::OFFSET_KEY, seen::KEY, replies::KEY];

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
