//! The `push_devices` table (browsers that take pushes, each kept for the sign-in it was made
//! in) and `push_messages` (the push outbox: a row per device and question, written as
//! `sending` before the push goes out, so a crash mid-send leaves it due again).

use beckon_core::RequestId;

use crate::codec::{name, parse};
use crate::error::Result;
use crate::questions;
use crate::rows::{PushAttempt, PushDevice, PushDue, PushState};
use crate::sql::{Conn, Row, args};
use crate::store::Tx;

const DEVICE_COLUMNS: &str = "d.endpoint, d.session_hash, d.subject, d.p256dh, d.auth, d.created_at";

fn device(row: &Row<'_>) -> Result<PushDevice> {
    let hash: Vec<u8> = row.get(1)?;
    let mut session_hash = [0u8; 32];
    // The hash is person_sessions' key, 32 bytes by that table's CHECK.
    if hash.len() == 32 {
        session_hash.copy_from_slice(&hash);
    }
    Ok(PushDevice {
        endpoint: row.get(0)?,
        session_hash,
        subject: row.get(2)?,
        p256dh: row.get(3)?,
        auth: row.get(4)?,
        created_at_ms: row.get(5)?,
    })
}

/// The condition that question `q` is addressed to device `d`'s person (signed in as session
/// `s`): everyone's, theirs, or one of their groups'.
fn addressed_to_device(conn: Conn<'_>) -> &'static str {
    conn.pick(
        "(NOT EXISTS (SELECT 1 FROM session_audiences a WHERE a.session_id = q.session_id)
          OR EXISTS (SELECT 1 FROM session_audiences a WHERE a.session_id = q.session_id
                     AND (a.audience = 'person:' || d.subject
                          OR a.audience IN (SELECT 'group:' || value FROM json_each(s.groups)))))",
        "(NOT EXISTS (SELECT 1 FROM session_audiences a WHERE a.session_id = q.session_id)
          OR EXISTS (SELECT 1 FROM session_audiences a WHERE a.session_id = q.session_id
                     AND (a.audience = 'person:' || d.subject
                          OR a.audience IN (SELECT 'group:' || g FROM json_array_elements_text(s.groups::json) AS g))))",
    )
}

/// A device by its endpoint.
pub(crate) fn get(conn: Conn<'_>, endpoint: &str) -> Result<Option<PushDevice>> {
    conn.query_opt(
        &format!("SELECT {DEVICE_COLUMNS} FROM push_devices d WHERE d.endpoint = ?1"),
        &args![endpoint],
        device,
    )
}

/// Where the push of `request_id` to `endpoint` stands, with its attempts.
pub(crate) fn state(conn: Conn<'_>, endpoint: &str, request_id: RequestId) -> Result<Option<(PushState, i64)>> {
    conn.query_opt(
        "SELECT state, attempts FROM push_messages WHERE endpoint = ?1 AND request_id = ?2",
        &args![endpoint, request_id.to_string()],
        |row| Ok((name("push_messages", "state", row.text(0)?, PushState::parse)?, row.get(1)?)),
    )
}

/// What devices have to be sent at `now_ms`: for each device of a sign-in still open, the
/// pending questions addressed to its person, asked since it was added and by `asked_by_ms`,
/// that it has not been sent, and those whose push is due again. At most `limit` questions in
/// all, grouped by device; and when more falls due after `now_ms` (a push to try again, or a
/// question asked after `asked_by_ms` coming of age, `delay_ms` later).
pub(crate) fn work(
    conn: Conn<'_>,
    now_ms: i64,
    asked_by_ms: i64,
    delay_ms: i64,
    limit: usize,
) -> Result<(Vec<PushDue>, Option<i64>)> {
    let pairs: Vec<(String, RequestId, i64)> = conn.query(
        &format!(
            "SELECT d.endpoint, q.id, COALESCE(m.attempts, 0) FROM push_devices d
               JOIN person_sessions s ON s.id_hash = d.session_hash
               JOIN questions q ON q.status = 'pending' AND q.created_at >= d.created_at AND q.created_at <= ?2
               LEFT JOIN push_messages m ON m.endpoint = d.endpoint AND m.request_id = q.id
             WHERE s.expires_at > ?1 AND {addressed}
               AND (m.request_id IS NULL OR (m.state = 'sending' AND m.next_attempt_at <= ?1))
             ORDER BY d.endpoint, q.created_at, q.id LIMIT ?3",
            addressed = addressed_to_device(conn)
        ),
        &args![now_ms, asked_by_ms, limit as i64],
        |row| Ok((row.get(0)?, parse("questions", "id", row.text(1)?)?, row.get(2)?)),
    )?;
    let mut due: Vec<PushDue> = Vec::new();
    for (endpoint, id, attempts) in pairs {
        let Some(question) = questions::get(conn, id)? else { continue };
        match due.last_mut() {
            Some(last) if last.device.endpoint == endpoint => last.questions.push((question, attempts)),
            _ => {
                let Some(device) = get(conn, &endpoint)? else { continue };
                due.push(PushDue { device, questions: vec![(question, attempts)] });
            }
        }
    }
    let next_retry: Option<i64> = conn.query_one(
        "SELECT min(m.next_attempt_at) FROM push_messages m JOIN questions q ON q.id = m.request_id
         WHERE m.state = 'sending' AND q.status = 'pending' AND m.next_attempt_at > ?1",
        &args![now_ms],
        |row| row.get(0),
    )?;
    let next_question: Option<i64> = conn.query_one(
        "SELECT min(q.created_at) FROM questions q
         WHERE q.status = 'pending' AND q.created_at > ?1 AND EXISTS (SELECT 1 FROM push_devices)",
        &args![asked_by_ms],
        |row| row.get(0),
    )?;
    let next_question = next_question.map(|at| at.saturating_add(delay_ms));
    Ok((due, [next_retry, next_question].into_iter().flatten().min()))
}

