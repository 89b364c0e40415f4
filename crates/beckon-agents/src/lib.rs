//! Beckon and the agents people run — Claude Code, Codex CLI, Copilot CLI, OpenCode and Gemini
//! CLI — without I/O beyond the agents' own configuration files.
//!
//! - [`agent`]: the agents by name, and how far each lets Beckon answer its prompts.
//! - [`connect`]: what `beckon setup <agent>` writes into an agent's configuration, and whether
//!   it is there; one module per agent says which files and what entries, all running `beckon`
//!   as an [`Invocation`] says.
//! - One module per agent maps that agent's hook input to Beckon's approval, question or notice
//!   and Beckon's answer back to that agent's output: [`claude_code`], [`codex`], [`copilot`],
//!   [`opencode`], [`gemini`].

pub mod agent;
pub mod claude_code;
pub mod codex;
pub mod connect;
pub mod copilot;
pub mod gemini;
mod hook_groups;
pub mod invocation;
mod json_file;
mod json_text;
mod mcp_servers;
pub mod notice;
pub mod opencode;
mod shell;
#[cfg(test)]
mod testing;

pub use agent::{Agent, Approvals};
pub use connect::{Change, Connection, Place, Report, Scope, State, connection};
pub use invocation::Invocation;

/// Why reading or writing an agent's configuration failed.
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
    /// A file is not TOML; it was left as it is.
    #[error("{path} is not valid TOML ({detail}); fix it first, nothing was changed")]
    NotToml {
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
    /// The agent has no such scope.
    #[error("{agent} has no {scope} scope; use {offered}")]
    NoSuchScope {
        /// The agent's name.
        agent: &'static str,
        /// The scope asked for.
        scope: &'static str,
        /// The scopes it has.
        offered: &'static str,
    },
}

/// Results in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
