//! The `sessions` table: one row per agent session, with its conversation state.

use beckon_core::conversation::{SessionStatus, State};
use beckon_core::{SessionId, SessionOrigin};

use crate::codec::{JSON_MAX_BYTES, STATE_MAX_BYTES, from_json, name, parse, to_json};
use crate::error::{Error, Result};
use crate::event_payload::{EventPayload, NoDetails, SessionStarted, StatusChanged};
use crate::rows::{NewSession, SessionCursor, SessionFilter, SessionPage, SessionRecord, SessionSummary, title_from};
use crate::sql::{Conn, Row, args};
use crate::store::Tx;

impl Tx<'_> {
    /// Creates a session.
    pub fn start_session(&mut self, session: &NewSession) -> Result<()> {
        let state = to_json("session state", &session.state, STATE_MAX_BYTES)?;
        let payload = session.payload.as_ref().map(|p| to_json("webhook payload", p, JSON_MAX_BYTES)).transpose()?;
        if let Some(parent) = session.parent
            && !exists(self.tx, parent)?
        {
            return Err(Error::SessionNotFound(parent));
        }
        let status = session.state.status();
        let title = title_from(&session.title);
        self.tx.execute(
            "INSERT INTO sessions (id, agent, origin, parent_session_id, external_key, title, status, state, payload, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
            &args![
                session.id.to_string(),
                session.agent,
                session.origin.as_str(),
                session.parent.map(|p| p.to_string()),
                session.external_key,
                title,
                status.as_str(),
                state,
                payload,
                session.at_ms
            ],
        )?;
        let started = SessionStarted {
            agent: session.agent.clone(),
            origin: session.origin,
            parent: session.parent,
            title,
            status,
        };
        self.append_event(&EventPayload::SessionStarted(started), Some(session.id), None, session.at_ms)?;
        Ok(())
    }

    /// Saves a session's conversation state; its status follows the state, and a change of
    /// status is recorded as an event.
    pub fn save_state(&mut self, id: SessionId, state: &State, at_ms: i64) -> Result<()> {
        let text = to_json("session state", state, STATE_MAX_BYTES)?;
        let status = state.status();
        if !self.replace_state(id, &text, status, at_ms)? {
            return Ok(());
        }
        let reason = match state {
            State::Failed { reason } => Some(reason.as_str()),
            _ => None,
        };
        self.status_changed(id, status, reason, at_ms)
    }

    /// Writes a session's state (as JSON `text`) and `status`: whether the status moved.
    fn replace_state(&self, id: SessionId, text: &str, status: SessionStatus, at_ms: i64) -> Result<bool> {
        let session = id.to_string();
        if self.tx.is_postgres() {
            // One statement, which learns the status it replaces from the row it locks.
            let old: Option<String> = self.tx.query_opt(
                "UPDATE sessions s SET state = ?2, updated_at = ?3, status = ?4
                 FROM (SELECT status FROM sessions WHERE id = ?1 FOR UPDATE) old
                 WHERE s.id = ?1
                 RETURNING old.status",
                &args![session, text, at_ms, status.as_str()],
                |row| row.get(0),
            )?;
            return Ok(old.ok_or(Error::SessionNotFound(id))? != status.as_str());
        }
        // SQLite's RETURNING sees only the new row: a save that moves the status is one
        // statement, one that keeps it a second.
        let moved = self.tx.execute(
            "UPDATE sessions SET state = ?2, updated_at = ?3, status = ?4 WHERE id = ?1 AND status <> ?4",
            &args![session, text, at_ms, status.as_str()],
        )? > 0;
        if !moved
            && self.tx.execute(
                "UPDATE sessions SET state = ?2, updated_at = ?3 WHERE id = ?1",
                &args![session, text, at_ms],
            )? == 0
        {
            return Err(Error::SessionNotFound(id));
        }
        Ok(moved)
    }

    /// Sets a session's status (for sessions Beckon does not run, whose status has no state
    /// machine behind it); records an event when it changes.
    pub fn set_status(&mut self, id: SessionId, status: SessionStatus, reason: Option<&str>, at_ms: i64) -> Result<()> {
        let old: Option<String> =
            self.tx.query_opt("SELECT status FROM sessions WHERE id = ?1", &args![id.to_string()], |row| row.get(0))?;
        let Some(old) = old else { return Err(Error::SessionNotFound(id)) };
        self.change_status(id, &old, status, reason, at_ms)
    }

    /// Sets a session's status from a known `old` one, recording an event when it changes.
    pub(crate) fn change_status(
        &mut self,
        id: SessionId,
        old: &str,
        status: SessionStatus,
        reason: Option<&str>,
        at_ms: i64,
    ) -> Result<()> {
        if old == status.as_str() {
            return Ok(());
        }
        self.tx.execute(
            "UPDATE sessions SET status = ?2, updated_at = ?3 WHERE id = ?1",
            &args![id.to_string(), status.as_str(), at_ms],
        )?;
        self.status_changed(id, status, reason, at_ms)
    }

    /// Records that a session's status changed to `status`.
    pub(crate) fn status_changed(
        &mut self,
        id: SessionId,
        status: SessionStatus,
        reason: Option<&str>,
        at_ms: i64,
    ) -> Result<()> {
        let changed = StatusChanged { status, reason: reason.map(str::to_owned) };
        self.append_event(&EventPayload::SessionStatus(changed), Some(id), None, at_ms)
    }

    /// Sets a session waiting for input, learning its parent in the same statement: whether its
    /// status moved (the caller records the change) and its parent. The session being absent
    /// is [`Error::SessionNotFound`].
    pub(crate) fn set_waiting(&mut self, id: SessionId, at_ms: i64) -> Result<(bool, Option<String>)> {
        let waiting = SessionStatus::WaitingForInput.as_str();
        let moved = self.tx.query_opt(
            "UPDATE sessions SET status = ?2, updated_at = ?3 WHERE id = ?1 AND status <> ?2 RETURNING parent_session_id",
            &args![id.to_string(), waiting, at_ms],
            |row| row.get::<Option<String>>(0),
        )?;
        if let Some(parent) = moved {
            return Ok((true, parent));
        }
        let (_, parent) = status_and_parent(self.tx, id)?.ok_or(Error::SessionNotFound(id))?;
        Ok((false, parent))
    }

    /// Sets the status of every ancestor of `id` (not `id` itself) that currently has status
    /// `from`: a parent shows `waiting_for_input` while a sub-agent's question waits.
    pub(crate) fn set_ancestors_status(
        &mut self,
        id: SessionId,
        from: SessionStatus,
        to: SessionStatus,
        at_ms: i64,
    ) -> Result<()> {
        for ancestor in ancestors(self.tx, id)? {
            let current: String = self.tx.query_one(
                "SELECT status FROM sessions WHERE id = ?1",
                &args![ancestor.to_string()],
                |row| row.get(0),
            )?;
            if current == from.as_str() {
                self.set_status(ancestor, to, None, at_ms)?;
            }
        }
        Ok(())
    }

    /// Deletes finished top-level sessions last changed before `before_ms`, with their
    /// sub-agent sessions, timelines, questions and events. A session tree with anything still running
    /// or waiting is kept. Returns the top-level sessions that went.
    pub fn prune_finished(&mut self, before_ms: i64, at_ms: i64) -> Result<Vec<SessionId>> {
        let ids: Vec<String> = self.tx.query(
            "WITH RECURSIVE tree(root, id) AS (
                     SELECT id, id FROM sessions WHERE parent_session_id IS NULL AND updated_at < ?1
                     UNION ALL
                     SELECT tree.root, s.id FROM sessions s JOIN tree ON s.parent_session_id = tree.id
                 )
                 SELECT tree.root FROM tree JOIN sessions s ON s.id = tree.id
                 GROUP BY tree.root
                 HAVING count(*) FILTER (WHERE s.status IN ('running', 'waiting_for_input')) = 0
                    AND count(*) FILTER (WHERE EXISTS
                        (SELECT 1 FROM questions q WHERE q.session_id = s.id AND q.status = 'pending')) = 0",
            &args![before_ms],
            |row| row.get(0),
        )?;
        let mut pruned = Vec::with_capacity(ids.len());
        for text in &ids {
            let id: SessionId = parse("sessions", "id", text)?;
            // Appended first, so it is the newest event: SQLite numbers an event one past the
            // highest kept, and the events deleted below must not hand their numbers out again.
            self.append_event(&EventPayload::SessionDeleted(NoDetails {}), Some(id), None, at_ms)?;
            // The events go with the session: once its audience is gone, nothing would say
            // whose they were. Its deletion is kept, so a window still showing it lets it go.
            self.tx.execute(
                "WITH RECURSIVE tree(id) AS (
                     SELECT id FROM sessions WHERE id = ?1
                     UNION ALL
                     SELECT s.id FROM sessions s JOIN tree ON s.parent_session_id = tree.id
                 )
                 DELETE FROM events WHERE session_id IN (SELECT id FROM tree) AND kind <> 'session_deleted'",
                &args![text],
            )?;
            self.tx.execute("DELETE FROM sessions WHERE id = ?1", &args![text])?;
            pruned.push(id);
        }
        Ok(pruned)
    }
}

