//! The `questions` table: every question put to a person, and how it ended.
//!
//! `ask` and `resolve` each commit the question, the session's status, the timeline entry,
//! the event and any callbacks together. The first resolution wins; an identical repeat is an
//! idempotent success; a different one is refused with the winner attached.

use std::sync::LazyLock;

use beckon_core::conversation::{ExpiryPolicy, Origin, SessionStatus};
use beckon_core::{AnsweredVia, Audience, QuestionRequest, RequestId, SessionId};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::audit::Asked;
use crate::codec::{JSON_MAX_BYTES, from_json, name, parse, raw_from_json, to_json, to_raw};
use crate::error::{Error, Result};
use crate::event_payload::{EventPayload, QuestionResolved};
use crate::rows::{
    Deadline, InboxEntry, NewQuestion, PendingQuestion, QuestionRecord, QuestionStatus, Resolution, Resolved,
    ResolvedQuestion, SessionRecord,
};
use crate::sql::{Conn, Row, args};
use crate::store::Tx;
use crate::{sessions, tokens};

/// The timeline entry of a question, with the request embedded as already serialised; the
/// same shape as `Message::Question`.
#[derive(Serialize)]
struct QuestionEntry<'a> {
    kind: &'static str,
    request_id: RequestId,
    tool_use_id: &'a str,
    origin: &'a Origin,
    request: &'a RawValue,
}

/// The timeline entry of an answer; the same shape as `Message::Answer`.
#[derive(Serialize)]
struct AnswerEntry<'a> {
    kind: &'static str,
    request_id: RequestId,
    outcome: &'a RawValue,
}

