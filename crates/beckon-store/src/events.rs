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
use crate::sql::{Conn, Row, Value, args};
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
            // Written just before the commit (see `flush`), so the counter is held only then.
            Conn::Postgres(_) => 0,
        };
        self.events.push(StoredEvent { seq, kind, session_id, request_id, payload, at_ms });
        Ok(())
    }
}

/// A nullable text parameter.
fn text(value: &Option<String>) -> Value<'_> {
    value.as_deref().map_or(Value::Null, Value::Text)
}

/// On PostgreSQL, writes `events` (appended by a transaction about to commit) under their
/// numbers and tells listeners how far the log goes: three statements however many events, the
/// counter's row locked from the first to the commit. A no-op on SQLite, whose events are
/// written as they are appended.
pub(crate) fn flush<'e>(conn: Conn<'_>, events: impl IntoIterator<Item = &'e mut StoredEvent>) -> Result<()> {
    if !conn.is_postgres() {
        return Ok(());
    }
    let mut events: Vec<&mut StoredEvent> = events.into_iter().collect();
    let count = events.len() as i64;
    if count == 0 {
        return Ok(());
    }
    let last: i64 =
        conn.query_one("UPDATE event_seq SET last = last + ?1 RETURNING last", &args![count], |row| row.get(0))?;
    for (event, seq) in events.iter_mut().zip(last - count + 1..) {
        event.seq = seq;
    }
    let mut sql = String::from("INSERT INTO events (seq, kind, session_id, request_id, payload, created_at) VALUES ");
    let texts: Vec<[Option<String>; 2]> = events
        .iter()
        .map(|event| [event.session_id.map(|s| s.to_string()), event.request_id.map(|r| r.to_string())])
        .collect();
    let mut params = Vec::with_capacity(events.len() * 6);
    for (i, (event, [session, request])) in events.iter().zip(&texts).enumerate() {
        let n = i * 6;
        if i > 0 {
            sql.push_str(", ");
        }
        sql.push_str(&format!("(?{}, ?{}, ?{}, ?{}, ?{}, ?{})", n + 1, n + 2, n + 3, n + 4, n + 5, n + 6));
        params.extend([
            Value::Int(event.seq),
            Value::Text(event.kind.as_str()),
            text(session),
            text(request),
            Value::Text(event.payload.get()),
            Value::Int(event.at_ms),
        ]);
    }
    conn.execute(&sql, &params)?;
    drop(params);
    // Sent at commit, dropped at rollback.
    conn.query_one("SELECT pg_notify(?1, ?2)", &args![crate::sql::EVENTS_CHANNEL, last.to_string()], |_| Ok(()))
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
