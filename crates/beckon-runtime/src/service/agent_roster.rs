//! The agents Beckon runs itself: those its agent files define, the files that could not be
//! loaded, and which one a new chat starts with.

use super::handle::Beckon;
use crate::agents::{AgentInfo, AgentProblem};
use crate::executor::Executor;

/// The agents Beckon runs itself.
#[derive(Debug, Clone, Copy)]
pub struct AgentRoster<'a> {
    executor: &'a Executor,
}

impl Beckon {
    /// The agents Beckon runs itself.
    pub fn agents(&self) -> AgentRoster<'_> {
        AgentRoster { executor: &self.rt.executor }
    }
}

impl AgentRoster<'_> {
    /// The agents, by name.
    pub fn list(self) -> Vec<AgentInfo> {
        self.executor.agents.infos()
    }

    /// Agent files that could not be loaded.
    pub fn problems(self) -> Vec<AgentProblem> {
        self.executor.agents.problems().to_vec()
    }

    /// The agent a new chat uses when none is picked: the poet demo when no provider key is set.
    pub fn default(self) -> &'static str {
        if self.executor.providers().any_configured() && self.executor.agents.get("assistant").is_some() {
            "assistant"
        } else {
            "poet"
        }
    }
}
