//! Connecting an agent to Beckon: its configuration files for one scope, what connecting writes
//! there, and whether it is there. Each agent's module says which files and what entries; they
//! all answer to [`Connection`].
//!
//! What every agent's module shares (the scope, the place, the report, [`Connection`]) is in the
//! files below this one; this one only picks the agent's module. Each agent names what it shares,
//! and the choice names each agent, without either leading back to the other.

mod connection;
mod place;
mod report;
mod scope;

pub use connection::Connection;
pub use place::{PLACE_VARS, Place};
pub use report::{Change, Report, State};
pub use scope::Scope;

use crate::Result;
use crate::agent::Agent;
use crate::invocation::Invocation;

/// `agent`'s configuration in `scope` at `place`, running `beckon` as `beckon` says.
pub fn connection(agent: Agent, scope: Scope, place: &Place, beckon: &Invocation) -> Result<Box<dyn Connection>> {
    match agent {
        Agent::ClaudeCode => Ok(Box::new(crate::claude_code::setup::Setup::at(scope, place, beckon))),
        Agent::Codex => crate::codex::connection(scope, place, beckon),
        Agent::Copilot => crate::copilot::connection(scope, place, beckon),
        Agent::OpenCode => crate::opencode::connection(scope, place, beckon),
        Agent::Gemini => crate::gemini::connection(scope, place, beckon),
    }
}
