//! What one update asks for: a press (or a person's pairing code) to hand to the worker, or
//! something handled here (the person's pairing, a toggle, a prompt for a written answer), or
//! nothing.
//!
//! Every update is hostile until shown otherwise: texts and data are bounded, ids are parsed,
//! and anything from a chat other than the paired one or a person's own paired chat is dropped
//! with a log line naming the chat only (never its text). Failures to answer Telegram here are logged, never fatal: the
//! listener goes on with the next update.

use beckon_core::RequestId;

use super::api::{CallbackQuery, Message, ReplyMarkup, Update, User};
use super::bot::{Telegram, message_ref};
use super::keyboard::{self, ButtonData, CALLBACK_DATA_MAX_BYTES};
use super::pairing::{CodeUse, Refusal};
use super::replies::ReplyTarget;
use super::reply::Reply;
use super::{pairing, replacement, text};
use crate::channel::{Action, Heard, ItemAnswer, Person, Press};
use crate::state::ChannelState;

/// The longest message text read, in characters (Telegram's own limit).
const TEXT_MAX_CHARS: usize = 4096;
/// The longest callback query id read, in bytes (Telegram's are about 20).
const QUERY_ID_MAX_BYTES: usize = 128;
/// The longest name kept for a person, in characters.
const NAME_MAX_CHARS: usize = 64;

impl<S: ChannelState> Telegram<S> {
    /// Handles `update`; what it asks of the worker, if anything.
    pub(super) async fn read_update(&self, update: Update) -> Option<Heard<Reply>> {
        if let Some(query) = update.callback_query {
            return self.read_press(query).await.map(Heard::Press);
        }
        self.read_message(update.message?).await
    }

    async fn paired(&self) -> Option<i64> {
        match pairing::paired_chat(&*self.state).await {
            Ok(chat) => chat,
            Err(err) => {
                tracing::warn!(%err, "cannot read the paired chat; the update is dropped");
                None
            }
        }
    }

    async fn read_message(&self, message: Message) -> Option<Heard<Reply>> {
        let chat = message.chat.id;
        let paired = self.paired().await;
        let heard = self.hears(chat, paired).await;
        if heard {
            self.note_message(chat, message.message_id).await;
        }
        let text = message.text.as_deref()?;
        if text.chars().count() > TEXT_MAX_CHARS {
            tracing::warn!(chat_id = chat, "a message longer than Telegram allows; ignored");
            return None;
        }
        if pairing::is_start(text) {
            return self.pair(&message, text).await;
        }
        if !heard {
            tracing::info!(chat_id = chat, "a message from a chat that is not paired; ignored");
            return None;
        }
        let replied_to = message.reply_to_message.as_ref()?.message_id;
        let target = match self.replies.find(&*self.state, chat, replied_to).await {
            Ok(Some(target)) => target,
            Ok(None) => {
                tracing::debug!(chat_id = chat, "a reply to a message no question is waiting on; ignored");
                return None;
            }
            Err(err) => {
                tracing::warn!(chat_id = chat, %err, "cannot look up what a reply answers; ignored");
                return None;
            }
        };
        Some(Heard::Press(Press {
            request_id: target.request,
            message: message_ref(chat, target.question_message),
            person: person(message.from.as_ref(), chat),
            action: Action::Answer(vec![ItemAnswer { other: Some(text.to_owned()), ..ItemAnswer::default() }]),
            reply: Reply::Text { chat, message: message.message_id },
        }))
    }

    /// Pairs the chat, or records its request to replace the paired one, when `text` is
    /// `/start` with the waiting code; hands any other code to the worker, as a person's code
    /// from their team inbox's page; otherwise says nothing. The code itself is never logged.
    async fn pair(&self, message: &Message, text: &str) -> Option<Heard<Reply>> {
        let chat = message.chat.id;
        if !message.chat.is_private() {
            tracing::info!(chat_id = chat, "/start from a chat that is not private; ignored");
            return None;
        }
        let name = person(message.from.as_ref(), chat).name;
        let now_ms = self.state.now_ms();
        match pairing::use_code(&*self.state, chat, name.as_deref(), text, now_ms).await {
            Ok(CodeUse::Paired) => {
                tracing::info!(chat_id = chat, "paired with a Telegram chat");
                self.note_message(chat, message.message_id).await;
                match self.api.send_message(chat, text::PAIRED, None, None).await {
                    Ok(sent) => self.note_message(chat, sent.message_id).await,
                    Err(err) => tracing::warn!(chat_id = chat, %err, "cannot confirm the pairing"),
                }
            }
            Ok(CodeUse::AwaitsConfirmation { paired }) => {
                tracing::info!(
                    chat_id = chat,
                    paired_chat_id = paired,
                    "a chat used the pairing code while another is paired; it waits for the person to confirm it in the window"
                );
                self.say(chat, replacement::AWAITS_CONFIRMATION).await;
            }
            Ok(CodeUse::NotACode) => tracing::info!(chat_id = chat, "/start without a pairing code; ignored"),
            Ok(CodeUse::Refused(Refusal::NoCode | Refusal::Wrong)) => {
                // Not the person's code: perhaps one a person on a team server got on their page.
                let code = pairing::start_code(text)?;
                let person = Person { id: chat.to_string(), name: person(message.from.as_ref(), chat).name };
                return Some(Heard::PairingCode { person, code: code.to_owned(), reply: Reply::Pairing { chat } });
            }
            Ok(CodeUse::Refused(why)) => {
                tracing::info!(chat_id = chat, %why, "/start with no good pairing code; ignored")
            }
            Err(err) => tracing::warn!(chat_id = chat, %err, "cannot pair the chat"),
        }
        None
    }