impl Tx<'_> {
    /// Puts a question to a person: the question, the session (and its ancestors) waiting for
    /// input, the timeline entry, the `question_pending` event and the callbacks, together.
    pub fn ask(&mut self, question: &NewQuestion) -> Result<()> {
        self.put(question, true)
    }

    /// Stores a question that is resolved in the same transaction before anyone sees it (a
    /// rule allowed it): its timeline entry, but no `question_pending` event, no pending
    /// callbacks and no waiting status.
    pub(crate) fn ask_quietly(&mut self, question: &NewQuestion) -> Result<()> {
        self.put(question, false)
    }

    /// Stores a question; `announce` sets the session waiting and appends the pending event and
    /// callbacks.
    fn put(&mut self, question: &NewQuestion, announce: bool) -> Result<()> {
        let session = question.session_id;
        let (moved, parent) = if announce {
            self.set_waiting(session, question.at_ms)?
        } else {
            let (_, parent) = sessions::status_and_parent(self.tx, session)?.ok_or(Error::SessionNotFound(session))?;
            (false, parent)
        };
        let request = to_raw("question request", &question.request, JSON_MAX_BYTES)?;
        let line = to_json("inbox line", &question.request.inbox_line(), JSON_MAX_BYTES)?;
        let origin = to_json("question origin", &question.origin, JSON_MAX_BYTES)?;
        let policy =
            question.expiry_policy.as_ref().map(|p| to_json("expiry policy", p, JSON_MAX_BYTES)).transpose()?;
        // The database allows one pending question per session: a second is not inserted (no
        // error, which on PostgreSQL would end the transaction), and the one that waits is named.
        let inserted = self.tx.execute(
            "INSERT INTO questions (id, session_id, tool_use_id, agent, origin, request, status, callback_url, created_at, expires_at, expiry_policy, line)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', ?7, ?8, ?9, ?10, ?11)
             ON CONFLICT (session_id) WHERE status = 'pending' DO NOTHING",
            &args![
                question.id.to_string(),
                session.to_string(),
                question.tool_use_id,
                question.agent,
                origin,
                request.get(),
                question.callback_url,
                question.at_ms,
                question.expires_at_ms,
                policy,
                line
            ],
        )?;
        if inserted == 0 {
            let pending = pending_of_session(self.tx, session)?.ok_or(Error::SessionNotFound(session))?;
            return Err(Error::QuestionAlreadyPending { session, pending: pending.id });
        }
        if moved {
            self.status_changed(session, SessionStatus::WaitingForInput, None, question.at_ms)?;
        }
        if announce && parent.is_some() {
            self.set_ancestors_status(session, SessionStatus::Running, SessionStatus::WaitingForInput, question.at_ms)?;
        }
        let entry = QuestionEntry {
            kind: "question",
            request_id: question.id,
            tool_use_id: &question.tool_use_id,
            origin: &question.origin,
            request: &request,
        };
        let body = to_raw("message", &entry, JSON_MAX_BYTES)?;
        self.append_entries(session, &[("question", body)], question.at_ms)?;
        if !announce {
            return Ok(());
        }
        let pending = PendingQuestion {
            id: question.id,
            session_id: session,
            agent: question.agent.clone(),
            origin: question.origin.clone(),
            request_json: request,
            created_at_ms: question.at_ms,
            expires_at_ms: question.expires_at_ms,
        };
        self.append_event(&EventPayload::QuestionPending(pending), Some(session), Some(question.id), question.at_ms)?;
        self.enqueue_callbacks(&question.callbacks, question.at_ms)?;
        Ok(())
    }

    /// Resolves a pending question. The first resolution wins; repeating it exactly succeeds
    /// without change; a different one fails with [`Error::AlreadyResolved`].
    pub fn resolve(&mut self, resolution: &Resolution) -> Result<Resolved> {
        self.resolve_as(resolution, None)
    }

    /// Resolves each of `resolutions` in its own savepoint: one that fails is undone alone and
    /// gets its error, and the others stand (a batch decided at once commits together).
    pub fn resolve_each(&mut self, resolutions: &[Resolution]) -> Vec<Result<Resolved>> {
        resolutions
            .iter()
            .map(|resolution| {
                let (events, callbacks_queued, count) = (self.events.len(), self.callbacks_queued, self.resolutions);
                self.savepoint("SAVEPOINT resolve_each")?;
                let resolved = self.resolve(resolution);
                if resolved.is_err() {
                    self.events.truncate(events);
                    self.callbacks_queued = callbacks_queued;
                    self.resolutions = count;
                    self.savepoint("ROLLBACK TO resolve_each")?;
                }
                self.savepoint("RELEASE resolve_each")?;
                resolved
            })
            .collect()
    }

    fn savepoint(&self, sql: &str) -> Result<()> {
        self.tx.batch(sql)
    }

    /// Resolves a pending question, as `rule` (when one allowed it on the person's behalf),
    /// writing its audit row with it.
    pub(crate) fn resolve_as(&mut self, resolution: &Resolution, rule: Option<i64>) -> Result<Resolved> {
        let id = resolution.request_id;
        let status = QuestionStatus::from(resolution.outcome.kind());
        let outcome = to_raw("answer", &resolution.outcome, JSON_MAX_BYTES)?;
        let Some(settled) = settle(self.tx, resolution, status, &outcome)? else {
            // Not pending: resolved before (by this same answer, or another that won), or absent.
            let winner = settled(self.tx, id)?.ok_or(Error::QuestionNotFound(id))?;
            return Resolved::again(winner, &resolution.outcome).map_err(Error::AlreadyResolved);
        };
        let session = settled.session_id;
        let body =
            to_raw("message", &AnswerEntry { kind: "answer", request_id: id, outcome: &outcome }, JSON_MAX_BYTES)?;
        self.append_entries(session, &[("answer", body)], resolution.at_ms)?;
        self.record_audit(&settled.asked, resolution, rule)?;
        let resolved = QuestionResolved {
            status,
            outcome: outcome.clone(),
            answered_via: resolution.via,
            question: Some(settled.record),
        };
        self.append_event(&EventPayload::QuestionResolved(resolved), Some(session), Some(id), resolution.at_ms)?;
        if let Some(status) = resolution.session_status {
            self.change_status(session, &settled.session_status, status, None, resolution.at_ms)?;
        }
        if settled.has_parent {
            self.set_ancestors_status(
                session,
                SessionStatus::WaitingForInput,
                SessionStatus::Running,
                resolution.at_ms,
            )?;
        }
        self.enqueue_callbacks(&resolution.callbacks, resolution.at_ms)?;
        self.resolutions += 1;
        Ok(Resolved::Now(ResolvedQuestion {
            id,
            session_id: session,
            status,
            outcome: resolution.outcome.clone(),
            answered_via: resolution.via,
            resolved_at_ms: resolution.at_ms,
        }))
    }
}

