//! What each event says, as one type per kind: every writer builds these and every reader
//! reads them back as the same types, so a field renamed on one side is renamed on the other.
//! Stored as the inner object (`{status, reason?}`, …), which is also what front ends receive.

use beckon_core::conversation::SessionStatus;
use beckon_core::{AnsweredVia, Outcome, SessionId, SessionOrigin};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::codec::from_json;
use crate::error::Result;
use crate::rows::{EventKind, PendingQuestion, QuestionRecord, QuestionStatus, StoredEvent, TimelineEntry};

/// A session was created.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionStarted {
    /// Its agent.
    pub agent: String,
    /// How it came to exist.
    pub origin: SessionOrigin,
    /// The session that spawned it.
    pub parent: Option<SessionId>,
    /// Its title.
    pub title: String,
    /// Its status.
    pub status: SessionStatus,
}

/// A session's status changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusChanged {
    /// The new status.
    pub status: SessionStatus,
    /// Why it failed or was cancelled, when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// An entry was added to a session's timeline; the message as stored in the timeline.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Appended {
    /// Its place in the timeline, from 1.
    pub position: i64,
    /// The entry, as JSON text.
    pub message: Box<RawValue>,
}

impl Appended {
    /// The entry, read, at `at_ms`.
    pub fn entry(&self, at_ms: i64) -> Result<TimelineEntry> {
        Ok(TimelineEntry {
            position: self.position,
            message: from_json("events", "payload", self.message.get())?,
            at_ms,
        })
    }
}

/// A question was resolved.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QuestionResolved {
    /// How it ended.
    pub status: QuestionStatus,
    /// The resolution, as JSON text.
    pub outcome: Box<RawValue>,
    /// Where the person acted from.
    pub answered_via: Option<AnsweredVia>,
    /// The whole question as resolved, as JSON text (absent from events written before it was
    /// kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<Box<RawValue>>,
}

impl QuestionResolved {
    /// The resolution, read.
    pub fn outcome(&self) -> Result<Outcome> {
        from_json("events", "payload", self.outcome.get())
    }

    /// The whole question as resolved, read; `None` for an event written before it was kept.
    pub fn question(&self) -> Result<Option<QuestionRecord>> {
        self.question.as_ref().map(|question| from_json("events", "payload", question.get())).transpose()
    }
}

/// An event that says nothing beyond its kind and ids (`{}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NoDetails {}

/// What an event says, by kind.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum EventPayload {
    /// `session_started`.
    SessionStarted(SessionStarted),
    /// `session_status`.
    SessionStatus(StatusChanged),
    /// `message_appended`.
    MessageAppended(Appended),
    /// `question_pending`: the pending question.
    QuestionPending(PendingQuestion),
    /// `question_resolved`.
    QuestionResolved(QuestionResolved),
    /// `session_resumed`.
    SessionResumed(NoDetails),
    /// `session_deleted`.
    SessionDeleted(NoDetails),
}

impl EventPayload {
    /// The kind it is stored under.
    pub fn kind(&self) -> EventKind {
        match self {
            Self::SessionStarted(_) => EventKind::SessionStarted,
            Self::SessionStatus(_) => EventKind::SessionStatus,
            Self::MessageAppended(_) => EventKind::MessageAppended,
            Self::QuestionPending(_) => EventKind::QuestionPending,
            Self::QuestionResolved(_) => EventKind::QuestionResolved,
            Self::SessionResumed(_) => EventKind::SessionResumed,
            Self::SessionDeleted(_) => EventKind::SessionDeleted,
        }
    }

    /// Reads a payload of `kind` stored as `json`.
    pub fn read(kind: EventKind, json: &str) -> Result<EventPayload> {
        let field = "payload";
        Ok(match kind {
            EventKind::SessionStarted => Self::SessionStarted(from_json("events", field, json)?),
            EventKind::SessionStatus => Self::SessionStatus(from_json("events", field, json)?),
            EventKind::MessageAppended => Self::MessageAppended(from_json("events", field, json)?),
            EventKind::QuestionPending => Self::QuestionPending(from_json("events", field, json)?),
            EventKind::QuestionResolved => Self::QuestionResolved(from_json("events", field, json)?),
            EventKind::SessionResumed => Self::SessionResumed(from_json("events", field, json)?),
            EventKind::SessionDeleted => Self::SessionDeleted(from_json("events", field, json)?),
        })
    }
}

impl StoredEvent {
    /// What it says, read as its kind's type.
    pub fn details(&self) -> Result<EventPayload> {
        EventPayload::read(self.kind, self.payload.get())
    }
}
