//! Finding a post a crash left in doubt.
//!
//! The worker writes a question's row, with a mark, before it sends the post, and records the
//! message after; a kill in between leaves a message Beckon may not know of. Posting again would
//! show the question twice, so the message is looked for first. Slack can search a channel;
//! Telegram cannot search a chat. What Telegram gives instead is that message ids in a chat
//! only grow: the mark is the highest message id seen or sent in the paired chat before the
//! post (`seen.rs`), so the post, if it went out, has a higher id.
//!
//! Each id after the mark is probed with `editMessageReplyMarkup` carrying exactly the buttons
//! this question's message was posted with (they name its request id):
//!
//! - "message is not modified": the message already has these very buttons, so it is this
//!   question's message. Found.
//! - "message can't be edited": the person's message, or a reply prompt (a message with a reply
//!   field cannot be edited). Look on.
//! - "message to edit not found": no message of this chat has that id: a deleted message, an id
//!   Telegram gave a message in another chat (a bot's private chats may share one sequence, so
//!   a stranger writing to the bot takes ids too), or the end of the chat. Looking stops after
//!   [`MISSING_RUN`] such ids in a row, and after [`PROBE_MAX`] ids in all.
//! - success: the edit changed one of the bot's messages. The worker sends no other post
//!   before this returns, but the listener sends short messages (pairing, answers to written
//!   replies), and the person may have toggled this question's form (then its buttons differ).
//!   So the edited message's text decides: this question's text means found (a form's toggles
//!   are reset, nothing else changes); any other text means a message that had no buttons, so
//!   the buttons just added are removed again and the probe goes on.
//!
//! Not defended: a post more than [`PROBE_MAX`] ids past its mark (it is posted again: the old
//! message is left, and a press on it is refused as not the question's message), and another
//! question's message after the mark, which only a failure to note it (the store failing just
//! then) can leave: the probe puts this question's buttons on it, and takes it for this
//! question's message if the two read the same, or else removes its buttons.

use super::bot::{Telegram, message_ref};
use super::keyboard;
use super::seen::Mark;
use super::text;
use crate::channel::{MessageRef, Posting};
use crate::error::Result;
use crate::state::ChannelState;

/// The most ids probed after a mark.
const PROBE_MAX: i64 = 50;
/// How many missing ids in a row end the probe.
const MISSING_RUN: u32 = 5;

/// What one probed id turned out to be.
enum Probed {
    /// This question's message.
    Found,
    /// A message that is not this question's.
    Other,
    /// No message of the chat has this id.
    Missing,
}

/// This question's message after `mark`, if it was posted; `None` when it was not.
pub(super) async fn find_posted<S: ChannelState>(
    telegram: &Telegram<S>,
    posting: &Posting,
    mark: &str,
) -> Result<Option<MessageRef>> {
    let Some(mark) = Mark::parse(mark) else {
        // Marks are Beckon's own; an unreadable one cannot say where to look.
        tracing::warn!(request_id = %posting.request_id, "a post's mark cannot be read; taking it as not posted");
        return Ok(None);
    };
    let mut missing = 0;
    for id in (mark.message + 1)..=(mark.message + PROBE_MAX) {
        match probe(telegram, posting, mark.chat, id).await? {
            Probed::Found => {
                telegram.note_question(mark.chat, id, posting).await;
                return Ok(Some(message_ref(mark.chat, id)));
            }
            Probed::Other => missing = 0,
            Probed::Missing => {
                missing += 1;
                if missing >= MISSING_RUN {
                    break;
                }
            }
        }
    }
    Ok(None)
}

async fn probe<S: ChannelState>(telegram: &Telegram<S>, posting: &Posting, chat: i64, id: i64) -> Result<Probed> {
    let buttons = keyboard::keyboard(posting);
    match telegram.api.edit_reply_markup(chat, id, Some(&buttons)).await {
        Err(err) if err.says("message is not modified") => Ok(Probed::Found),
        Err(err) if err.says("message can't be edited") => Ok(Probed::Other),
        Err(err) if err.says("message to edit not found") => Ok(Probed::Missing),
        Err(err) => Err(err.into()),
        Ok(edited) => {
            let ours = text::question(posting);
            if edited.text.as_deref().map(str::trim) == Some(ours.trim()) {
                tracing::warn!(request_id = %posting.request_id, "found the question's message with other buttons; its form starts afresh");
                return Ok(Probed::Found);
            }
            tracing::warn!(request_id = %posting.request_id, "a probe changed another message of the bot's; taking its buttons off again");
            telegram.api.edit_reply_markup(chat, id, None).await?;
            Ok(Probed::Other)
        }
    }
}
