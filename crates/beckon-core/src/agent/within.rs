//! A sub-agent never has more than the agent that spawned it: an agent given few tools, or
//! kept from asking the person, could otherwise spawn one with more and act through it; one on
//! a small budget could hand its work to one with a larger budget.

use super::AgentDefinition;

impl AgentDefinition {
    /// This agent as run by `parent`: only the tools both list, questions only when both may
    /// ask, a question waits no longer than either allows, and each limit is the tighter one.
    pub fn within(&self, parent: &AgentDefinition) -> AgentDefinition {
        let mut narrowed = self.clone();
        narrowed.tools.retain(|tool| parent.tools.contains(tool));
        narrowed.questions &= parent.questions;
        narrowed.question_policy.timeout_ms = match (self.question_policy.timeout_ms, parent.question_policy.timeout_ms)
        {
            (Some(own), Some(parents)) => Some(own.min(parents)),
            (own, parents) => own.or(parents),
        };
        narrowed.limits = self.limits.min(parent.limits);
        narrowed
    }
}

#[cfg(test)]
mod tests {
    use crate::agent::AgentDefinition;

    fn agent(front: &str) -> AgentDefinition {
        AgentDefinition::parse(&format!("---\n{front}\n---\nYou help.\n")).unwrap()
    }

    #[test]
    fn a_sub_agent_keeps_only_what_its_parent_has() {
        let assistant =
            agent("name: assistant\ntools: [read_file, write_file, list_files, spawn_agent]\nquestion_timeout: 2h");
        let reader = agent(
            "name: reader\ntools: [read_file, spawn_agent]\nquestions: false\nquestion_timeout: 15m\nmax_turns: 5\nmax_workspace: 1MB",
        );
        let child = assistant.within(&reader);
        assert_eq!(child.tools, ["read_file", "spawn_agent"]);
        assert!(!child.questions, "a parent that may not ask makes a child that may not ask");
        assert_eq!(child.question_policy.timeout_ms, Some(15 * 60 * 1000), "the shorter wait");
        assert_eq!(child.name, "assistant");
        assert_eq!(child.limits.max_turns, 5, "the smaller budget");
        assert_eq!(child.limits.max_workspace_bytes, 1 << 20);
        assert_eq!(child.limits.max_tool_calls_per_turn, assistant.limits.max_tool_calls_per_turn);

        let open = agent("name: open\ntools: [read_file, write_file, list_files, spawn_agent]");
        let narrowed = reader.within(&open);
        assert_eq!(narrowed.tools, ["read_file", "spawn_agent"], "never more than its own");
        assert!(!narrowed.questions);
        assert_eq!(narrowed.question_policy.timeout_ms, Some(15 * 60 * 1000));
    }
}
