//! What one agent may spend: a model that loops on a tool would otherwise fill the disk and
//! spend the person's API credit until someone noticed.

use serde::{Deserialize, Serialize};

/// An agent's budget. Each has a default that ordinary work stays well inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentLimits {
    /// Model replies after each message from the person (or the payload, or the task a
    /// sub-agent was given); the next request past it fails the session.
    pub max_turns: u32,
    /// Tool calls in one model reply; a reply with more fails the session.
    pub max_tool_calls_per_turn: u32,
    /// Bytes of files in the session's workspace; a write past it is refused to the model.
    pub max_workspace_bytes: u64,
}

impl AgentLimits {
    /// Bounds on what an agent file may set, so that a typo cannot make a limit meaningless.
    pub const MAX_TURNS_RANGE: (u32, u32) = (1, 1000);
    /// See [`AgentLimits::MAX_TURNS_RANGE`].
    pub const MAX_TOOL_CALLS_RANGE: (u32, u32) = (1, 256);
    /// See [`AgentLimits::MAX_TURNS_RANGE`].
    pub const MAX_WORKSPACE_RANGE: (u64, u64) = (4 << 10, 64 << 30);

    /// The tighter of two budgets, limit by limit.
    pub fn min(self, other: AgentLimits) -> AgentLimits {
        AgentLimits {
            max_turns: self.max_turns.min(other.max_turns),
            max_tool_calls_per_turn: self.max_tool_calls_per_turn.min(other.max_tool_calls_per_turn),
            max_workspace_bytes: self.max_workspace_bytes.min(other.max_workspace_bytes),
        }
    }
}

impl Default for AgentLimits {
    fn default() -> Self {
        AgentLimits { max_turns: 50, max_tool_calls_per_turn: 16, max_workspace_bytes: 100 << 20 }
    }
}
