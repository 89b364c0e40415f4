//! Beckon's channels: a pending question is posted where the person already talks — Slack
//! through Socket Mode, Telegram through Bot API long polling — and answered there on any
//! device. Both connect outward only: no port is opened, no certificate is needed and no
//! relay stands between Beckon and the service.
//!
//! A channel is a front end like the window: a press becomes the same answer call, checked the
//! same way, and the first answer anywhere wins. Posting and editing are driven by what the
//! store says (each question's message is a row, written before the post is sent), so a crash
//! at any moment gives exactly one message per question, edited once it is resolved.

mod answers;
mod channel;
mod desk;
mod error;
mod outcome_text;
mod runtime_state;
pub mod slack;
mod start;
mod state;
pub mod telegram;
mod worker;

pub use answers::to_answers;
pub use channel::{
    Action, Channel, ChannelKind, Heard, ItemAnswer, MessageRef, Person, Posting, Press, Response, Settled,
};
pub use error::{Error, Result};
pub use outcome_text::{settled, summary};
pub use start::{
    Channels, TelegramChatRequest, TelegramPairing, confirm_telegram_chat, new_telegram_pairing_code,
    refuse_telegram_chat, telegram_pairing,
};
pub use state::{ChannelState, MemoryState};
pub use worker::{Policy, run};
