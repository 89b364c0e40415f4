//! What can happen to a conversation. Ids and times are made by the caller and arrive here.

use serde::{Deserialize, Serialize};

use crate::answer::Answers;
use crate::conversation::message::{Origin, ToolCall, ToolResult};
use crate::ids::RequestId;
use crate::question::QuestionRequest;

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The person sent a message (starting or continuing the conversation).
    UserMessage {
        /// What they said.
        text: String,
    },
    /// The model replied.
    LlmResponse {
        /// Its text (may be empty).
        text: String,
        /// Its tool calls, in order.
        tool_calls: Vec<ToolCall>,
    },
    /// The LLM request failed.
    LlmError {
        /// What went wrong, readable by a person.
        message: String,
        /// Whether trying again may help (rate limit, server error, connection).
        retryable: bool,
        /// How long the server asked us to wait, if it said.
        retry_after_ms: Option<u64>,
        /// When the error happened (Unix ms).
        at_ms: i64,
    },
    /// The backoff timer for an LLM retry fired.
    RetryTimerFired {
        /// The attempt the timer was armed for.
        attempt: u32,
    },
    /// A tool finished (or was refused: an invalid `ask_user_question` input ends here too).
    ToolComplete {
        /// Its result.
        result: ToolResult,
    },
    /// An `ask_user_question` call was valid and its question is ready to be put to a person.
    AskUserQuestionPending {
        /// The id made for this question.
        request_id: RequestId,
        /// The call it came from.
        tool_use_id: String,
        /// What to ask.
        request: QuestionRequest,
        /// Who asks.
        origin: Origin,
        /// When it was asked (Unix ms).
        asked_at_ms: i64,
        /// When it expires (Unix ms), if the agent has a question timeout.
        expires_at_ms: Option<i64>,
    },
    /// The person answered.
    UserAnswered {
        /// The question answered.
        request_id: RequestId,
        /// One answer per question.
        answers: Answers,
    },
    /// The person chose not to answer.
    UserDeclined {
        /// The question declined.
        request_id: RequestId,
        /// Why, if they said.
        reason: Option<String>,
    },
    /// A question's deadline passed.
    QuestionExpired {
        /// The question that expired.
        request_id: RequestId,
        /// What the agent's policy says to do.
        policy: ExpiryPolicy,
    },
    /// The person cancelled the session.
    UserCancel {
        /// Why, if they said.
        reason: Option<String>,
    },
}

/// What to do when a question expires (an agent's `on_timeout`, resolved for one question).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "policy", rename_all = "snake_case")]
pub enum ExpiryPolicy {
    /// Fail the session.
    Fail,
    /// Go on as if the person declined.
    Decline,
    /// Go on with the agent's default answer.
    UseDefault {
        /// The default, as answers to this request.
        answers: Answers,
    },
}

impl Event {
    /// The event's name, for errors and logs.
    pub fn name(&self) -> &'static str {
        match self {
            Self::UserMessage { .. } => "user_message",
            Self::LlmResponse { .. } => "llm_response",
            Self::LlmError { .. } => "llm_error",
            Self::RetryTimerFired { .. } => "retry_timer_fired",
            Self::ToolComplete { .. } => "tool_complete",
            Self::AskUserQuestionPending { .. } => "ask_user_question_pending",
            Self::UserAnswered { .. } => "user_answered",
            Self::UserDeclined { .. } => "user_declined",
            Self::QuestionExpired { .. } => "question_expired",
            Self::UserCancel { .. } => "user_cancel",
        }
    }
}
