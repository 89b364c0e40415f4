//! Rules learned from decisions: after the person allows the same kind of call in the same
//! project a few times ([`OFFER_AFTER`]), Beckon offers a rule that allows such calls from then
//! on ("Always allow `npm test` in shop?"). People can also write rules by hand.
//!
//! A rule covers a shell command by its leading words, a file tool by the folder it works in,
//! or an MCP tool by name, always within one project. No rule ever covers a call on the
//! built-in list of destructive ones ([`destructive`]): `rm -rf`, `git push --force`,
//! `curl … | sh`, writes outside the project and the like, nor a shell command that chains,
//! pipes, redirects or substitutes anything. When a command cannot be read with confidence it
//! counts as destructive. Paths are read lexically: a symbolic link inside the project that
//! points outside it is not seen here.

mod command;
mod destructive;
mod learn;
mod path;
mod spec;
#[cfg(test)]
mod tests;
mod tool;

use serde::{Deserialize, Serialize};

pub use destructive::destructive;

/// How many allows of the same rule before Beckon offers it.
pub const OFFER_AFTER: u32 = 3;
/// Longest command prefix, in bytes.
pub const PREFIX_MAX_BYTES: usize = 1024;

/// What a rule looks at in a call of its tool.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Matcher {
    /// A shell command that starts with these words (whole words): `npm test` covers
    /// `npm test`, `npm test -- --watch`, not `npm tests` nor `npm test && rm -rf /`.
    Command {
        /// The leading words, separated by single spaces.
        prefix: String,
    },
    /// A file tool (Edit/Write/Read-like; whatever path field the agents use: `file_path`,
    /// `path`, …) on a path under this folder (relative to the project, or absolute inside it).
    Path {
        /// The folder, relative to the project (`src`, `.` for the whole project).
        under: String,
    },
    /// Any call of this tool (MCP tools like `mcp__github__create_issue`; never shell tools).
    Tool,
}

/// A rule that allows calls of one tool in one project.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RuleSpec {
    /// The tool, as the agent names it (`Bash`, `Edit`, `mcp__github__create_issue`).
    pub tool: String,
    /// Which of its calls the rule covers.
    pub matcher: Matcher,
    /// The project folder; a rule always names its project.
    pub project: String,
}
