//! Beckon's pure domain.
//!
//! Everything an agent can ask, everything a person can answer, the typed outcome the agent
//! gets back, the conversation state machine that decides what happens next, agent
//! definitions, and the `beckon://` links that lead to questions and sessions. Nothing here
//! reads the clock, the disk or the network: ids and times arrive as arguments, which keeps
//! every rule testable without sleeping or mocking.

pub mod agent;
pub mod answer;
pub mod approval;
pub mod audience;
pub mod conversation;
pub mod error;
pub mod ids;
mod json_reader;
pub mod limits;
pub mod link;
pub mod notice;
pub mod notification;
pub mod outcome;
pub mod problem;
pub mod question;
pub mod rules;
pub mod session;
#[cfg(test)]
mod testing;
mod text;
#[cfg(feature = "ts")]
pub mod ts;

pub use answer::{Answer, Answers, GivenAnswers};
pub use approval::{Approval, PermissionDecision};
pub use audience::{Addressees, Audience};
pub use error::{Error, Result};
pub use ids::{RequestId, SessionId};
pub use json_reader::type_name as json_type_name;
pub use link::{Link, LinkError};
pub use notice::Notice;
pub use outcome::{Outcome, OutcomeKind, ToolResultText, render_tool_result};
pub use problem::{Problem, Problems};
pub use question::{
    ChoiceQuestion, FieldSchema, FreeFormQuestion, InboxLine, QuestionItem, QuestionKind, QuestionOption,
    QuestionRequest,
};
pub use rules::{Matcher, OFFER_AFTER, RuleSpec, destructive};
pub use session::{AnsweredVia, Answerer, SessionOrigin, SignedInPerson};
pub use text::{check_name, is_bidi_control, is_bidi_mark};
