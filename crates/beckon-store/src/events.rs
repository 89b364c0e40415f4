//! The `events` table: an append-only log with a gap-free, increasing `seq`.
//!
//! A front end loads a snapshot (which carries the last seq) and then follows the events after
//! it, so a reload, a second window or a reconnecting client never misses or doubles one.

use beckon_core::{RequestId, SessionId};
use rusqlite::{Connection, OptionalExtension, params};

use crate::codec::{JSON_MAX_BYTES, name, parse, raw_from_json, to_raw};
use crate::error::Result;
use crate::event_payload::EventPayload;
use crate::rows::{EventKind, StoredEvent};
use crate::store::Tx;

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