/// What the update that resolves a pending question returns: the rest of what `resolve`
/// writes, read in the same statement.
struct Settled {
    session_id: SessionId,
    session_status: String,
    has_parent: bool,
    asked: Asked,
    /// The question as resolved, as its record's JSON text.
    record: Box<RawValue>,
}

/// Resolves the question if it is still pending, returning what `resolve` needs to go on;
/// `None` when it is not pending (resolved, or absent). One statement: the update, its
/// session's status and parent, the asking token's name, and the record the event carries.
fn settle(
    conn: Conn<'_>,
    resolution: &Resolution,
    status: QuestionStatus,
    outcome: &RawValue,
) -> Result<Option<Settled>> {
    let record = conn.pick(RECORD_JSON_SQLITE, RECORD_JSON_POSTGRES);
    let sql = format!(
        "UPDATE questions SET status = ?2, outcome = ?3, answered_via = ?4, resolved_at = ?5, answered_by = ?6
         WHERE id = ?1 AND status = 'pending'
         RETURNING session_id,
             (SELECT s.status FROM sessions s WHERE s.id = questions.session_id),
             (SELECT s.parent_session_id FROM sessions s WHERE s.id = questions.session_id),
             agent, request, created_at,
             (SELECT t.name FROM question_tokens qt JOIN tokens t ON t.id = qt.token_id WHERE qt.request_id = questions.id),
             {record}"
    );
    conn.query_opt(
        &sql,
        &args![
            resolution.request_id.to_string(),
            status.as_str(),
            outcome.get(),
            resolution.via.map(|v| v.as_str()),
            resolution.at_ms,
            resolution.by
        ],
        |row| {
            let session_id: String = row.get(0)?;
            Ok(Settled {
                session_id: parse("questions", "session_id", &session_id)?,
                session_status: row.get(1)?,
                has_parent: row.optional_text(2)?.is_some(),
                asked: Asked {
                    agent: row.get(3)?,
                    request: from_json("questions", "request", row.text(4)?)?,
                    asked_at_ms: row.get(5)?,
                    session_id,
                    machine: row.get(6)?,
                },
                record: raw_from_json("questions", "record", row.get::<String>(7)?)?,
            })
        },
    )
}

/// How a question that is no longer pending was resolved; `None` when there is no such
/// question (or, which the caller treats alike, it is still pending).
fn settled(conn: Conn<'_>, id: RequestId) -> Result<Option<ResolvedQuestion>> {
    let found = conn.query_opt(
        "SELECT session_id, status, outcome, answered_via, resolved_at FROM questions WHERE id = ?1",
        &args![id.to_string()],
        |row| {
            let status = name("questions", "status", row.text(1)?, QuestionStatus::parse)?;
            if status == QuestionStatus::Pending {
                return Ok(None);
            }
            Ok(Some(ResolvedQuestion {
                id,
                session_id: parse("questions", "session_id", row.text(0)?)?,
                status,
                outcome: from_json("questions", "outcome", row.optional_text(2)?.unwrap_or_default())?,
                answered_via: row
                    .optional_text(3)?
                    .map(|v| name("questions", "answered_via", v, AnsweredVia::parse))
                    .transpose()?,
                resolved_at_ms: row.get::<Option<i64>>(4)?.unwrap_or_default(),
            }))
        },
    )?;
    Ok(found.flatten())
}

const COLUMNS: &str = "id, session_id, tool_use_id, agent, origin, request, status, outcome, answered_via, callback_url, created_at, resolved_at, expires_at, expiry_policy, answered_by, asked_by";

fn record(row: &Row<'_>) -> Result<QuestionRecord> {
    Ok(QuestionRecord {
        id: parse("questions", "id", row.text(0)?)?,
        session_id: parse("questions", "session_id", row.text(1)?)?,
        tool_use_id: row.get(2)?,
        agent: row.get(3)?,
        origin: from_json("questions", "origin", row.text(4)?)?,
        request: from_json("questions", "request", row.text(5)?)?,
        status: name("questions", "status", row.text(6)?, QuestionStatus::parse)?,
        outcome: row.optional_text(7)?.map(|o| from_json("questions", "outcome", o)).transpose()?,
        answered_via: row
            .optional_text(8)?
            .map(|v| name("questions", "answered_via", v, AnsweredVia::parse))
            .transpose()?,
        callback_url: row.get(9)?,
        created_at_ms: row.get(10)?,
        resolved_at_ms: row.get(11)?,
        expires_at_ms: row.get(12)?,
        expiry_policy: row.optional_text(13)?.map(|p| from_json("questions", "expiry_policy", p)).transpose()?,
        answered_by: row.get(14)?,
        asked_by: row.get(15)?,
        only_for: None,
    })
}

