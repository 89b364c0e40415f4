//! What front ends receive: errors as `{kind, message, field?}` and events as typed, self-
//! contained values (the same for the window, HTTP and MCP).

use beckon_api::{EventKind, PendingQuestion, QuestionRecord, QuestionStatus, TimelineEntry};
use beckon_core::conversation::{Origin, SessionStatus};
use beckon_core::{AnsweredVia, Outcome, RequestId, SessionId, SessionOrigin};
use beckon_store::{EventPayload, StoredEvent};
use serde::{Deserialize, Serialize};

mod error_body;
mod tokens;

pub use beckon_api::{CreatedToken, ErrorBody, ErrorKind, TokenKind, TokenView, window};
pub(crate) use tokens::token_view;

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

    /// Reads a stored event; `None` for one that is unreadable (logged) or lacks its ids.
    pub fn from_stored(event: &StoredEvent) -> Option<LiveEvent> {
        let read = || -> Result<LiveEvent, String> {
            let (seq, at_ms) = (event.seq, event.at_ms);
            let session_id = event.session_id.ok_or("no session")?;
            let request_id = || event.request_id.ok_or("no request");
            Ok(match event.details().map_err(|e| e.to_string())? {
                EventPayload::SessionStarted(started) => LiveEvent::SessionStarted {
                    seq,
                    session_id,
                    agent: started.agent,
                    origin: started.origin,
                    parent: started.parent,
                    title: started.title,
                    status: started.status,
                    at_ms,
                },
                EventPayload::SessionStatus(changed) => {
                    LiveEvent::SessionStatus { seq, session_id, status: changed.status, reason: changed.reason, at_ms }
                }
                EventPayload::MessageAppended(appended) => LiveEvent::MessageAppended {
                    seq,
                    session_id,
                    entry: appended.entry(at_ms).map_err(|e| e.to_string())?,
                },
                EventPayload::QuestionPending(question) => LiveEvent::QuestionPending { seq, question },
                EventPayload::QuestionResolved(resolved) => LiveEvent::QuestionResolved {
                    seq,
                    session_id,
                    request_id: request_id()?,
                    status: resolved.status,
                    outcome: resolved.outcome().map_err(|e| e.to_string())?,
                    answered_via: resolved.answered_via,
                    at_ms,
                    question: resolved.question().map_err(|e| e.to_string())?.map(Box::new),
                },
                EventPayload::SessionResumed(_) => {
                    LiveEvent::SessionResumed { seq, session_id, request_id: request_id()? }
                }
                EventPayload::SessionDeleted(_) => LiveEvent::SessionDeleted { seq, session_id },
            })
        };
        read().map_err(|err| tracing::warn!(seq = event.seq, kind = %event.kind, %err, "unreadable event")).ok()
    }
}

/// Who asks, as front ends label it: "research › summariser asks".
pub fn asks_label(origin: &Origin) -> String {
    format!("{origin} asks")
}
