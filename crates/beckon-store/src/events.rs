//! The `events` table: an append-only log with a gap-free, increasing `seq`.
//!
//! A front end loads a snapshot (which carries the last seq) and then follows the events after
//! it, so a reload, a second window or a reconnecting client never misses or doubles one.

use std::fmt;

use beckon_core::{RequestId, SessionId};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::codec::{JSON_MAX_BYTES, name, parse, raw_from_json, to_raw};
use crate::error::Result;
use crate::event_payload::EventPayload;
use crate::store::Tx;

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

impl StoredEvent {
    /// What it says, read as its kind's type.
    pub fn details(&self) -> Result<EventPayload> {
        EventPayload::read(self.kind, self.payload.get())
    }
}

impl PartialEq for StoredEvent {
    fn eq(&self, other: &Self) -> bool {
        self.seq == other.seq
            && self.kind == other.kind
            && self.session_id == other.session_id
            && self.request_id == other.request_id
            && self.payload.get() == other.payload.get()
            && self.at_ms == other.at_ms
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One committed event.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredEvent {
    /// Its position in the log; every event has the next one.
    pub seq: i64,
    /// What it is about.
    pub kind: EventKind,
    /// The session concerned, if any.
    pub session_id: Option<SessionId>,
    /// The question concerned, if any.
    pub request_id: Option<RequestId>,
    /// Details, by kind, as JSON text (front ends pass it on unparsed).
    pub payload: Box<RawValue>,
    /// When it happened (Unix ms).
    pub at_ms: i64,
}

impl Tx<'_> {
    /// Appends an event; it is published with the commit.
    pub fn append_event(
        &mut self,
        details: &EventPayload,
        session_id: Option<SessionId>,
        request_id: Option<RequestId>,
        at_ms: i64,
    ) -> Result<i64> {
        let kind = details.kind();
        let payload = to_raw("event payload", details, JSON_MAX_BYTES)?;
        self.tx
            .prepare_cached(
                "INSERT INTO events (kind, session_id, request_id, payload, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![
                kind.as_str(),
                session_id.map(|s| s.to_string()),
                request_id.map(|r| r.to_string()),
                payload.get(),
                at_ms
            ])?;
        let seq = self.tx.last_insert_rowid();
        self.events.push(StoredEvent { seq, kind, session_id, request_id, payload, at_ms });
        Ok(seq)
    }
}

fn decode(row: &rusqlite::Row<'_>) -> Result<StoredEvent> {
    Ok(StoredEvent {
        seq: row.get(0)?,
        kind: name("events", "kind", &row.get::<_, String>(1)?, EventKind::parse)?,
        session_id: row.get::<_, Option<String>>(2)?.map(|s| parse("events", "session_id", &s)).transpose()?,
        request_id: row.get::<_, Option<String>>(3)?.map(|r| parse("events", "request_id", &r)).transpose()?,
        payload: raw_from_json("events", "payload", row.get(4)?)?,
        at_ms: row.get(5)?,
    })
}

/// Up to `limit` events after `seq`, oldest first.
pub(crate) fn after(conn: &Connection, seq: i64, limit: usize) -> Result<Vec<StoredEvent>> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, kind, session_id, request_id, payload, created_at FROM events WHERE seq > ?1 ORDER BY seq LIMIT ?2",
    )?;
    let mut rows = stmt.query(params![seq, limit as i64])?;
    let mut events = Vec::new();
    while let Some(row) = rows.next()? {
        events.push(decode(row)?);
    }
    Ok(events)
}

/// The newest event's seq, or 0 for an empty log.
pub(crate) fn last_seq(conn: &Connection) -> Result<i64> {
    let seq: Option<i64> =
        conn.prepare_cached("SELECT max(seq) FROM events")?.query_row([], |row| row.get(0)).optional()?.flatten();
    Ok(seq.unwrap_or(0))
}
