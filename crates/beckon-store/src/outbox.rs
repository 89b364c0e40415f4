//! The `outbox` table: callbacks written in the same transaction as the change they report,
//! delivered after commit, retried with backoff, each with a stable idempotency key.

use crate::codec::{JSON_MAX_BYTES, from_json, name, to_json};
use crate::error::Result;
use crate::rows::{CallbackFormat, CallbackKind, DeliveryState, DueCursor, NewCallback, OutboxEntry};
use crate::sql::{Conn, args};
use crate::store::Tx;

impl Tx<'_> {
    /// Queues callbacks for delivery after commit. A callback whose idempotency key is already
    /// queued is not queued twice.
    pub fn enqueue_callbacks(&mut self, callbacks: &[NewCallback], at_ms: i64) -> Result<()> {
        self.callbacks_queued |= !callbacks.is_empty();
        for callback in callbacks {
            let payload = to_json("callback payload", &callback.payload, JSON_MAX_BYTES)?;
            self.tx.execute(
                "INSERT INTO outbox (idempotency_key, target, format, kind, payload, state, next_attempt_at, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?6)
                 ON CONFLICT (idempotency_key) DO NOTHING",
                &args![
                    callback.idempotency_key,
                    callback.target,
                    callback.format.as_str(),
                    callback.kind.name(),
                    payload,
                    at_ms
                ],
            )?;
        }
        Ok(())
    }

    /// Records a successful delivery.
    pub fn mark_delivered(&mut self, id: i64, at_ms: i64) -> Result<()> {
        self.tx.execute(
            "UPDATE outbox SET state = 'delivered', attempts = attempts + 1, delivered_at = ?2, last_error = NULL WHERE id = ?1",
            &args![id, at_ms],
        )?;
        Ok(())
    }

    /// Records a failed attempt: try again at `retry_at_ms`, or give up when it is `None`.
    pub fn mark_attempt_failed(&mut self, id: i64, error: &str, retry_at_ms: Option<i64>) -> Result<()> {
        let error: String = error.chars().take(1000).collect();
        match retry_at_ms {
            Some(at) => self.tx.execute(
                "UPDATE outbox SET attempts = attempts + 1, last_error = ?2, next_attempt_at = ?3 WHERE id = ?1",
                &args![id, error, at],
            )?,
            None => self.tx.execute(
                "UPDATE outbox SET attempts = attempts + 1, last_error = ?2, state = 'failed' WHERE id = ?1",
                &args![id, error],
            )?,
        };
        Ok(())
    }
}

/// Callbacks due at `now_ms`, oldest first, after `after` (from the start when `None`).
pub(crate) fn due(conn: Conn<'_>, now_ms: i64, after: Option<DueCursor>, limit: usize) -> Result<Vec<OutboxEntry>> {
    let (after_at, after_id) = after.unwrap_or((i64::MIN, i64::MIN));
    conn.query(
        "SELECT id, idempotency_key, target, format, kind, payload, attempts, next_attempt_at, created_at FROM outbox
         WHERE state = 'pending' AND next_attempt_at <= ?1 AND (next_attempt_at, id) > (?2, ?3)
         ORDER BY next_attempt_at, id LIMIT ?4",
        &args![now_ms, after_at, after_id, limit as i64],
        |row| {
            Ok(OutboxEntry {
                id: row.get(0)?,
                idempotency_key: row.get(1)?,
                target: row.get(2)?,
                format: name("outbox", "format", row.text(3)?, CallbackFormat::parse)?,
                kind: name("outbox", "kind", row.text(4)?, CallbackKind::parse)?,
                payload: from_json("outbox", "payload", row.text(5)?)?,
                attempts: row.get(6)?,
                next_attempt_at_ms: row.get(7)?,
                created_at_ms: row.get(8)?,
            })
        },
    )
}

/// When the next pending callback is due, if any.
pub(crate) fn next_due(conn: Conn<'_>) -> Result<Option<i64>> {
    conn.query_one("SELECT min(next_attempt_at) FROM outbox WHERE state = 'pending'", &[], |row| row.get(0))
}

/// When the next pending callback falls due after `now_ms`, if any.
pub(crate) fn next_due_after(conn: Conn<'_>, now_ms: i64) -> Result<Option<i64>> {
    conn.query_one(
        "SELECT min(next_attempt_at) FROM outbox WHERE state = 'pending' AND next_attempt_at > ?1",
        &args![now_ms],
        |row| row.get(0),
    )
}

/// A callback's delivery state and attempts, by idempotency key.
pub(crate) fn delivery(conn: Conn<'_>, idempotency_key: &str) -> Result<Option<(DeliveryState, i64)>> {
    conn.query_opt("SELECT state, attempts FROM outbox WHERE idempotency_key = ?1", &args![idempotency_key], |row| {
        Ok((name("outbox", "state", row.text(0)?, DeliveryState::parse)?, row.get(1)?))
    })
}
