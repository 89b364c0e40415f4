//! The states a conversation can be in.

use std::collections::HashSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::conversation::message::ToolCall;
use crate::ids::RequestId;
use crate::limits::MAX_LLM_ATTEMPTS;
use crate::question::QuestionRequest;

/// Where a conversation is. States carry the data they need; nothing else is remembered.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum State {
    /// Created, nothing said yet.
    Idle,
    /// Waiting for the model's reply (attempt 1 is the first try).
    LlmRequesting {
        /// Which attempt is in flight.
        attempt: u32,
    },
    /// A retryable LLM error happened; the next attempt waits for its timer.
    LlmBackoff {
        /// The attempt to make when the timer fires.
        attempt: u32,
        /// When to make it (Unix ms).
        retry_at_ms: i64,
        /// What went wrong last time, for display.
        last_error: String,
    },
    /// Running the tool calls of one model turn, in order.
    ToolExecuting {
        /// The call running now.
        current: ToolCall,
        /// The calls still to run after it.
        remaining: Vec<ToolCall>,
        /// The `tool_use_id`s of this turn whose results are already persisted.
        persisted: Vec<String>,
    },
    /// Stopped: an `ask_user_question` call waits for a person. Nothing runs or polls.
    AwaitingUserResponse {
        /// The question's id; only a resolution naming it resumes the session.
        request_id: RequestId,
        /// The call the answer becomes the result of.
        tool_use_id: String,
        /// What was asked (rendering the answer needs it).
        #[cfg_attr(feature = "ts", ts(as = "crate::ts::QuestionRequestShape"))]
        questions: QuestionRequest,
        /// The calls of the same turn to run after the answer.
        remaining: Vec<ToolCall>,
        /// The `tool_use_id`s of this turn whose results are already persisted.
        persisted: Vec<String>,
    },
    /// The model finished its turn; the person may say more.
    Completed,
    /// The session could not go on.
    Failed {
        /// Why, in a sentence a person can act on.
        reason: String,
    },
    /// The session was cancelled; it takes no more events.
    Cancelled,
}

/// A session's status as front ends show it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    /// The agent is working (asking the model or running tools).
    Running,
    /// A question waits for a person.
    WaitingForInput,
    /// The turn finished; the person may continue the conversation.
    Completed,
    /// The session failed.
    Failed,
    /// The session was cancelled.
    Cancelled,
}

impl SessionStatus {
    /// Every status.
    pub const ALL: [SessionStatus; 5] =
        [Self::Running, Self::WaitingForInput, Self::Completed, Self::Failed, Self::Cancelled];

    /// The snake_case name, as stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::WaitingForInput => "waiting_for_input",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// Reads the snake_case name.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

impl fmt::Display for SessionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl State {
    /// The status front ends show for this state. A new session counts as completed: it is
    /// ready for a message, just like one whose turn finished.
    pub fn status(&self) -> SessionStatus {
        match self {
            Self::Idle | Self::Completed => SessionStatus::Completed,
            Self::LlmRequesting { .. } | Self::LlmBackoff { .. } | Self::ToolExecuting { .. } => SessionStatus::Running,
            Self::AwaitingUserResponse { .. } => SessionStatus::WaitingForInput,
            Self::Failed { .. } => SessionStatus::Failed,
            Self::Cancelled => SessionStatus::Cancelled,
        }
    }

    /// The state's name, for errors and logs.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Idle => "idle",
            Self::LlmRequesting { .. } => "llm_requesting",
            Self::LlmBackoff { .. } => "llm_backoff",
            Self::ToolExecuting { .. } => "tool_executing",
            Self::AwaitingUserResponse { .. } => "awaiting_user_response",
            Self::Completed => "completed",
            Self::Failed { .. } => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// The question this state waits on, if any.
    pub fn awaited_request(&self) -> Option<RequestId> {
        match self {
            Self::AwaitingUserResponse { request_id, .. } => Some(*request_id),
            _ => None,
        }
    }

    /// Checks what the types cannot express: attempts within bounds and every tool call of
    /// the turn accounted for once. `transition` only ever returns states that pass.
    pub fn check_invariants(&self) -> Result<(), String> {
        let distinct = |ids: Vec<&str>| {
            let mut seen = HashSet::new();
            match ids.into_iter().find(|id| !seen.insert(*id)) {
                Some(id) => Err(format!("tool_use_id {id} appears twice in one turn")),
                None => Ok(()),
            }
        };
        match self {
            Self::LlmRequesting { attempt } | Self::LlmBackoff { attempt, .. } => {
                if (1..=MAX_LLM_ATTEMPTS).contains(attempt) {
                    Ok(())
                } else {
                    Err(format!("attempt {attempt} is outside 1..={MAX_LLM_ATTEMPTS}"))
                }
            }
            Self::ToolExecuting { current, remaining, persisted } => distinct(
                std::iter::once(current.id.as_str())
                    .chain(remaining.iter().map(|c| c.id.as_str()))
                    .chain(persisted.iter().map(String::as_str))
                    .collect(),
            ),
            Self::AwaitingUserResponse { tool_use_id, remaining, persisted, .. } => distinct(
                std::iter::once(tool_use_id.as_str())
                    .chain(remaining.iter().map(|c| c.id.as_str()))
                    .chain(persisted.iter().map(String::as_str))
                    .collect(),
            ),
            Self::Idle | Self::Completed | Self::Failed { .. } | Self::Cancelled => Ok(()),
        }
    }
}