/// A question as the JSON text of its [`QuestionRecord`], built by the database from the stored
/// JSON columns without parsing them: what a `question_resolved` event carries.
const RECORD_JSON_SQLITE: &str = "json_object('id', id, 'session_id', session_id, 'tool_use_id', tool_use_id,
    'agent', agent, 'origin', json(origin), 'request', json(request), 'status', status, 'outcome', json(outcome),
    'answered_via', answered_via, 'callback_url', callback_url, 'created_at_ms', created_at,
    'resolved_at_ms', resolved_at, 'expires_at_ms', expires_at, 'expiry_policy', json(expiry_policy),
    'answered_by', answered_by, 'asked_by', asked_by)";
/// [`RECORD_JSON_SQLITE`] as PostgreSQL writes it.
const RECORD_JSON_POSTGRES: &str = "json_build_object('id', id, 'session_id', session_id, 'tool_use_id', tool_use_id,
    'agent', agent, 'origin', origin::json, 'request', request::json, 'status', status, 'outcome', outcome::json,
    'answered_via', answered_via, 'callback_url', callback_url, 'created_at_ms', created_at,
    'resolved_at_ms', resolved_at, 'expires_at_ms', expires_at, 'expiry_policy', expiry_policy::json,
    'answered_by', answered_by, 'asked_by', asked_by)::text";

pub(crate) fn get(conn: Conn<'_>, id: RequestId) -> Result<Option<QuestionRecord>> {
    conn.query_opt(&format!("SELECT {COLUMNS} FROM questions WHERE id = ?1"), &args![id.to_string()], record)
}

/// A question and its session, in one read.
pub(crate) fn with_session(
    conn: Conn<'_>,
    id: RequestId,
) -> Result<Option<(QuestionRecord, SessionRecord, Option<Audience>)>> {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        let columns = |table: &str, columns: &str| {
            columns.split(", ").map(|column| format!("{table}.{column}")).collect::<Vec<_>>().join(", ")
        };
        format!(
            "SELECT {}, {}, a.audience FROM questions q JOIN sessions s ON s.id = q.session_id \
             LEFT JOIN session_audiences a ON a.session_id = q.session_id WHERE q.id = ?1",
            columns("q", COLUMNS),
            columns("s", sessions::RECORD_COLUMNS)
        )
    });
    let question_columns = COLUMNS.split(", ").count();
    let audience_column = question_columns + sessions::RECORD_COLUMNS.split(", ").count();
    conn.query_opt(&SQL, &args![id.to_string()], |row| {
        let audience = match row.get::<Option<String>>(audience_column)? {
            Some(text) => Some(tokens::audience("session_audiences", "audience", &text)?),
            None => None,
        };
        Ok((record(row)?, sessions::record(&row.after(question_columns))?, audience))
    })
}

pub(crate) fn pending_of_session(conn: Conn<'_>, session_id: SessionId) -> Result<Option<QuestionRecord>> {
    conn.query_opt(
        &format!("SELECT {COLUMNS} FROM questions WHERE session_id = ?1 AND status = 'pending'"),
        &args![session_id.to_string()],
        record,
    )
}

pub(crate) fn of_session(conn: Conn<'_>, session_id: SessionId) -> Result<Vec<QuestionRecord>> {
    // Found through the session's timeline, which has an entry for every question it asked.
    let request_id = conn.pick("json_extract(body, '$.request_id')", "body::json->>'request_id'");
    conn.query(
        &format!(
            "SELECT {COLUMNS} FROM questions WHERE id IN
                 (SELECT {request_id} FROM messages WHERE session_id = ?1 AND kind = 'question')
             ORDER BY created_at, id"
        ),
        &args![session_id.to_string()],
        record,
    )
}

/// The SQL that lists the inbox; it must be answered from the covering index alone.
pub(crate) const PENDING_SQL: &str = "SELECT id, session_id, agent, origin, request, created_at, expires_at
     FROM questions WHERE status = 'pending' ORDER BY created_at, id";

