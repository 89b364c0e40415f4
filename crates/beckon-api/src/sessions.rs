//! An agent session as front ends receive it: as stored, in lists, and how lists are paged.

use beckon_core::conversation::{SessionStatus, State};
use beckon_core::{SessionId, SessionOrigin};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::questions::QuestionRecord;
use crate::timeline::TimelineEntry;

/// A session as stored.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// Its id.
    pub id: SessionId,
    /// The agent.
    pub agent: String,
    /// How it came to exist.
    pub origin: SessionOrigin,
    /// The session that spawned it.
    pub parent: Option<SessionId>,
    /// The external grouping key.
    pub external_key: Option<String>,
    /// A short title.
    pub title: String,
    /// Its status.
    pub status: SessionStatus,
    /// Its conversation state.
    pub state: State,
    /// The webhook payload.
    pub payload: Option<Value>,
    /// Created (Unix ms).
    pub created_at_ms: i64,
    /// Last changed (Unix ms).
    pub updated_at_ms: i64,
}

/// A session in a list: no state or payload.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    /// Its id.
    pub id: SessionId,
    /// The agent.
    pub agent: String,
    /// How it came to exist.
    pub origin: SessionOrigin,
    /// The session that spawned it.
    pub parent: Option<SessionId>,
    /// A short title.
    pub title: String,
    /// Its status.
    pub status: SessionStatus,
    /// Created (Unix ms).
    pub created_at_ms: i64,
    /// Last changed (Unix ms).
    pub updated_at_ms: i64,
}

/// Where a page of sessions continues: after this (created_at, id).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionCursor {
    /// The last listed session's creation time.
    pub created_at_ms: i64,
    /// The last listed session's id.
    pub id: SessionId,
}

/// One page of sessions.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionPage {
    /// The sessions.
    pub sessions: Vec<SessionSummary>,
    /// Where the next page starts, if there is one.
    pub next: Option<SessionCursor>,
}

/// A session with everything a front end shows of it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionView {
    /// The session.
    pub session: SessionRecord,
    /// Its timeline, in order.
    pub timeline: Vec<TimelineEntry>,
    /// The question it waits on, if any.
    pub pending: Option<QuestionRecord>,
    /// Every question it asked, oldest first.
    pub questions: Vec<QuestionRecord>,
}
