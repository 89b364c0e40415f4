//! How a command ends: its exit code, and errors as one line on stderr.

use std::process::ExitCode;

use beckon_client::ClientError;

/// Why a command failed (exit 1).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The gateway could not be reached or refused the request.
    #[error(transparent)]
    Gateway(#[from] ClientError),
    /// The gateway answered something this command does not understand.
    #[error("unexpected reply from Beckon: {0}")]
    Reply(String),
    /// An agent's configuration could not be read or written (`beckon setup`).
    #[error(transparent)]
    Agent(#[from] beckon_agents::Error),
    /// A question could not be withdrawn (a hook whose agent went on without it).
    #[error("cannot withdraw {id}: {source}")]
    Withdraw {
        /// The question.
        id: String,
        /// Why.
        source: ClientError,
    },
    /// A session's notice could not be shown or cleared (a hook).
    #[error("cannot change the notice: {0}")]
    Notice(#[source] ClientError),
    /// Local I/O failed (signals, stdio).
    #[error("{0}")]
    Io(String),
    /// What the command was given is not a valid question (`beckon ask --input`).
    #[error("{0}")]
    Input(String),
}

/// Results of commands.
pub type CliResult<T> = Result<T, CliError>;

/// How a command ended, as its exit code says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Done; for `ask`, answered (0).
    Success,
    /// An error (1).
    Failed,
    /// The person declined (2).
    Declined,
    /// The question expired (3).
    Expired,
    /// The question's session was cancelled (4).
    Cancelled,
    /// Ctrl-C (130).
    Interrupted,
    /// What the program this command handed over to exited with, where it could not take this
    /// process's place.
    HandedOver(u8),
}

impl Exit {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failed => 1,
            Exit::Declined => 2,
            Exit::Expired => 3,
            Exit::Cancelled => 4,
            Exit::Interrupted => 130,
            Exit::HandedOver(code) => code,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}
