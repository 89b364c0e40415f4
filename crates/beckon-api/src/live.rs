//! A committed change as front ends receive it: typed, self-contained, each with its `seq`.

use beckon_core::conversation::SessionStatus;
use beckon_core::{AnsweredVia, Outcome, RequestId, SessionId, SessionOrigin};
use serde::{Deserialize, Serialize};

use crate::events::EventKind;
use crate::questions::{PendingQuestion, QuestionRecord, QuestionStatus};
use crate::timeline::TimelineEntry;

/// A committed change, typed for front ends. Every variant carries its `seq`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LiveEvent {
    /// A session was created.
    SessionStarted {
        /// The event's seq.
        seq: i64,
        /// The session.
        session_id: SessionId,
        /// Its agent.
        agent: String,
        /// How it came to exist.
        origin: SessionOrigin,
        /// The session that spawned it.
        parent: Option<SessionId>,
        /// Its title.
        title: String,
        /// Its status.
        status: SessionStatus,
        /// When (Unix ms).
        at_ms: i64,
    },
    /// A session's status changed.
    SessionStatus {
        /// The event's seq.
        seq: i64,
        /// The session.
        session_id: SessionId,
        /// The new status.
        status: SessionStatus,
        /// Why it failed, when it did.
        reason: Option<String>,
        /// When (Unix ms).
        at_ms: i64,
    },
    /// An entry was added to a session's timeline.
    MessageAppended {
        /// The event's seq.
        seq: i64,
        /// The session.
        session_id: SessionId,
        /// The entry.
        entry: TimelineEntry,
    },
    /// A question now waits for a person.
    QuestionPending {
        /// The event's seq.
        seq: i64,
        /// The question.
        question: PendingQuestion,
    },
    /// A question was resolved.
    QuestionResolved {
        /// The event's seq.
        seq: i64,
        /// The session.
        session_id: SessionId,
        /// The question.
        request_id: RequestId,
        /// How it ended.
        status: QuestionStatus,
        /// The resolution.
        outcome: Outcome,
        /// Where the person acted from.
        answered_via: Option<AnsweredVia>,
        /// When (Unix ms).
        at_ms: i64,
        /// The whole question as resolved, so a front end need not have seen it asked (absent
        /// from events written before Beckon kept it).
        question: Option<Box<QuestionRecord>>,
    },
    /// A session continued after a question.
    SessionResumed {
        /// The event's seq.
        seq: i64,
        /// The session.
        session_id: SessionId,
        /// The question it continued after.
        request_id: RequestId,
    },
    /// A finished session was removed by retention.
    SessionDeleted {
        /// The event's seq.
        seq: i64,
        /// The session.
        session_id: SessionId,
    },
}

impl LiveEvent {
    /// The event's kind, as it is named on the wire (`kind`) and in the store.
    pub fn kind(&self) -> EventKind {
        match self {
            Self::SessionStarted { .. } => EventKind::SessionStarted,
            Self::SessionStatus { .. } => EventKind::SessionStatus,
            Self::MessageAppended { .. } => EventKind::MessageAppended,
            Self::QuestionPending { .. } => EventKind::QuestionPending,
            Self::QuestionResolved { .. } => EventKind::QuestionResolved,
            Self::SessionResumed { .. } => EventKind::SessionResumed,
            Self::SessionDeleted { .. } => EventKind::SessionDeleted,
        }
    }

    /// The session the event concerns.
    pub fn session_id(&self) -> SessionId {
        match self {
            Self::QuestionPending { question, .. } => question.session_id,
            Self::SessionStarted { session_id, .. }
            | Self::SessionStatus { session_id, .. }
            | Self::MessageAppended { session_id, .. }
            | Self::QuestionResolved { session_id, .. }
            | Self::SessionResumed { session_id, .. }
            | Self::SessionDeleted { session_id, .. } => *session_id,
        }
    }

    /// The event's seq.
    pub fn seq(&self) -> i64 {
        match self {
            Self::SessionStarted { seq, .. }
            | Self::SessionStatus { seq, .. }
            | Self::MessageAppended { seq, .. }
            | Self::QuestionPending { seq, .. }
            | Self::QuestionResolved { seq, .. }
            | Self::SessionResumed { seq, .. }
            | Self::SessionDeleted { seq, .. } => *seq,
        }
    }
}
