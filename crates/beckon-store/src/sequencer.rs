//! Numbering a transaction's events on PostgreSQL, in commit order: its events are written
//! together just before it commits, under numbers taken from one counter row that stays locked
//! until the commit (see `events.rs` for why a `bigserial` would not do).

use crate::error::Result;
use crate::rows::StoredEvent;
use crate::sql::{Conn, Value, args};

/// A nullable text parameter.
fn text(value: &Option<String>) -> Value<'_> {
    value.as_deref().map_or(Value::Null, Value::Text)
}

/// On PostgreSQL, writes `events` (appended by a transaction about to commit) under their
/// numbers and tells listeners how far the log goes: three statements however many events (the
/// last sent with the commit), the counter's row locked from the first to the commit. A no-op
/// on SQLite, whose events are written as they are appended.
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
    // Sent at commit, dropped at rollback; goes out with the `COMMIT` that follows (the
    // channel is a constant, the payload a number).
    conn.defer(&format!("NOTIFY {}, '{last}'", crate::sql::EVENTS_CHANNEL))
}
