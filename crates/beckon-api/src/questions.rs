//! A question put to a person, as front ends receive it: the question as stored and in the
//! inbox, its status, and how it ended.

use std::fmt;

use beckon_core::conversation::{ExpiryPolicy, Origin};
use beckon_core::{AnsweredVia, InboxLine, Outcome, OutcomeKind, QuestionRequest, RequestId, SessionId};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// A question's status: pending until exactly one outcome wins.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionStatus {
    /// Waiting for a person.
    Pending,
    /// Answered.
    Answered,
    /// Declined by the person.
    Declined,
    /// Its deadline passed.
    Expired,
    /// Its session was cancelled.
    Cancelled,
}

impl QuestionStatus {
    const ALL: [QuestionStatus; 5] = [Self::Pending, Self::Answered, Self::Declined, Self::Expired, Self::Cancelled];

    /// The snake_case name, as stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Answered => "answered",
            Self::Declined => "declined",
            Self::Expired => "expired",
            Self::Cancelled => "cancelled",
        }
    }

    /// Reads the snake_case name.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

impl From<OutcomeKind> for QuestionStatus {
    fn from(kind: OutcomeKind) -> Self {
        match kind {
            OutcomeKind::Answered => Self::Answered,
            OutcomeKind::Declined => Self::Declined,
            OutcomeKind::Expired => Self::Expired,
            OutcomeKind::Cancelled => Self::Cancelled,
        }
    }
}

impl fmt::Display for QuestionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A question as stored.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionRecord {
    /// Its id.
    pub id: RequestId,
    /// The session that asked.
    pub session_id: SessionId,
    /// The call it came from.
    pub tool_use_id: String,
    /// The agent that asked.
    pub agent: String,
    /// Who asked.
    pub origin: Origin,
    /// What was asked.
    #[cfg_attr(feature = "ts", ts(as = "beckon_core::ts::QuestionRequestShape"))]
    pub request: QuestionRequest,
    /// Its status.
    pub status: QuestionStatus,
    /// How it ended, once it has.
    pub outcome: Option<Outcome>,
    /// Where the person answered or declined from.
    pub answered_via: Option<AnsweredVia>,
    /// Who answered, when the front end knows ("slack:U123 (ada)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub answered_by: Option<String>,
    /// Who asked, on a team server: the signed-in person ("oidc:ada (Ada Lovelace
    /// <ada@example.com>)") or the token ("token ada-laptop (for person:ada)"); nothing when
    /// the person's own token asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub asked_by: Option<String>,
    /// On a team server, for an admin reading a question addressed to someone else: to whom
    /// (`person:ada`, `group:web`), who alone may answer it. Never stored: the window fills it
    /// in for the admin who reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub only_for: Option<String>,
    /// Where its callbacks go.
    pub callback_url: Option<String>,
    /// Asked (Unix ms).
    pub created_at_ms: i64,
    /// Resolved (Unix ms).
    pub resolved_at_ms: Option<i64>,
    /// Expires (Unix ms).
    pub expires_at_ms: Option<i64>,
    /// What happens when it expires.
    pub expiry_policy: Option<ExpiryPolicy>,
}

/// A pending question for the inbox, read from the compact pending index alone. The request
/// is kept as the JSON text it was stored as, so listing thousands costs no parsing; call
/// [`PendingQuestion::request`] for the typed form.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PendingQuestion {
    /// Its id.
    pub id: RequestId,
    /// The session that asks.
    pub session_id: SessionId,
    /// The agent that asks.
    pub agent: String,
    /// Who asks.
    pub origin: Origin,
    /// What is asked, as JSON text.
    #[serde(rename = "request")]
    #[cfg_attr(feature = "ts", ts(as = "beckon_core::ts::QuestionRequestShape"))]
    pub request_json: Box<RawValue>,
    /// Asked (Unix ms).
    pub created_at_ms: i64,
    /// Expires (Unix ms).
    pub expires_at_ms: Option<i64>,
}

impl PartialEq for PendingQuestion {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.session_id == other.session_id
            && self.agent == other.agent
            && self.origin == other.origin
            && self.request_json.get() == other.request_json.get()
            && self.created_at_ms == other.created_at_ms
            && self.expires_at_ms == other.expires_at_ms
    }
}

impl PendingQuestion {
    /// What is asked.
    pub fn request(&self) -> serde_json::Result<QuestionRequest> {
        serde_json::from_str(self.request_json.get())
    }
}

/// A pending question as the inbox's list shows it: who asks, when, and its [`InboxLine`], without
/// the request itself (fetch the question whole when it is opened). The line is kept as the JSON
/// text it was stored as, so listing thousands costs no parsing.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InboxEntry {
    /// Its id.
    pub id: RequestId,
    /// The session that asks.
    pub session_id: SessionId,
    /// The agent that asks.
    pub agent: String,
    /// Who asks.
    pub origin: Origin,
    /// What the list shows and searches.
    #[serde(rename = "line")]
    #[cfg_attr(feature = "ts", ts(as = "InboxLine"))]
    pub line_json: Box<RawValue>,
    /// Asked (Unix ms).
    pub created_at_ms: i64,
    /// Expires (Unix ms).
    pub expires_at_ms: Option<i64>,
}

impl InboxEntry {
    /// The line, typed.
    pub fn line(&self) -> serde_json::Result<InboxLine> {
        serde_json::from_str(self.line_json.get())
    }
}

/// How a question ended.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResolvedQuestion {
    /// The question.
    pub id: RequestId,
    /// Its session.
    pub session_id: SessionId,
    /// Its final status.
    pub status: QuestionStatus,
    /// The winning resolution.
    pub outcome: Outcome,
    /// Where the person acted from.
    pub answered_via: Option<AnsweredVia>,
    /// When (Unix ms).
    pub resolved_at_ms: i64,
}

impl QuestionRecord {
    /// How it was resolved, once it has been.
    pub fn resolution(&self) -> Option<ResolvedQuestion> {
        Some(ResolvedQuestion {
            id: self.id,
            session_id: self.session_id,
            status: self.status,
            outcome: self.outcome.clone()?,
            answered_via: self.answered_via,
            resolved_at_ms: self.resolved_at_ms?,
        })
    }
}
