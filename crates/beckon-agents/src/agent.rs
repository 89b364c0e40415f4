//! The agents Beckon connects to, by the names `beckon setup` and `beckon hook` take.

/// An agent CLI Beckon connects to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Agent {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
    /// GitHub Copilot CLI.
    Copilot,
    /// OpenCode.
    OpenCode,
    /// Google's Gemini CLI.
    Gemini,
}

/// The names the agents give themselves as MCP clients, as their releases Beckon is tested
/// against send them.
const MCP_CLIENTS: [(&str, Agent); 5] = [
    ("claude-code", Agent::ClaudeCode),
    ("codex-mcp-client", Agent::Codex),
    ("copilot-cli", Agent::Copilot),
    ("opencode", Agent::OpenCode),
    ("gemini-cli-mcp-client", Agent::Gemini),
];

/// How far an agent lets Beckon answer its permission prompts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approvals {
    /// A prompt reaches Beckon as an approval; allowing or denying there decides.
    Answered,
    /// The agent lets no outside program approve: a prompt reaches Beckon as a notice naming
    /// the command, and is answered in the agent's own terminal.
    NoticesOnly,
}

impl Agent {
    /// Every agent, in the order Settings lists them.
    pub const ALL: [Agent; 5] = [Agent::ClaudeCode, Agent::Codex, Agent::Copilot, Agent::OpenCode, Agent::Gemini];

    /// The name `beckon setup` and `beckon hook` take, and the inbox shows as who asks.
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Copilot => "copilot",
            Agent::OpenCode => "opencode",
            Agent::Gemini => "gemini",
        }
    }

    /// The agent by its [`name`](Agent::name).
    pub fn from_name(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|agent| agent.name() == name)
    }

    /// The agent that names itself `client` when it connects to an MCP server (the `name` of
    /// its `clientInfo`), so that its questions over MCP carry the name its hooks give.
    pub fn from_mcp_client(client: &str) -> Option<Agent> {
        MCP_CLIENTS.iter().find(|(name, _)| *name == client).map(|(_, agent)| *agent)
    }

    /// The name people know it by.
    pub fn title(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex CLI",
            Agent::Copilot => "Copilot CLI",
            Agent::OpenCode => "OpenCode",
            Agent::Gemini => "Gemini CLI",
        }
    }

    /// The command it is started with (how Beckon tells whether it is installed).
    pub fn program(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude",
            Agent::Codex => "codex",
            Agent::Copilot => "copilot",
            Agent::OpenCode => "opencode",
            Agent::Gemini => "gemini",
        }
    }

    /// How far Beckon answers its permission prompts.
    pub fn approvals(self) -> Approvals {
        match self {
            Agent::Gemini => Approvals::NoticesOnly,
            Agent::ClaudeCode | Agent::Codex | Agent::Copilot | Agent::OpenCode => Approvals::Answered,
        }
    }

    /// What Beckon cannot do for this agent, in words for Settings and the README; `None` when
    /// every prompt it shows can be answered from Beckon.
    pub fn limits(self) -> Option<&'static str> {
        match self.approvals() {
            Approvals::NoticesOnly => Some(
                "Gemini CLI lets no outside program approve a tool call: its permission prompts arrive in Beckon as notices naming the command, and are answered in Gemini's terminal. Its questions to you through Beckon's ask_user_question work as for any agent.",
            ),
            Approvals::Answered => None,
        }
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_is_found_by_its_name_and_names_are_distinct() {
        for agent in Agent::ALL {
            assert_eq!(Agent::from_name(agent.name()), Some(agent));
        }
        let mut names: Vec<_> = Agent::ALL.iter().map(|a| a.name()).collect();
        names.dedup();
        assert_eq!(names.len(), Agent::ALL.len());
        assert_eq!(Agent::from_name("claude"), None);
    }

    #[test]
    fn every_agent_is_known_by_its_mcp_client_name() {
        for agent in Agent::ALL {
            assert_eq!(MCP_CLIENTS.iter().filter(|(_, named)| *named == agent).count(), 1, "{agent}");
        }
        assert_eq!(Agent::from_mcp_client("codex-mcp-client"), Some(Agent::Codex));
        assert_eq!(Agent::from_mcp_client("gemini-cli-mcp-client"), Some(Agent::Gemini));
        assert_eq!(Agent::from_mcp_client("Codex-MCP-Client"), None);
        assert_eq!(Agent::from_mcp_client("my-script"), None);
    }
}