    async fn read_press(&self, query: CallbackQuery) -> Option<Press<Reply>> {
        if query.id.len() > QUERY_ID_MAX_BYTES {
            tracing::warn!("a press with an overlong id; ignored");
            return None;
        }
        let data = query.data.as_deref().filter(|data| data.len() <= CALLBACK_DATA_MAX_BYTES);
        let (Some(data), Some(message)) = (data, query.message.as_ref()) else {
            tracing::info!("a press without data or message of Beckon's; ignored");
            self.dismiss(&query.id).await;
            return None;
        };
        let chat = message.chat.id;
        if !self.hears(chat, self.paired().await).await {
            tracing::info!(chat_id = chat, "a press from a chat that is not paired; ignored");
            self.dismiss(&query.id).await;
            return None;
        }
        let Some(button) = ButtonData::parse(data) else {
            tracing::info!(chat_id = chat, "a press on a button Beckon did not make; ignored");
            self.dismiss(&query.id).await;
            return None;
        };
        let action = match button {
            ButtonData::Choose { option, .. } => {
                Action::Answer(vec![ItemAnswer { options: vec![option], ..ItemAnswer::default() }])
            }
            ButtonData::Skip { .. } => Action::Decline,
            ButtonData::Submit { request, items } => match &message.reply_markup {
                Some(buttons) => Action::Answer(keyboard::chosen(buttons, request, items)),
                None => {
                    let notice = "This message is too old to read its choices: answer in Beckon.";
                    self.tell(&query.id, notice).await;
                    return None;
                }
            },
            ButtonData::Toggle(toggle) => {
                self.dismiss(&query.id).await;
                if let Some(buttons) = &message.reply_markup {
                    let buttons = keyboard::toggled(buttons, &toggle);
                    match self.api.edit_reply_markup(chat, message.message_id, Some(&buttons)).await {
                        Err(err) if !err.says("message is not modified") => {
                            tracing::warn!(chat_id = chat, %err, "cannot show a toggle");
                        }
                        _ => {}
                    }
                }
                return None;
            }
            ButtonData::Write { request } => {
                self.dismiss(&query.id).await;
                self.prompt(chat, message.message_id, request).await;
                return None;
            }
        };
        Some(Press {
            request_id: button.request(),
            message: message_ref(chat, message.message_id),
            person: person(Some(&query.from), chat),
            action,
            reply: Reply::Button { query: query.id },
        })
    }

    /// Opens a reply field for a written answer to the question on `question_message`.
    async fn prompt(&self, chat: i64, question_message: i64, request: RequestId) {
        let known = match self.replies.find(&*self.state, chat, question_message).await {
            Ok(known) => known.filter(|target| target.request == request),
            Err(err) => {
                tracing::warn!(request_id = %request, %err, "cannot look the question up for its prompt");
                None
            }
        };
        let question = known.and_then(|target| target.question);
        let markup = ReplyMarkup::ForceReply { force_reply: true, input_field_placeholder: "Your answer" };
        let prompt = text::prompt(question.as_deref());
        let sent = match self.api.send_message(chat, &prompt, Some(markup), Some(question_message)).await {
            Ok(sent) => sent,
            Err(err) => {
                tracing::warn!(request_id = %request, %err, "cannot ask for a written answer");
                return;
            }
        };
        self.note_message(chat, sent.message_id).await;
        let target = ReplyTarget { chat, message: sent.message_id, question_message, request, question };
        if let Err(err) = self.replies.remember(&*self.state, target).await {
            tracing::warn!(request_id = %request, %err, "cannot remember a prompt for a written answer");
        }
    }

    /// Ends a press's spinner without a word.
    async fn dismiss(&self, query: &str) {
        if let Err(err) = self.api.answer_callback(query, None, false).await {
            tracing::debug!(%err, "cannot answer a press");
        }
    }

    /// Ends a press's spinner with an alert.
    async fn tell(&self, query: &str, notice: &str) {
        if let Err(err) = self.api.answer_callback(query, Some(notice), true).await {
            tracing::debug!(%err, "cannot answer a press");
        }
    }
}

/// The person behind a message or press: "@handle" when they have one, else their first name.
fn person(user: Option<&User>, chat: i64) -> Person {
    let Some(user) = user else { return Person { id: chat.to_string(), name: None } };
    let name = match &user.username {
        Some(handle) if !handle.is_empty() => Some(format!("@{handle}")),
        _ => Some(user.first_name.trim().to_owned()).filter(|name| !name.is_empty()),
    };
    let name = name.map(|name| name.chars().filter(|c| !c.is_control()).take(NAME_MAX_CHARS).collect());
    Person { id: user.id.to_string(), name }
}
