//! The pieces of a conversation's timeline.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ids::RequestId;
use crate::outcome::Outcome;
use crate::question::QuestionRequest;

/// The tool the executor intercepts: it stops the session until a person answers.
pub const ASK_USER_QUESTION: &str = "ask_user_question";

/// One tool call the model made.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's `tool_use_id`: unique within a session, not across them.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, as the model gave them.
    pub input: Value,
}

/// The result of one tool call, given back to the model.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The call it answers.
    pub tool_use_id: String,
    /// What the model reads.
    pub content: String,
    /// True when the tool failed or did not run.
    pub is_error: bool,
}

impl ToolResult {
    /// A successful result.
    pub fn ok(tool_use_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self { tool_use_id: tool_use_id.into(), content: content.into(), is_error: false }
    }

    /// A failed or skipped call.
    pub fn error(tool_use_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self { tool_use_id: tool_use_id.into(), content: content.into(), is_error: true }
    }
}

/// Who is asking: the chain of agents from the session a person (or trigger) started down to
/// the sub-agent that asks, shown as "research › summariser asks".
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Origin(Vec<String>);

impl Origin {
    /// An agent asking on its own behalf.
    pub fn agent(name: impl Into<String>) -> Self {
        Self(vec![name.into()])
    }

    /// This origin with a sub-agent appended.
    pub fn child(&self, name: impl Into<String>) -> Self {
        let mut path = self.0.clone();
        path.push(name.into());
        Self(path)
    }

    /// The agent names, outermost first.
    pub fn path(&self) -> &[String] {
        &self.0
    }

    /// The agent that asks (the innermost one).
    pub fn asker(&self) -> &str {
        self.0.last().map(String::as_str).unwrap_or_default()
    }

    /// True for a sub-agent's question.
    pub fn is_subagent(&self) -> bool {
        self.0.len() > 1
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join(" › "))
    }
}

/// One entry of a session's timeline.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Message {
    /// What the person (or a webhook payload) said.
    User {
        /// The text.
        text: String,
    },
    /// What the model said.
    Assistant {
        /// The text.
        text: String,
    },
    /// A tool call the model made.
    ToolUse {
        /// The call.
        #[serde(flatten)]
        call: ToolCall,
    },
    /// The result of a tool call.
    ToolResult {
        /// The result.
        #[serde(flatten)]
        result: ToolResult,
    },
    /// A question put to the person (written with the question itself).
    Question {
        /// The question's id.
        request_id: RequestId,
        /// The `ask_user_question` call it came from.
        tool_use_id: String,
        /// Who asks.
        origin: Origin,
        /// What was asked.
        #[cfg_attr(feature = "ts", ts(as = "crate::ts::QuestionRequestShape"))]
        request: QuestionRequest,
    },
    /// How a question was resolved (written with the resolution itself).
    Answer {
        /// The question's id.
        request_id: RequestId,
        /// The resolution.
        outcome: Outcome,
    },
}