/// Every pending question, oldest first.
pub(crate) fn pending(conn: Conn<'_>) -> Result<Vec<PendingQuestion>> {
    // Columns are read in place (no copies) except what the result keeps: this is the query
    // the inbox runs at start-up over every waiting question.
    conn.query(PENDING_SQL, &[], |row| {
        Ok(PendingQuestion {
            id: parse("questions", "id", row.text(0)?)?,
            session_id: parse("questions", "session_id", row.text(1)?)?,
            agent: row.text(2)?.to_owned(),
            origin: from_json("questions", "origin", row.text(3)?)?,
            request_json: raw_from_json("questions", "request", row.text(4)?.to_owned())?,
            created_at_ms: row.get(5)?,
            expires_at_ms: row.get(6)?,
        })
    })
}

/// The SQL that lists the inbox's lines; it must be answered from the covering index alone.
pub(crate) const INBOX_SQL: &str = "SELECT id, session_id, agent, origin, line, created_at, expires_at
     FROM questions WHERE status = 'pending' ORDER BY created_at, id";

/// Every pending question's line, oldest first. A question stored before lines were kept gets
/// its line made from its request.
pub(crate) fn inbox(conn: Conn<'_>) -> Result<Vec<InboxEntry>> {
    conn.query(INBOX_SQL, &[], |row| {
        let id = parse("questions", "id", row.text(0)?)?;
        Ok(InboxEntry {
            id,
            session_id: parse("questions", "session_id", row.text(1)?)?,
            agent: row.text(2)?.to_owned(),
            origin: from_json("questions", "origin", row.text(3)?)?,
            line_json: match row.optional_text(4)? {
                Some(line) => raw_from_json("questions", "line", line.to_owned())?,
                None => line_from_request(conn, id)?,
            },
            created_at_ms: row.get(5)?,
            expires_at_ms: row.get(6)?,
        })
    })
}

/// The line of a question stored without one, made from its request.
fn line_from_request(conn: Conn<'_>, id: RequestId) -> Result<Box<RawValue>> {
    let request: String =
        conn.query_one("SELECT request FROM questions WHERE id = ?1", &args![id.to_string()], |row| row.get(0))?;
    let request: QuestionRequest = from_json("questions", "request", &request)?;
    to_raw("inbox line", &request.inbox_line(), JSON_MAX_BYTES)
}

/// Questions in a status, newest first, up to `limit` (1..=500), created before `before_ms`.
pub(crate) fn list(
    conn: Conn<'_>,
    status: Option<QuestionStatus>,
    before_ms: Option<i64>,
    limit: usize,
) -> Result<Vec<QuestionRecord>> {
    conn.query(
        &format!(
            "SELECT {COLUMNS} FROM questions
             WHERE (CAST(?1 AS TEXT) IS NULL OR status = ?1) AND (CAST(?2 AS BIGINT) IS NULL OR created_at < ?2)
             ORDER BY created_at DESC, id DESC LIMIT ?3"
        ),
        &args![status.map(|s| s.as_str()), before_ms, limit.clamp(1, 500) as i64],
        record,
    )
}

/// Pending questions with a deadline at or before `until_ms` (all of them with `None`),
/// earliest first.
pub(crate) fn deadlines(conn: Conn<'_>, until_ms: Option<i64>) -> Result<Vec<Deadline>> {
    conn.query(
        "SELECT id, session_id, expires_at, expiry_policy FROM questions
         WHERE status = 'pending' AND expires_at IS NOT NULL AND (CAST(?1 AS BIGINT) IS NULL OR expires_at <= ?1)
         ORDER BY expires_at, id",
        &args![until_ms],
        |row| {
            Ok(Deadline {
                request_id: parse("questions", "id", row.text(0)?)?,
                session_id: parse("questions", "session_id", row.text(1)?)?,
                expires_at_ms: row.get(2)?,
                // A deadline without a stored policy declines, the agents' default.
                policy: row
                    .optional_text(3)?
                    .map(|p| from_json("questions", "expiry_policy", p))
                    .transpose()?
                    .unwrap_or(ExpiryPolicy::Decline),
            })
        },
    )
}

/// Whether a question exists at all.
pub(crate) fn exists(conn: Conn<'_>, id: RequestId) -> Result<bool> {
    Ok(conn.query_opt("SELECT 1 FROM questions WHERE id = ?1", &args![id.to_string()], |_| Ok(()))?.is_some())
}
