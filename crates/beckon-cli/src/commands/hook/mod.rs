//! `beckon hook <agent>`: an agent's hook that puts the agent's own prompts to the person
//! through Beckon, one module per agent; [`put`] holds what they share.
//!
//! It never holds an agent hostage: when Beckon is not running, refuses the question, or
//! anything else goes wrong, it prints nothing and exits 0, and the agent's own prompt decides.

mod claude_code;
mod codex;
mod copilot;
mod gemini;
mod opencode;
mod put;

use crate::cli::{AgentName, Connection, HookArgs};
use crate::error::{CliResult, Exit};

/// Runs `beckon hook <agent>`.
pub async fn run(connection: &Connection, args: HookArgs) -> CliResult<Exit> {
    let done = match args.agent {
        AgentName::ClaudeCode => claude_code::run(connection).await,
        AgentName::Codex => codex::run(connection).await,
        AgentName::Copilot => copilot::run(connection).await,
        AgentName::Opencode => opencode::run(connection).await,
        AgentName::Gemini => gemini::run(connection).await,
    };
    if let Err(why) = done {
        // Agents show a hook's stderr in their verbose modes; their own prompt decides.
        eprintln!("beckon hook: {why}; leaving this prompt to {}", args.agent.agent().title());
    }
    Ok(Exit::Success)
}
