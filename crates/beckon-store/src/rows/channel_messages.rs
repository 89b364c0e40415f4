//! A question's message on a channel, where it stands, and what a channel has to do.

use beckon_core::RequestId;

use crate::rows::QuestionRecord;

/// Where a question's message on a channel stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelMessageState {
    /// A post failed for certain; the next attempt is due at `next_attempt_at_ms`.
    Waiting,
    /// A post was (or may have been) sent and its message is not recorded yet.
    Posting,
    /// The message is posted and shows the question.
    Posted,
    /// The message shows how the question ended.
    Settled,
}

impl ChannelMessageState {
    const ALL: [ChannelMessageState; 4] = [Self::Waiting, Self::Posting, Self::Posted, Self::Settled];

    /// The name as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Waiting => "waiting",
            Self::Posting => "posting",
            Self::Posted => "posted",
            Self::Settled => "settled",
        }
    }

    /// Reads the name as stored.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// A question's message on a channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelMessage {
    /// The channel ("slack", "telegram"), or one person's messages on it ("slack:<subject>").
    pub channel: String,
    /// The question.
    pub request_id: RequestId,
    /// Where it stands.
    pub state: ChannelMessageState,
    /// The channel's mark taken before the last post was sent.
    pub mark: Option<String>,
    /// The channel's conversation (Slack channel, Telegram chat), once posted.
    pub conversation: Option<String>,
    /// The channel's message id (Slack `ts`, Telegram message id), once posted.
    pub message: Option<String>,
    /// Failed attempts since the last success.
    pub attempts: i64,
    /// When the next attempt is due (Unix ms).
    pub next_attempt_at_ms: i64,
}

/// What a channel has to do now.
#[derive(Debug, Clone, Default)]
pub struct ChannelWork {
    /// Every post a crash or a failure left in doubt, due or not: look for each (once due)
    /// before posting anything else.
    pub in_doubt: Vec<(ChannelMessage, QuestionRecord)>,
    /// Pending questions to post, oldest first.
    pub to_post: Vec<QuestionRecord>,
    /// Posted messages whose question has been resolved.
    pub to_settle: Vec<(ChannelMessage, QuestionRecord)>,
    /// When something not yet due falls due (Unix ms).
    pub next_due_ms: Option<i64>,
}

/// Which pending questions go to a channel.
#[derive(Debug, Clone, Copy)]
pub struct ChannelScope<'a> {
    /// Only questions asked at or before this (Unix ms): "after N minutes unanswered".
    pub asked_by_ms: i64,
    /// How long after asking a question becomes due, for `next_due_ms`.
    pub delay_ms: i64,
    /// Only these agents' questions, when given.
    pub agents: Option<&'a [String]>,
    /// Only questions addressed to one of these audiences (`person:<subject>`, `group:<name>`),
    /// when given: what goes to one person's own messages.
    pub audiences: Option<&'a [String]>,
}
