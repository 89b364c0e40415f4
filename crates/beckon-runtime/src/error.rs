//! The runtime's one error type: what every front end gets back from the service API.

use std::path::PathBuf;

use beckon_core::conversation::SessionStatus;
use beckon_core::{Problems, RequestId, SessionId};
use beckon_store::ResolvedQuestion;

/// Anything the service API can refuse or fail at.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No such session.
    #[error("session {0} not found")]
    SessionNotFound(SessionId),
    /// No such question.
    #[error("question {0} not found")]
    QuestionNotFound(RequestId),
    /// No live token has this name.
    #[error("no live token is named {0:?}; `beckon token list` shows them")]
    TokenNotFound(String),
    /// No such agent.
    #[error("there is no agent named {name:?}; available: {available}")]
    AgentNotFound {
        /// The name asked for.
        name: String,
        /// The names that exist.
        available: String,
    },
    /// The question was already resolved differently; the winning resolution is attached.
    #[error("question {} was already {} ", .0.id, .0.status)]
    AlreadyResolved(Box<ResolvedQuestion>),
    /// The answer does not fit the question; every problem is listed with its path.
    #[error("the answer does not fit the question:\n{0}")]
    InvalidAnswer(Problems),
    /// An input (question request, message, reason, id) broke the rules.
    #[error("{0}")]
    InvalidInput(Problems),
    /// The session cannot do that now.
    #[error("session {session} is {status}: {detail}")]
    WrongState {
        /// The session.
        session: SessionId,
        /// Its status.
        status: SessionStatus,
        /// What cannot be done and why.
        detail: String,
    },
    /// Another Beckon owns the data dir.
    #[error("{}: already in use by {holder}; only one Beckon can use a data folder at a time (quit the other one, or pick another folder with --data-dir)", path.display())]
    DataDirLocked {
        /// The data dir.
        path: PathBuf,
        /// Who holds it, as it wrote itself into the lock file.
        holder: String,
    },
    /// The data dir cannot be used.
    #[error("{}: {detail}", path.display())]
    DataDir {
        /// The data dir.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// An agent cannot run as configured (no provider key, bad script).
    #[error("agent {agent}: {detail}")]
    AgentConfig {
        /// The agent.
        agent: String,
        /// What is wrong.
        detail: String,
    },
    /// The store failed.
    #[error(transparent)]
    Store(beckon_store::Error),
    /// Only a person may do that here (a script allowing a tool call, while script approval is
    /// off).
    #[error("{0}")]
    PersonOnly(String),
    /// The runtime is shutting down.
    #[error("Beckon is shutting down")]
    ShuttingDown,
    /// Another replica of the team server runs the session and did not let go of it in time.
    #[error("session {0} is being run by another replica of this team server; try again shortly")]
    HeldElsewhere(SessionId),
    /// The server's Web Push key cannot be made or read.
    #[error("the Web Push key cannot be used: {0}")]
    PushKey(String),
}

impl From<beckon_store::Error> for Error {
    fn from(err: beckon_store::Error) -> Self {
        match err {
            beckon_store::Error::SessionNotFound(id) => Error::SessionNotFound(id),
            beckon_store::Error::QuestionNotFound(id) => Error::QuestionNotFound(id),
            beckon_store::Error::AlreadyResolved(winner) => Error::AlreadyResolved(winner),
            beckon_store::Error::QuestionAlreadyPending { session, pending } => Error::WrongState {
                session,
                status: SessionStatus::WaitingForInput,
                detail: format!("it already waits on question {pending}; answer that one first"),
            },
            beckon_store::Error::TokenNameTaken(name) => Error::InvalidInput(Problems::one(
                "name",
                format!("a live token is already named {name:?}; revoke it first or choose another name"),
            )),
            other => Error::Store(other),
        }
    }
}

/// Results in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
