//! What the MCP tools need from Beckon — put a question, wait for it, look it up — behind one
//! trait, so the same server runs inside the app ([`InProcess`](super::InProcess), at `/mcp`)
//! and in a separate process that reaches the app over HTTP ([`Remote`](super::Remote),
//! `beckon mcp`).

use std::future::Future;
use std::time::Duration;

use beckon_core::{Outcome, Problems, QuestionRequest, RequestId};

/// A question an MCP client asks.
#[derive(Debug, Clone)]
pub struct McpAsk {
    /// Who asks: the client's name.
    pub agent: String,
    /// Groups the client's questions into one session (its MCP session), if known.
    pub session_key: Option<String>,
    /// What is asked, already checked.
    pub request: QuestionRequest,
}

/// A question as it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionState {
    /// Its id.
    pub id: RequestId,
    /// What was asked.
    pub request: QuestionRequest,
    /// How it ended; `None` while it waits.
    pub outcome: Option<Outcome>,
}

/// Why a backend call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BackendError {
    /// The input broke the rules; every problem with its path.
    #[error("{0}")]
    Invalid(Problems),
    /// No such question.
    #[error("{0}")]
    NotFound(String),
    /// The session already waits on a question (one pending question per session).
    #[error("{0}")]
    SessionBusy(String),
    /// Beckon cannot be reached or is shutting down.
    #[error("{0}")]
    Unavailable(String),
    /// Anything else.
    #[error("{0}")]
    Failed(String),
}

/// Beckon as the MCP tools use it.
pub trait Backend: Clone + Send + Sync + 'static {
    /// Puts the question to the person; its id.
    fn ask(&self, ask: McpAsk) -> impl Future<Output = Result<RequestId, BackendError>> + Send;

    /// Waits up to `wait` for the question to be resolved; it as it then stands.
    fn wait(&self, id: RequestId, wait: Duration) -> impl Future<Output = Result<QuestionState, BackendError>> + Send;

    /// The question as it stands now.
    fn question(&self, id: RequestId) -> impl Future<Output = Result<QuestionState, BackendError>> + Send;

    /// Withdraws a question this client asked and no longer waits for (cancelled, `reason`).
    fn withdraw(&self, id: RequestId, reason: &str) -> impl Future<Output = Result<(), BackendError>> + Send;
}
