//! The seam between Beckon and a channel's service: what a channel is asked to do (post a
//! question, find a post a crash left in doubt, show how a question ended, tell a person what
//! became of a press) and what it hands back (presses). Everything here is plain data; the
//! wire formats live in `slack/` and `telegram/`.

use std::sync::Arc;

use beckon_core::{AnsweredVia, QuestionRequest, RequestId};
use beckon_store::QuestionStatus;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::error::Result;

/// Which channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChannelKind {
    /// Slack, through Socket Mode and the Web API.
    Slack,
    /// Telegram, through the Bot API with long polling.
    Telegram,
}

impl ChannelKind {
    /// The snake_case name, as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Slack => "slack",
            Self::Telegram => "telegram",
        }
    }

    /// The name a person reads ("Slack").
    pub fn title(self) -> &'static str {
        match self {
            Self::Slack => "Slack",
            Self::Telegram => "Telegram",
        }
    }

    /// Where an answer given here is recorded as coming from.
    pub fn via(self) -> AnsweredVia {
        match self {
            Self::Slack => AnsweredVia::Slack,
            Self::Telegram => AnsweredVia::Telegram,
        }
    }
}

/// A question as a channel shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Posting {
    /// The question; every button of its message names it.
    pub request_id: RequestId,
    /// Who asks ("research › summariser").
    pub asker: String,
    /// What is asked (an approval is a single choice of Allow / Allow always / Deny).
    pub request: QuestionRequest,
    /// When it was asked (Unix ms).
    pub created_at_ms: i64,
    /// The account of the person it goes to, when it goes to one person's own messages (a
    /// question a team server addresses to people they paired their account for): a Slack
    /// member id, a Telegram chat id. None: where the channel's settings say.
    pub to: Option<String>,
}

/// Where a posted message is, in the service's own terms: Slack's channel id and message `ts`,
/// or Telegram's chat id and message id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MessageRef {
    /// The Slack channel or Telegram chat.
    pub conversation: String,
    /// The Slack `ts` or Telegram `message_id`.
    pub message: String,
}

/// How a question ended, as a channel shows it on the question's message.
#[derive(Debug, Clone, PartialEq)]
pub struct Settled {
    /// Answered, declined, expired or cancelled.
    pub status: QuestionStatus,
    /// The answer as the person reads it ("Postgres", "Auth, Billing", their own text), or the
    /// reason for any other outcome.
    pub summary: String,
    /// Where it was answered from.
    pub via: Option<AnsweredVia>,
    /// Who answered, when a channel knows ("@ada").
    pub by: Option<String>,
}

/// A person on a channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    /// The service's id for them (Slack `U…`, Telegram's numeric user id).
    pub id: String,
    /// Their name or handle, when the service gives one.
    pub name: Option<String>,
}

impl Person {
    /// How the answer records them: "slack:U123 (ada)".
    pub fn identity(&self, kind: ChannelKind) -> String {
        match &self.name {
            Some(name) => format!("{}:{} ({name})", kind.as_str(), self.id),
            None => format!("{}:{}", kind.as_str(), self.id),
        }
    }
}

/// One question's answer as a channel collects it: options by index into the question's
/// options, an "Other" text (for a free-form question, its value as text), a comment. Indexes
/// and texts are checked against the question before anything is answered.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ItemAnswer {
    /// Chosen options, by index.
    pub options: Vec<usize>,
    /// Text the person wrote as their answer.
    pub other: Option<String>,
    /// A comment to go with it.
    pub comment: Option<String>,
}

/// What a press asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Answer, one entry per question of the request, in order.
    Answer(Vec<ItemAnswer>),
    /// Skip: decline to answer.
    Decline,
}

/// A person acting on a question's message: a button, a form submitted, a reply.
#[derive(Debug)]
pub struct Press<R> {
    /// The question its message names.
    pub request_id: RequestId,
    /// The message it came from: it must be the question's own message, or nothing happens.
    pub message: MessageRef,
    /// Who pressed.
    pub person: Person,
    /// What they asked for.
    pub action: Action,
    /// How to tell them what became of it (channel-specific).
    pub reply: R,
}

/// Something a person sent a channel's bot that Beckon acts on.
#[derive(Debug)]
pub enum Heard<R> {
    /// A press on a question's message.
    Press(Press<R>),
    /// A code from their team inbox's page, sent to pair this account with them.
    PairingCode {
        /// Who sent it.
        person: Person,
        /// The code, as sent.
        code: String,
        /// How to tell them what became of it.
        reply: R,
    },
}

/// What became of a press, told to the person who pressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response {
    /// Their answer counted; the question's message now shows it.
    Accepted,
    /// Someone answered first: "already answered: <the winning answer>".
    AlreadyAnswered(String),
    /// The answer does not fit the question; the text says what to fix.
    Refused(String),
    /// Something else to tell them (what became of a pairing code).
    Told(String),
}

/// A channel's service: Slack or Telegram.
pub trait Channel: Send + Sync + 'static {
    /// How this channel tells a person what became of their press.
    type Reply: Send + 'static;

    /// Which channel this is.
    fn kind(&self) -> ChannelKind;

    /// Whether this channel shows `posting` at all. A question only the person may answer
    /// (an approval, a question an agent's own interface asked them) goes only where the
    /// person alone reads it; where the channel has no such place, it is not posted.
    fn shows(&self, posting: &Posting) -> bool;

    /// Whether `person` is the person Beckon answers for, who alone may allow a tool call or
    /// answer a question asked of them.
    fn is_the_person(&self, person: &Person) -> bool;

    /// Whether the message shows an approval's call whole. When it is cut, the message offers
    /// no Allow (a padded command would hide its tail) and a press of Allow is refused.
    fn shows_whole(&self, posting: &Posting) -> bool;

    /// A mark taken just before `posting` is sent and stored with the question's row, so that a
    /// post a crash left in doubt can be looked for after it (Slack: the time as a message
    /// `ts`, the oldest the search reads; Telegram: the highest message id seen in the chat it
    /// goes to).
    fn mark(&self, posting: &Posting, now_ms: i64) -> impl Future<Output = Result<String>> + Send;

    /// Posts the question's message, with its buttons; returns where it is.
    fn post(&self, posting: &Posting) -> impl Future<Output = Result<MessageRef>> + Send;

    /// Looks for a message an earlier run posted for this question after `mark` and may not
    /// have recorded (it was killed between sending and recording); `None` when there is none.
    /// Called only before any other post of this channel is sent, so whatever the channel's bot
    /// sent after `mark` is this question's message or nothing.
    fn find_posted(&self, posting: &Posting, mark: &str) -> impl Future<Output = Result<Option<MessageRef>>> + Send;

    /// Replaces the question's message with how it ended, its buttons removed.
    fn settle(
        &self,
        message: &MessageRef,
        posting: &Posting,
        settled: &Settled,
    ) -> impl Future<Output = Result<()>> + Send;

    /// Tells the person who pressed what became of it.
    fn respond(&self, reply: Self::Reply, response: &Response) -> impl Future<Output = Result<()>> + Send;

    /// Keeps the inbound connection (Socket Mode, long polling) open until `stop`, reconnecting
    /// with jittered backoff, and sends every press and pairing code once (repeats by envelope
    /// or update id are dropped) to `heard`.
    fn listen(
        self: Arc<Self>,
        heard: mpsc::Sender<Heard<Self::Reply>>,
        stop: CancellationToken,
    ) -> impl Future<Output = ()> + Send;
}
