//! Agent definitions: Markdown files with YAML front matter, the body being the system prompt.
//!
//! ```text
//! ---
//! name: researcher
//! description: Finds and summarises sources
//! provider: anthropic
//! model: claude-sonnet-4-5
//! tools: [read_file, write_file, spawn_agent]
//! questions: true
//! question_timeout: 2h
//! on_timeout: default
//! default_answer: Use your best judgement
//! callback_url: https://example.com/hooks/beckon
//! max_turns: 50
//! max_tool_calls_per_turn: 16
//! max_workspace: 100MB
//! ---
//! You are a careful researcher…
//! ```

mod duration;
mod limits;
mod parse;
mod size;
mod within;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use duration::parse_duration_ms;
pub use limits::AgentLimits;
pub use parse::AGENT_FILE_MAX_BYTES;
pub use size::parse_size_bytes;

/// The tools an agent may list besides `ask_user_question` (which every agent has unless
/// `questions: false`).
pub const BUILTIN_TOOLS: [&str; 4] = ["read_file", "write_file", "list_files", "spawn_agent"];

/// An agent as its file defines it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentDefinition {
    /// Unique name: lower-case letters, digits, `-` and `_`.
    pub name: String,
    /// One line for pickers.
    pub description: Option<String>,
    /// Which provider runs it; `None` means the app's default.
    pub provider: Option<ProviderKind>,
    /// The model name for the provider.
    pub model: Option<String>,
    /// For the scripted provider: the script file, relative to the agent file.
    pub script: Option<String>,
    /// The tools it may call, from [`BUILTIN_TOOLS`].
    pub tools: Vec<String>,
    /// Whether it may ask the person questions. `false` removes `ask_user_question`, as for
    /// webhook agents that must work from their payload alone.
    pub questions: bool,
    /// What happens to its questions over time.
    pub question_policy: QuestionPolicy,
    /// Where to send signed question callbacks.
    pub callback_url: Option<String>,
    /// What it may spend.
    #[serde(default)]
    pub limits: AgentLimits,
    /// The Markdown body.
    pub system_prompt: String,
}

/// Which LLM provider runs an agent.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// Anthropic's Messages API.
    Anthropic,
    /// An OpenAI-compatible Chat Completions API (OpenAI, Ollama, vLLM, llama.cpp).
    #[serde(rename = "openai")]
    OpenAi,
    /// A deterministic script of assistant turns (offline demo, tests).
    Scripted,
}

impl ProviderKind {
    /// The name used in agent files and settings.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::OpenAi => "openai",
            Self::Scripted => "scripted",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What happens when a question waits too long.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct QuestionPolicy {
    /// How long a question may wait (ms); `None` waits for ever.
    pub timeout_ms: Option<u64>,
    /// What to do when it expires.
    pub on_timeout: OnTimeout,
    /// The answer to use with [`OnTimeout::Default`], read as by `Answer::from_text`.
    pub default_answer: Option<String>,
}

/// What an agent does when its question expires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnTimeout {
    /// The session fails.
    Fail,
    /// The agent goes on as if the person declined.
    #[default]
    Decline,
    /// The agent goes on with its default answer.
    Default,
}

impl OnTimeout {
    /// The name used in agent files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Fail => "fail",
            Self::Decline => "decline",
            Self::Default => "default",
        }
    }
}

/// Why an agent file was refused, with the line to look at.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
pub struct AgentFileError {
    /// The 1-based line of the file the problem is on, when known.
    pub line: Option<usize>,
    /// What is wrong and how to fix it.
    pub message: String,
}