impl Tx<'_> {
    /// Keeps `device` for its sign-in: a browser that subscribes again in the same sign-in
    /// gets its keys replaced; one that was another sign-in's (another person's, or the same
    /// person signed in anew) starts afresh, with nothing it was sent before.
    pub fn add_push_device(&mut self, device: &PushDevice) -> Result<()> {
        self.tx.execute(
            "DELETE FROM push_devices WHERE endpoint = ?1 AND session_hash <> ?2",
            &args![device.endpoint, device.session_hash],
        )?;
        self.tx.execute(
            "INSERT INTO push_devices (endpoint, session_hash, subject, p256dh, auth, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth",
            &args![
                device.endpoint,
                device.session_hash,
                device.subject,
                device.p256dh,
                device.auth,
                device.created_at_ms
            ],
        )?;
        Ok(())
    }

    /// Removes `subject`'s device at `endpoint` (the person turned pushes off); whether there
    /// was one.
    pub fn remove_push_device(&mut self, endpoint: &str, subject: &str) -> Result<bool> {
        Ok(self
            .tx
            .execute("DELETE FROM push_devices WHERE endpoint = ?1 AND subject = ?2", &args![endpoint, subject])?
            > 0)
    }

    /// Forgets the device at `endpoint`, whoever's it is (the push service said it is gone);
    /// whether there was one.
    pub fn forget_push_device(&mut self, endpoint: &str) -> Result<bool> {
        Ok(self.tx.execute("DELETE FROM push_devices WHERE endpoint = ?1", &args![endpoint])? > 0)
    }

    /// Records, durably, that a push of `attempt`'s questions is about to be sent: each is due
    /// again at `in_doubt_until_ms` unless the attempt's end is recorded first. The questions it
    /// may be sent for: those still pending whose push is not sent or given up.
    pub fn begin_push(
        &mut self,
        attempt: &PushAttempt<'_>,
        at_ms: i64,
        in_doubt_until_ms: i64,
    ) -> Result<Vec<RequestId>> {
        let mut begun = Vec::with_capacity(attempt.request_ids.len());
        for id in attempt.request_ids {
            let changed = self.tx.execute(
                "INSERT INTO push_messages (endpoint, request_id, state, next_attempt_at, created_at, updated_at)
                 SELECT ?1, ?2, 'sending', ?4, ?3, ?3
                  WHERE EXISTS (SELECT 1 FROM questions WHERE id = ?2 AND status = 'pending')
                    AND EXISTS (SELECT 1 FROM push_devices WHERE endpoint = ?1)
                 ON CONFLICT (endpoint, request_id) DO UPDATE
                    SET next_attempt_at = excluded.next_attempt_at, updated_at = excluded.updated_at
                  WHERE push_messages.state = 'sending'",
                &args![attempt.endpoint, id.to_string(), at_ms, in_doubt_until_ms],
            )?;
            if changed > 0 {
                begun.push(*id);
            }
        }
        Ok(begun)
    }

    /// Records that the push service took the push of `attempt`'s questions.
    pub fn push_sent(&mut self, attempt: &PushAttempt<'_>, at_ms: i64) -> Result<()> {
        for id in attempt.request_ids {
            self.tx.execute(
                "UPDATE push_messages SET state = 'sent', attempts = attempts + 1, last_error = NULL, updated_at = ?3
                 WHERE endpoint = ?1 AND request_id = ?2 AND state = 'sending'",
                &args![attempt.endpoint, id.to_string(), at_ms],
            )?;
        }
        Ok(())
    }

    /// Records a failed push of `attempt`'s questions: tried again at `retry_at_ms`, or given
    /// up when it is `None`.
    pub fn push_failed(
        &mut self,
        attempt: &PushAttempt<'_>,
        error: &str,
        retry_at_ms: Option<i64>,
        at_ms: i64,
    ) -> Result<()> {
        let error: String = error.chars().take(1000).collect();
        let (state, next) = match retry_at_ms {
            Some(at) => (PushState::Sending, at),
            None => (PushState::Failed, at_ms),
        };
        for id in attempt.request_ids {
            self.tx.execute(
                "UPDATE push_messages SET state = ?3, attempts = attempts + 1, last_error = ?4, next_attempt_at = ?5,
                        updated_at = ?6
                 WHERE endpoint = ?1 AND request_id = ?2 AND state = 'sending'",
                &args![attempt.endpoint, id.to_string(), state.as_str(), error, next, at_ms],
            )?;
        }
        Ok(())
    }
}
