//! The readers of what Telegram sends, for the fuzz targets in `fuzz/`: a `getUpdates` answer
//! as the Bot API client reads it, and each update as the long-poll loop hands it to the bot.
//! Not an API: thin wrappers over the private readers, so that what is fuzzed is what runs.

#![doc(hidden)]

use beckon_core::RequestId;
use serde_json::Value;

use super::api::Update;
use super::bot::Telegram;
use super::pairing::{CHAT_KEY, CODE_KEY, PairingCode};
use super::replies::ReplyTarget;
use super::reply::Reply;
use crate::channel::Heard;
use crate::error::Result;
use crate::state::ChannelState;

/// A `getUpdates` answer (`bytes`, sent with HTTP `status`): the updates, each still as JSON,
/// or why the answer is refused.
pub fn read_updates<S: ChannelState>(telegram: &Telegram<S>, status: u16, bytes: &[u8]) -> Result<Vec<Value>> {
    Ok(telegram.api.read_answer("getUpdates", status, bytes)?)
}

/// What one update of a `getUpdates` answer asks of the worker, read as the long-poll loop
/// reads it: `None` when it has no id or is not an update (the loop skips it), else what the
/// bot heard in it, if anything.
pub async fn read_update<S: ChannelState>(telegram: &Telegram<S>, raw: Value) -> Option<Option<Heard<Reply>>> {
    raw.get("update_id").and_then(Value::as_i64)?;
    let update: Update = serde_json::from_value(raw).ok()?;
    Some(telegram.read_update(update).await)
}

/// Puts `state` where a bot in use has it: `chat` paired, `code` waiting to pair another, and
/// a written reply to message `prompt` in `chat` answering question `request`, asked on
/// message `question_message`.
pub async fn in_use<S: ChannelState>(
    state: &S,
    chat: i64,
    code: &PairingCode,
    prompt: i64,
    question_message: i64,
    request: RequestId,
) -> Result<()> {
    state.set(CHAT_KEY, &chat.to_string()).await?;
    // A string and an integer: serialising cannot fail.
    state.set(CODE_KEY, &serde_json::to_string(code).unwrap_or_default()).await?;
    let target = ReplyTarget { chat, message: prompt, question_message, request, question: None };
    super::replies::ReplyTargets::default().remember(state, target).await
}
