//! Beckon and Claude Code, without I/O beyond Claude Code's own configuration files.
//!
//! - [`settings`]: what connecting writes (the MCP server, the hooks, the permission) as edits
//!   of JSON values; [`setup`]: those edits applied to the files of a scope, atomically.
//! - [`hook`]: Claude Code's hook events as Beckon questions, and answers as its decisions.
//! - [`waiting`]: Claude Code waiting at its own prompt as a Beckon notice, cleared when the
//!   session goes on.

mod elicitation;
pub mod hook;
pub mod settings;
pub mod setup;
pub mod waiting;

pub use settings::State;
pub use setup::{Change, Report, Scope, Setup};

/// Why reading or writing Claude Code's configuration failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file is not JSON; it was left as it is.
    #[error("{path} is not valid JSON ({detail}); fix it first, nothing was changed")]
    NotJson {
        /// The file.
        path: String,
        /// What the parser said.
        detail: String,
    },
    /// A file could not be read or written.
    #[error("{action} {path}: {detail}")]
    Io {
        /// "cannot read" or "cannot write".
        action: &'static str,
        /// The file.
        path: String,
        /// What the system said.
        detail: String,
    },
    /// Where the files live cannot be told (no HOME, no current folder).
    #[error("{0}")]
    Place(String),
}

/// Results in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
