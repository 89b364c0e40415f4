//! A question put to a person: what is asked, how it ends, and its deadline. The question as
//! stored, in the inbox and as resolved are beckon-api's (the wire contract).

use beckon_core::conversation::{ExpiryPolicy, Origin, SessionStatus};
use beckon_core::{AnsweredVia, Outcome, QuestionRequest, RequestId, SessionId};

use beckon_api::ResolvedQuestion;

use crate::rows::NewCallback;

/// A question to put to a person.
#[derive(Debug, Clone)]
pub struct NewQuestion {
    /// Its id.
    pub id: RequestId,
    /// The session that asks.
    pub session_id: SessionId,
    /// The `ask_user_question` call it came from.
    pub tool_use_id: String,
    /// The agent that asks.
    pub agent: String,
    /// Who asks, with the chain of agents above it.
    pub origin: Origin,
    /// What is asked.
    pub request: QuestionRequest,
    /// Where its callbacks go, if anywhere.
    pub callback_url: Option<String>,
    /// When it expires (Unix ms).
    pub expires_at_ms: Option<i64>,
    /// What happens when it expires, fixed when it is asked.
    pub expiry_policy: Option<ExpiryPolicy>,
    /// When it was asked (Unix ms).
    pub at_ms: i64,
    /// Callbacks to deliver once this is committed.
    pub callbacks: Vec<NewCallback>,
}

/// How to resolve a question.
#[derive(Debug, Clone)]
pub struct Resolution {
    /// The question.
    pub request_id: RequestId,
    /// How it ends.
    pub outcome: Outcome,
    /// Where the person acted from (none for expiry and cancellation).
    pub via: Option<AnsweredVia>,
    /// Who acted, when the front end knows (a channel's person).
    pub by: Option<String>,
    /// When (Unix ms).
    pub at_ms: i64,
    /// The asking session's status afterwards, for sessions without a state machine behind
    /// them (external agents); in-app sessions save their state in the same transaction.
    pub session_status: Option<SessionStatus>,
    /// Callbacks to deliver once this is committed.
    pub callbacks: Vec<NewCallback>,
}

/// A successful resolution.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    /// This call resolved the question.
    Now(ResolvedQuestion),
    /// The question was already resolved the same way; nothing changed.
    Repeat(ResolvedQuestion),
}

impl Resolved {
    /// Resolving the settled question `winner` again with `outcome`: the same outcome as the one
    /// that won is a [`Resolved::Repeat`]; any other is refused with the winner.
    pub fn again(winner: ResolvedQuestion, outcome: &Outcome) -> Result<Resolved, Box<ResolvedQuestion>> {
        if &winner.outcome == outcome { Ok(Resolved::Repeat(winner)) } else { Err(Box::new(winner)) }
    }

    /// The question as it now stands.
    pub fn question(&self) -> &ResolvedQuestion {
        match self {
            Self::Now(question) | Self::Repeat(question) => question,
        }
    }
}

/// A pending question's deadline.
#[derive(Debug, Clone, PartialEq)]
pub struct Deadline {
    /// The question.
    pub request_id: RequestId,
    /// Its session.
    pub session_id: SessionId,
    /// When it expires (Unix ms).
    pub expires_at_ms: i64,
    /// What happens then.
    pub policy: ExpiryPolicy,
}
