//! A callback: the one to queue, the one waiting for delivery, and where delivery stands.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a callback's body is shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallbackFormat {
    /// Beckon's own JSON event.
    Json,
    /// A Slack incoming-webhook message with blocks.
    Slack,
}

impl CallbackFormat {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Slack => "slack",
        }
    }

    /// Reads the snake_case name.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::Json, Self::Slack].into_iter().find(|f| f.as_str() == text)
    }
}

/// A callback to deliver.
#[derive(Debug, Clone, PartialEq)]
pub struct NewCallback {
    /// A key receivers use to drop repeats; the same change always has the same key.
    pub idempotency_key: String,
    /// The URL to POST to.
    pub target: String,
    /// The body's shape.
    pub format: CallbackFormat,
    /// What happened (`question_pending`, `question_answered`, …).
    pub kind: String,
    /// The event body.
    pub payload: Value,
}

/// A callback waiting for delivery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutboxEntry {
    /// Its row id.
    pub id: i64,
    /// The receiver's deduplication key.
    pub idempotency_key: String,
    /// The URL.
    pub target: String,
    /// The body's shape.
    pub format: CallbackFormat,
    /// What happened.
    pub kind: String,
    /// The event body.
    pub payload: Value,
    /// Deliveries tried so far.
    pub attempts: i64,
    /// When it is due (Unix ms): with `id`, where a page of due callbacks ends.
    pub next_attempt_at_ms: i64,
    /// Created (Unix ms).
    pub created_at_ms: i64,
}

/// Where a callback stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    /// Not delivered yet; will be tried (again).
    Pending,
    /// The receiver accepted it.
    Delivered,
    /// Given up after the last attempt.
    Failed,
}

impl DeliveryState {
    /// Reads the name as stored.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        match text {
            "pending" => Some(Self::Pending),
            "delivered" => Some(Self::Delivered),
            "failed" => Some(Self::Failed),
            _ => None,
        }
    }
}

/// Where a page of due callbacks ends: the last one's `(next_attempt_at_ms, id)`.
pub type DueCursor = (i64, i64);
