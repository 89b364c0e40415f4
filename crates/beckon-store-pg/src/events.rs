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

use beckon_core::{RequestId, SessionId};
use beckon_store::{EventKind, EventPayload, StoredEvent};
use postgres::{GenericClient, Row, Transaction};
use serde_json::value::RawValue;

use crate::error::{Error, Result};

/// The `LISTEN`/`NOTIFY` channel that carries the last `seq` of each committed transaction.
pub const EVENTS_CHANNEL: &str = "beckon_events";

/// Appends an event in `tx` and returns it as stored. From here to its end, `tx` holds the log:
/// other transactions appending wait until it commits or rolls back.
pub fn append(
    tx: &mut Transaction<'_>,
    details: &EventPayload,
    session_id: Option<SessionId>,
    request_id: Option<RequestId>,
    at_ms: i64,
) -> Result<StoredEvent> {
    let kind = details.kind();
    let payload = serde_json::value::to_raw_value(details).map_err(|err| invalid("payload", err))?;
    let seq: i64 = tx.query_one("UPDATE event_seq SET last = last + 1 RETURNING last", &[])?.get(0);
    tx.execute(
        "INSERT INTO events (seq, kind, session_id, request_id, payload, at) VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            &seq,
            &kind.as_str(),
            &session_id.map(|id| id.to_string()),
            &request_id.map(|id| id.to_string()),
            &payload.get(),
            &at_ms,
        ],
    )?;
    // Queued with the transaction: sent at commit, dropped at rollback; several in one
    // transaction arrive as one per distinct payload, the last one carrying the highest seq.
    tx.execute("SELECT pg_notify($1, $2)", &[&EVENTS_CHANNEL, &seq.to_string()])?;
    Ok(StoredEvent { seq, kind, session_id, request_id, payload, at_ms })
}

/// Up to `limit` events after `seq`, in order.
pub fn after(client: &mut impl GenericClient, seq: i64, limit: i64) -> Result<Vec<StoredEvent>> {
    client
        .query(
            "SELECT seq, kind, session_id, request_id, payload, at FROM events WHERE seq > $1 ORDER BY seq LIMIT $2",
            &[&seq, &limit],
        )?
        .iter()
        .map(decode)
        .collect()
}

/// The last committed event's `seq` (0 when there is none).
pub fn last_seq(client: &mut impl GenericClient) -> Result<i64> {
    Ok(client.query_one("SELECT last FROM event_seq", &[])?.get(0))
}

fn decode(row: &Row) -> Result<StoredEvent> {
    let kind: &str = row.get(1);
    let id = |i: usize, column: &'static str| -> Result<Option<uuid::Uuid>> {
        row.get::<_, Option<&str>>(i).map(|text| text.parse().map_err(|err| invalid(column, err))).transpose()
    };
    Ok(StoredEvent {
        seq: row.get(0),
        kind: EventKind::parse(kind).ok_or_else(|| invalid("kind", format!("unknown kind {kind:?}")))?,
        session_id: id(2, "session_id")?.map(SessionId::from_uuid),
        request_id: id(3, "request_id")?.map(RequestId::from_uuid),
        payload: RawValue::from_string(row.get(4)).map_err(|err| invalid("payload", err))?,
        at_ms: row.get(5),
    })
}

fn invalid(column: &'static str, detail: impl std::fmt::Display) -> Error {
    Error::InvalidData { table: "events", column, detail: detail.to_string() }
}