/// A session's stored status text and whether it has a parent, if it exists.
pub(crate) fn status_and_parent(conn: Conn<'_>, id: SessionId) -> Result<Option<(String, Option<String>)>> {
    conn.query_opt("SELECT status, parent_session_id FROM sessions WHERE id = ?1", &args![id.to_string()], |row| {
        Ok((row.get(0)?, row.get(1)?))
    })
}

pub(crate) fn exists(conn: Conn<'_>, id: SessionId) -> Result<bool> {
    Ok(conn.query_opt("SELECT 1 FROM sessions WHERE id = ?1", &args![id.to_string()], |_| Ok(()))?.is_some())
}

/// The chain of parents of `id`, nearest first.
pub(crate) fn ancestors(conn: Conn<'_>, id: SessionId) -> Result<Vec<SessionId>> {
    conn.query(
        "WITH RECURSIVE chain(id, depth) AS (
             SELECT parent_session_id, 1 FROM sessions WHERE id = ?1 AND parent_session_id IS NOT NULL
             UNION ALL
             SELECT s.parent_session_id, chain.depth + 1 FROM sessions s JOIN chain ON s.id = chain.id
             WHERE s.parent_session_id IS NOT NULL AND chain.depth < 64
         )
         SELECT id FROM chain ORDER BY depth",
        &args![id.to_string()],
        |row| parse("sessions", "parent_session_id", row.text(0)?),
    )
}

