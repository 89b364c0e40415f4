//! The conversation state machine: what a session does next, decided without I/O.
//!
//! `transition(&state, event)` returns the next state and the effects to perform (persist,
//! ask the LLM, run a tool, notify, arm a timer). The runtime's executor performs the
//! effects and feeds what happens back in as events. Ids and times arrive on events, so the
//! machine is deterministic and every path is testable without a clock.

mod effect;
mod event;
mod expiry;
mod message;
mod state;
mod transition;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod transition_tests;

pub use effect::{Effect, Notice, Timer};
pub use event::{Event, ExpiryPolicy};
pub use expiry::{DefaultAnswerProblem, Expired};
pub use message::{ASK_USER_QUESTION, Message, Origin, ToolCall, ToolResult};
pub use state::{SessionStatus, State};
pub use transition::{TransitionError, transition};
