//! What deciding questions gives back: one question's receipt, and a batch's decision and
//! receipt.

use beckon_core::RequestId;
use serde::{Deserialize, Serialize};

use crate::error_body::ErrorBody;
use crate::questions::ResolvedQuestion;

/// The result of resolving a question.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerReceipt {
    /// The question as resolved.
    pub question: ResolvedQuestion,
    /// True when it had already been resolved exactly this way (an idempotent repeat).
    pub repeat: bool,
}

/// What a batch does with each of its questions.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum BatchDecision {
    /// Denies approvals, as "Deny" in the window does, with `message` as what the model is
    /// told (a default sentence when `None`); other questions in the batch are declined with it.
    Deny {
        /// What the model is told.
        #[serde(default)]
        message: Option<String>,
    },
    /// Declines each question; an approval declined is left to the agent's own prompt.
    Decline {
        /// Why, for the agent.
        #[serde(default)]
        reason: Option<String>,
    },
    /// Allows approvals once each; a person's decision only, never a script's.
    AllowOnce,
}

/// A question a batch could not decide, and why.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchFailure {
    /// The question.
    pub request_id: RequestId,
    /// Why it was not decided (for `already_resolved`, the winner).
    pub error: ErrorBody,
}

/// What a batch did.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BatchReceipt {
    /// The questions decided (or already decided exactly so), as they now stand.
    pub resolved: Vec<ResolvedQuestion>,
    /// The questions not decided.
    pub failed: Vec<BatchFailure>,
}
