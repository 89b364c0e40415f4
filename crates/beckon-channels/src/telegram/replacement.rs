//! Settling, from Beckon's window, a chat's request to replace the paired one: the person
//! confirms it (the new chat is paired and told so, and the chat it replaces is told it no
//! longer answers) or refuses it (nothing changes, no chat is told).
//!
//! Also the pairing's own messages to chats. A failure to send one is logged and changes
//! nothing: the pairing is decided by the state, not by what Telegram was told.

use super::bot::Telegram;
use super::pairing::{self, Replacement};
use super::text;
use crate::error::Result;
use crate::state::ChannelState;

/// Told to a chat that used a good code while another chat is paired.
pub(super) const AWAITS_CONFIRMATION: &str = "Beckon has your code. Another chat answers its questions now: \
     confirm this one in Beckon's window (Settings › Channels) within ten minutes to have them come here instead.";

/// Told to the chat a confirmed replacement unpaired.
pub(super) const NO_LONGER_PAIRED: &str = "This chat is no longer paired with Beckon: its questions now go to \
     another chat, confirmed in Beckon's window. Buttons here no longer answer.";

impl<S: ChannelState> Telegram<S> {
    /// Pairs `chat` in place of the paired chat, as the person confirmed in the window, and
    /// tells both chats; false when `chat` has no request waiting (settled, replaced or lapsed
    /// meanwhile).
    pub async fn confirm_chat(&self, chat: i64) -> Result<bool> {
        let Some(Replacement { previous, chat }) = pairing::confirm(&*self.state, chat, self.state.now_ms()).await?
        else {
            return Ok(false);
        };
        tracing::info!(chat_id = chat, previous_chat_id = ?previous, "paired with a Telegram chat the person confirmed");
        if let Some(previous) = previous {
            self.say(previous, NO_LONGER_PAIRED).await;
        }
        self.say(chat, text::PAIRED).await;
        Ok(true)
    }

    /// Sends `words` to `chat`, logging a failure.
    pub(super) async fn say(&self, chat: i64, words: &str) {
        if let Err(err) = self.api.send_message(chat, words, None, None).await {
            tracing::warn!(chat_id = chat, %err, "cannot tell a chat how its pairing stands");
        }
    }
}

/// Drops `chat`'s request to replace the paired chat, as the person refused it (no chat is
/// told); false when none was waiting.
pub async fn refuse_chat<S: ChannelState>(state: &S, chat: i64) -> Result<bool> {
    let refused = pairing::refuse(state, chat).await?;
    if refused {
        tracing::info!(chat_id = chat, "the person refused a chat's request to be paired");
    }
    Ok(refused)
}
