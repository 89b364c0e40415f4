//! Why a command of `beckon-server` failed (exit 1): one line on stderr.

use std::path::PathBuf;

use beckon_client::ClientError;
use beckon_core::Problems;
use beckon_gateway::GatewayError;

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The running Beckon could not be reached (`mcp`).
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The runtime could not start or stop, or the data folder could not be read.
    #[error(transparent)]
    Runtime(#[from] beckon_runtime::Error),
    /// The gateway could not start.
    #[error(transparent)]
    Gateway(#[from] GatewayError),
    /// The settings file holds values the window would refuse to save: each problem on a line
    /// of its own, at its setting's path (`slack.person`).
    #[error("{} holds settings Beckon refuses; fix them, then start again:\n{problems}", file.display())]
    Settings {
        /// The settings file.
        file: PathBuf,
        /// What is wrong with it.
        problems: Problems,
    },
    /// What the command was given cannot be served as asked (`--listen`, `--public-url`, the
    /// client secret's file).
    #[error("{0}")]
    Input(String),
    /// Local I/O failed (signals, stdio).
    #[error("{0}")]
    Io(String),
}

/// Results of commands.
pub type ServerResult<T> = Result<T, ServerError>;
