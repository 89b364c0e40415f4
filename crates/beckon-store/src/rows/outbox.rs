//! A callback: the one to queue, the one waiting for delivery, and where delivery stands.

use beckon_core::OutcomeKind;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a callback tells of: a question now waiting, or how it ended. Sent as its name
/// (`question_pending`, `question_answered`, …) in the `Beckon-Event` header and the body's
/// `event`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallbackKind {
    /// The question waits for a person.
    Pending,
    /// The question ended so.
    Resolved(OutcomeKind),
}

impl CallbackKind {
    /// The name, as sent and stored.
    pub fn name(self) -> String {
        match self {
            Self::Pending => "question_pending".to_owned(),
            Self::Resolved(outcome) => format!("question_{}", outcome.as_str()),
        }
    }

    /// Reads the name as stored.
    pub fn parse(text: &str) -> Option<Self> {
        match text.strip_prefix("question_")? {
            "pending" => Some(Self::Pending),
            outcome => OutcomeKind::parse(outcome).map(Self::Resolved),
        }
    }
}

impl Serialize for CallbackKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for CallbackKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text).ok_or_else(|| serde::de::Error::custom(format!("no callback is of kind {text:?}")))
    }
}

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
    /// What happened.
    pub kind: CallbackKind,
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
    pub kind: CallbackKind,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_callbacks_kind_reads_back_from_its_name() {
        let kinds = [
            CallbackKind::Pending,
            CallbackKind::Resolved(OutcomeKind::Answered),
            CallbackKind::Resolved(OutcomeKind::Cancelled),
        ];
        for kind in kinds {
            assert_eq!(CallbackKind::parse(&kind.name()), Some(kind));
        }
        assert_eq!(CallbackKind::Resolved(OutcomeKind::Expired).name(), "question_expired");
        for unknown in ["pending", "question_", "question_eaten", ""] {
            assert_eq!(CallbackKind::parse(unknown), None, "{unknown}");
        }
    }
}
