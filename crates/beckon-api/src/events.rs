//! The kinds of event there are in the log front ends follow.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What an event is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A session was created. Payload: the session summary.
    SessionStarted,
    /// A session's status changed. Payload: `{status, reason?}`.
    SessionStatus,
    /// An entry was added to a session's timeline. Payload: `{position, message}`.
    MessageAppended,
    /// A question now waits for a person. Payload: the pending question.
    QuestionPending,
    /// A question was resolved. Payload: `{status, outcome, answered_via}`.
    QuestionResolved,
    /// A session continued after a question. Payload: `{}`.
    SessionResumed,
    /// A finished session was removed by retention. Payload: `{}`.
    SessionDeleted,
}

impl EventKind {
    const ALL: [EventKind; 7] = [
        Self::SessionStarted,
        Self::SessionStatus,
        Self::MessageAppended,
        Self::QuestionPending,
        Self::QuestionResolved,
        Self::SessionResumed,
        Self::SessionDeleted,
    ];

    /// The snake_case name, as stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SessionStarted => "session_started",
            Self::SessionStatus => "session_status",
            Self::MessageAppended => "message_appended",
            Self::QuestionPending => "question_pending",
            Self::QuestionResolved => "question_resolved",
            Self::SessionResumed => "session_resumed",
            Self::SessionDeleted => "session_deleted",
        }
    }

    /// Reads the snake_case name.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
