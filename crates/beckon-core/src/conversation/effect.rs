//! What the executor must do after a transition, in order.
//!
//! Persistence effects of one transition are committed in one transaction before any other
//! effect leaves the process.

use crate::conversation::message::{Message, Origin, ToolCall, ToolResult};
use crate::ids::RequestId;
use crate::outcome::Outcome;
use crate::question::QuestionRequest;

/// One thing to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Save the new state (every transition emits this exactly once).
    PersistState,
    /// Append to the timeline.
    PersistMessages {
        /// The entries, in order.
        messages: Vec<Message>,
    },
    /// Append tool results to the timeline.
    PersistToolResults {
        /// The results, in call order.
        results: Vec<ToolResult>,
    },
    /// Send the conversation so far to the model.
    RequestLlm {
        /// Which attempt this is.
        attempt: u32,
    },
    /// Run a tool call (the executor intercepts `ask_user_question`).
    ExecuteTool {
        /// The call.
        call: ToolCall,
    },
    /// Feed an event back in at a given time.
    ScheduleTimer {
        /// What fires.
        timer: Timer,
        /// When (Unix ms).
        at_ms: i64,
    },
    /// Tell the outside world (events, the person's notifications, callbacks).
    Notify {
        /// What to tell.
        notice: Notice,
    },
}

/// A timer the machine asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Timer {
    /// Retry the LLM request; fires as [`Event::RetryTimerFired`](crate::conversation::Event::RetryTimerFired).
    LlmRetry {
        /// The attempt to make.
        attempt: u32,
    },
    /// A question's deadline; fires as [`Event::QuestionExpired`](crate::conversation::Event::QuestionExpired).
    QuestionExpiry {
        /// The question.
        request_id: RequestId,
    },
}

/// Something the outside world should hear about.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// A question now waits for a person: store it, tell them.
    QuestionPending {
        /// Its id.
        request_id: RequestId,
        /// The call it came from.
        tool_use_id: String,
        /// What is asked.
        request: QuestionRequest,
        /// Who asks (a sub-agent's question names its whole chain).
        origin: Origin,
        /// When it was asked (Unix ms).
        asked_at_ms: i64,
        /// When it expires, if ever.
        expires_at_ms: Option<i64>,
    },
    /// A question was resolved.
    QuestionResolved {
        /// Its id.
        request_id: RequestId,
        /// How.
        outcome: Outcome,
    },
    /// The session continues after a question.
    Resumed {
        /// The question it continues after.
        request_id: RequestId,
    },
    /// The model finished its turn.
    TurnCompleted,
    /// The session failed.
    Failed {
        /// Why.
        reason: String,
    },
    /// The session was cancelled.
    Cancelled,
}