pub(crate) const RECORD_COLUMNS: &str =
    "id, agent, origin, parent_session_id, external_key, title, status, state, payload, created_at, updated_at";
const SUMMARY_COLUMNS: &str = "id, agent, origin, parent_session_id, title, status, created_at, updated_at";

pub(crate) fn record(row: &Row<'_>) -> Result<SessionRecord> {
    Ok(SessionRecord {
        id: parse("sessions", "id", row.text(0)?)?,
        agent: row.get(1)?,
        origin: name("sessions", "origin", row.text(2)?, SessionOrigin::parse)?,
        parent: row.optional_text(3)?.map(|p| parse("sessions", "parent_session_id", p)).transpose()?,
        external_key: row.get(4)?,
        title: row.get(5)?,
        status: name("sessions", "status", row.text(6)?, SessionStatus::parse)?,
        state: from_json("sessions", "state", row.text(7)?)?,
        payload: row.optional_text(8)?.map(|p| from_json("sessions", "payload", p)).transpose()?,
        created_at_ms: row.get(9)?,
        updated_at_ms: row.get(10)?,
    })
}

fn summary(row: &Row<'_>) -> Result<SessionSummary> {
    Ok(SessionSummary {
        id: parse("sessions", "id", row.text(0)?)?,
        agent: row.get(1)?,
        origin: name("sessions", "origin", row.text(2)?, SessionOrigin::parse)?,
        parent: row.optional_text(3)?.map(|p| parse("sessions", "parent_session_id", p)).transpose()?,
        title: row.get(4)?,
        status: name("sessions", "status", row.text(5)?, SessionStatus::parse)?,
        created_at_ms: row.get(6)?,
        updated_at_ms: row.get(7)?,
    })
}

