//! The event log on PostgreSQL, gap-free in commit order.
//!
//! A `bigserial` is not: two transactions take 7 and 8, the one with 8 commits first, a reader
//! sees 8 and moves past, and 7 — committed a moment later — is never read. Here a transaction
//! takes its numbers from one counter row, which stays locked until it commits or rolls back;
//! any other writer waits at its first event, so numbers are handed out in commit order and a
//! rollback gives its numbers back. The cost is that transactions writing events commit one at
//! a time from their first event on, so a writer appends its events last. Each transaction that
//! appends also notifies [`EVENTS_CHANNEL`] with its last `seq`, delivered at commit, so
//! replicas listening learn of new events without polling.

use postgres::{GenericClient, Transaction};

use crate::error::Result;

/// The `LISTEN`/`NOTIFY` channel that carries the last `seq` of each committed transaction.
pub const EVENTS_CHANNEL: &str = "beckon_events";

/// An event to append.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent<'a> {
    /// What happened (`question_pending`, `question_resolved`, …).
    pub kind: &'a str,
    /// The session it concerns.
    pub session_id: Option<&'a str>,
    /// The question it concerns.
    pub request_id: Option<&'a str>,
    /// Its details, as JSON text.
    pub payload: &'a str,
    /// When (Unix ms).
    pub at_ms: i64,
}

/// An event as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// Its place in the log: 1, 2, 3, … in commit order, with no gaps.
    pub seq: i64,
    /// What happened.
    pub kind: String,
    /// The session it concerns.
    pub session_id: Option<String>,
    /// The question it concerns.
    pub request_id: Option<String>,
    /// Its details, as JSON text.
    pub payload: String,
    /// When (Unix ms).
    pub at_ms: i64,
}

/// Appends `event` in `tx` and returns its `seq`. From here to its end, `tx` holds the log:
/// other transactions appending wait until it commits or rolls back.
pub fn append(tx: &mut Transaction<'_>, event: &NewEvent<'_>) -> Result<i64> {
    let seq: i64 = tx.query_one("UPDATE event_seq SET last = last + 1 RETURNING last", &[])?.get(0);
    tx.execute(
        "INSERT INTO events (seq, kind, session_id, request_id, payload, at) VALUES ($1, $2, $3, $4, $5, $6)",
        &[&seq, &event.kind, &event.session_id, &event.request_id, &event.payload, &event.at_ms],
    )?;
    // Queued with the transaction: sent at commit, dropped at rollback; several in one
    // transaction arrive as one per distinct payload, the last one carrying the highest seq.
    tx.execute("SELECT pg_notify($1, $2)", &[&EVENTS_CHANNEL, &seq.to_string()])?;
    Ok(seq)
}

/// Up to `limit` events after `seq`, in order.
pub fn after(client: &mut impl GenericClient, seq: i64, limit: i64) -> Result<Vec<StoredEvent>> {
    let rows = client.query(
        "SELECT seq, kind, session_id, request_id, payload, at FROM events WHERE seq > $1 ORDER BY seq LIMIT $2",
        &[&seq, &limit],
    )?;
    Ok(rows
        .iter()
        .map(|row| StoredEvent {
            seq: row.get(0),
            kind: row.get(1),
            session_id: row.get(2),
            request_id: row.get(3),
            payload: row.get(4),
            at_ms: row.get(5),
        })
        .collect())
}

/// The last committed event's `seq` (0 when there is none).
pub fn last_seq(client: &mut impl GenericClient) -> Result<i64> {
    Ok(client.query_one("SELECT last FROM event_seq", &[])?.get(0))
}
