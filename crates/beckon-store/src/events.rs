//! The `events` table: an append-only log with a gap-free, increasing `seq`.
//!
//! A front end loads a snapshot (which carries the last seq) and then follows the events after
//! it, so a reload, a second window or a reconnecting client never misses or doubles one.
//!
//! On SQLite one writer at a time makes `seq` commit-ordered by itself. On PostgreSQL several
//! replicas write at once, and a `bigserial` is not enough: two transactions take 7 and 8, the
//! one with 8 commits first, a reader sees 8 and moves past, and 7 — committed a moment later —
//! is never read. There a transaction takes its numbers from one counter row (`event_seq`),
//! which stays locked until it commits or rolls back; any other writer waits at its first
//! event, so numbers are handed out in commit order and a rollback gives its numbers back. The
//! cost is that transactions writing events commit one at a time from their first event on.
//! To keep that wait short, a transaction's events are written together just before it commits
//! (their numbers are known from then on). Each such transaction also notifies
//! [`EVENTS_CHANNEL`](crate::EVENTS_CHANNEL) with its last `seq` (delivered at commit, dropped at
//! rollback), so replicas listening learn of new events without polling.

use beckon_core::{RequestId, SessionId};

use crate::codec::{JSON_MAX_BYTES, name, parse, raw_from_json, to_raw};
use crate::error::Result;
use crate::event_payload::EventPayload;
use crate::rows::{EventKind, StoredEvent};
use crate::sql::{Conn, Row, args};
use crate::store::Tx;

impl Tx<'_> {
    /// Appends an event; it is published with the commit.
    pub fn append_event(
        &mut self,
        details: &EventPayload,
        session_id: Option<SessionId>,
        request_id: Option<RequestId>,
        at_ms: i64,
    ) -> Result<()> {
        let kind = details.kind();
        let payload = to_raw("event payload", details, JSON_MAX_BYTES)?;
        let seq = match self.tx {
            Conn::Sqlite(_) => self.tx.query_one(
                "INSERT INTO events (kind, session_id, request_id, payload, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
                 RETURNING seq",
                &args![
                    kind.as_str(),
                    session_id.map(|s| s.to_string()),
                    request_id.map(|r| r.to_string()),
                    payload.get(),
                    at_ms
                ],
                |row| row.get(0),
            )?,
            // Written just before the commit (`sequencer::flush`), so the counter is held only then.
            Conn::Postgres(_) => 0,
        };
        self.events.push(StoredEvent { seq, kind, session_id, request_id, payload, at_ms });
        Ok(())
    }
}

fn decode(row: &Row<'_>) -> Result<StoredEvent> {
    Ok(StoredEvent {
        seq: row.get(0)?,
        kind: name("events", "kind", row.text(1)?, EventKind::parse)?,
        session_id: row.optional_text(2)?.map(|s| parse("events", "session_id", s)).transpose()?,
        request_id: row.optional_text(3)?.map(|r| parse("events", "request_id", r)).transpose()?,
        payload: raw_from_json("events", "payload", row.get(4)?)?,
        at_ms: row.get(5)?,
    })
}

/// Up to `limit` events after `seq`, oldest first.
pub(crate) fn after(conn: Conn<'_>, seq: i64, limit: usize) -> Result<Vec<StoredEvent>> {
    conn.query(
        "SELECT seq, kind, session_id, request_id, payload, created_at FROM events WHERE seq > ?1 ORDER BY seq LIMIT ?2",
        &args![seq, i64::try_from(limit).unwrap_or(i64::MAX)],
        decode,
    )
}

/// The newest event's seq, or 0 for an empty log.
pub(crate) fn last_seq(conn: Conn<'_>) -> Result<i64> {
    let sql = conn.pick("SELECT max(seq) FROM events", "SELECT last FROM event_seq");
    Ok(conn.query_opt(sql, &[], |row| row.get::<Option<i64>>(0))?.flatten().unwrap_or(0))
}