pub(crate) fn get(conn: Conn<'_>, id: SessionId) -> Result<Option<SessionRecord>> {
    conn.query_opt(&format!("SELECT {RECORD_COLUMNS} FROM sessions WHERE id = ?1"), &args![id.to_string()], record)
}

pub(crate) fn by_external_key(conn: Conn<'_>, agent: &str, key: &str) -> Result<Option<SessionRecord>> {
    conn.query_opt(
        &format!("SELECT {RECORD_COLUMNS} FROM sessions WHERE agent = ?1 AND external_key = ?2"),
        &args![agent, key],
        record,
    )
}

pub(crate) fn with_status(conn: Conn<'_>, status: SessionStatus) -> Result<Vec<SessionRecord>> {
    conn.query(
        &format!("SELECT {RECORD_COLUMNS} FROM sessions WHERE status = ?1 ORDER BY created_at, id"),
        &args![status.as_str()],
        record,
    )
}

/// Sessions waiting for input that have sub-agent sessions (a parent shows waiting while its
/// sub-agent's question waits).
pub(crate) fn waiting_parents(conn: Conn<'_>) -> Result<Vec<SessionRecord>> {
    conn.query(
        &format!(
            "SELECT {RECORD_COLUMNS} FROM sessions s WHERE status = 'waiting_for_input'
             AND EXISTS (SELECT 1 FROM sessions c WHERE c.parent_session_id = s.id) ORDER BY created_at, id"
        ),
        &[],
        record,
    )
}

pub(crate) fn children(conn: Conn<'_>, id: SessionId) -> Result<Vec<SessionSummary>> {
    conn.query(
        &format!("SELECT {SUMMARY_COLUMNS} FROM sessions WHERE parent_session_id = ?1 ORDER BY created_at, id"),
        &args![id.to_string()],
        summary,
    )
}

pub(crate) fn list(conn: Conn<'_>, filter: &SessionFilter) -> Result<SessionPage> {
    let limit = filter.limit.clamp(1, 500);
    let mut sql = format!("SELECT {SUMMARY_COLUMNS} FROM sessions WHERE 1 = 1");
    // Unused parameters are still named, with their types: PostgreSQL must know each one's.
    sql.push_str(match filter.status {
        Some(_) => " AND status = ?1",
        None => " AND CAST(?1 AS TEXT) IS NULL",
    });
    if filter.top_level_only {
        sql.push_str(" AND parent_session_id IS NULL");
    }
    sql.push_str(match filter.after {
        Some(_) => " AND (created_at, id) < (?2, ?3)",
        None => " AND CAST(?2 AS BIGINT) IS NULL AND CAST(?3 AS TEXT) IS NULL",
    });
    sql.push_str(" ORDER BY created_at DESC, id DESC LIMIT ?4");
    let (after_time, after_id) = match filter.after {
        Some(cursor) => (Some(cursor.created_at_ms), Some(cursor.id.to_string())),
        None => (None, None),
    };
    let status = filter.status.map(|s| s.as_str());
    let mut sessions = conn.query(&sql, &args![status, after_time, after_id, (limit + 1) as i64], summary)?;
    let next = if sessions.len() > limit {
        sessions.truncate(limit);
        sessions.last().map(|s| SessionCursor { created_at_ms: s.created_at_ms, id: s.id })
    } else {
        None
    };
    Ok(SessionPage { sessions, next })
}
