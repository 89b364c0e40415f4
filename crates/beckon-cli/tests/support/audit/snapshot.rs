//! The database as the stopped server left it, read with a read-only connection: integrity,
//! questions, sessions with their timelines, the event log's question events, the outbox, and
//! the callback secret.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

/// A row of `questions`.
#[derive(Debug, Clone)]
pub struct QuestionRow {
    /// Its id.
    pub id: String,
    /// Its session.
    pub session_id: String,
    /// The first question's text.
    pub text: String,
    /// `pending`, `answered`, …
    pub status: String,
    /// The resolution (`null` while pending).
    pub outcome: Value,
}

/// A row of `sessions`.
#[derive(Debug, Clone)]
pub struct SessionRow {
    /// Its id.
    pub id: String,
    /// Its agent.
    pub agent: String,
    /// `webhook`, `external`, …
    pub origin: String,
    /// Its status.
    pub status: String,
    /// An external agent's grouping key.
    pub external_key: Option<String>,
    /// A webhook's payload.
    pub payload: Value,
}

/// A row of `outbox`.
#[derive(Debug, Clone)]
pub struct OutboxRow {
    /// The receiver's deduplication key.
    pub key: String,
    /// `question_pending`, `question_answered`, …
    pub kind: String,
    /// `pending`, `delivered` or `failed`.
    pub state: String,
    /// Deliveries tried.
    pub attempts: i64,
    /// The question it reports.
    pub request_id: String,
}

/// Everything the checks read.
#[derive(Debug)]
pub struct Snapshot {
    /// `PRAGMA integrity_check`'s rows (`["ok"]` when intact).
    pub integrity: Vec<String>,
    /// `PRAGMA foreign_key_check`'s row count.
    pub foreign_key_violations: usize,
    /// The secret callbacks are signed with.
    pub secret: Option<String>,
    /// Every question.
    pub questions: Vec<QuestionRow>,
    /// Every session.
    pub sessions: Vec<SessionRow>,
    /// Each session's timeline entries (their JSON bodies), in order.
    pub timelines: HashMap<String, Vec<Value>>,
    /// `question_pending` events per question.
    pub asked_events: HashMap<String, usize>,
    /// `question_resolved` events per question.
    pub resolved_events: HashMap<String, usize>,
    /// Every queued callback.
    pub outbox: Vec<OutboxRow>,
    /// Each question's message on a channel as the store records it.
    pub channel_messages: Vec<ChannelRow>,
}

/// A row of `channel_messages`.
#[derive(Debug, Clone)]
pub struct ChannelRow {
    /// `slack` or `telegram`.
    pub channel: String,
    /// The question.
    pub request_id: String,
    /// `waiting`, `posting`, `posted` or `settled`.
    pub state: String,
    /// The service's message id (Slack's `ts`, Telegram's message id), once posted.
    pub message: Option<String>,
}

fn json(text: Option<String>) -> Value {
    text.and_then(|text| serde_json::from_str(&text).ok()).unwrap_or(Value::Null)
}

fn event_counts(conn: &Connection, kind: &str) -> rusqlite::Result<HashMap<String, usize>> {
    let mut statement = conn.prepare(
        "SELECT request_id, count(*) FROM events WHERE kind = ?1 AND request_id IS NOT NULL GROUP BY request_id",
    )?;
    let rows = statement.query_map([kind], |row| Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)? as usize)))?;
    rows.collect()
}

impl Snapshot {
    /// Reads `beckon.db` at `path`.
    pub fn read(path: &Path) -> Snapshot {
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap_or_else(|err| panic!("{} cannot be opened read-only: {err}", path.display()));
        Snapshot::from(&conn).unwrap_or_else(|err| panic!("{} cannot be read: {err}", path.display()))
    }

    fn from(conn: &Connection) -> rusqlite::Result<Snapshot> {
        let integrity = conn
            .prepare("PRAGMA integrity_check")?
            .query_map([], |row| row.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let foreign_key_violations = conn.prepare("PRAGMA foreign_key_check")?.query_map([], |_| Ok(()))?.count();
        let secret = conn
            .prepare("SELECT value FROM settings WHERE key = 'callback_secret'")?
            .query_map([], |row| row.get::<_, String>(0))?
            .next()
            .transpose()?;
        let questions = conn
            .prepare("SELECT id, session_id, request, status, outcome FROM questions")?
            .query_map([], |row| {
                Ok(QuestionRow {
                    id: row.get(0)?,
                    session_id: row.get(1)?,
                    text: json(row.get(2)?)["questions"][0]["question"].as_str().unwrap_or_default().to_owned(),
                    status: row.get(3)?,
                    outcome: json(row.get(4)?),
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let sessions = conn
            .prepare("SELECT id, agent, origin, status, external_key, payload FROM sessions")?
            .query_map([], |row| {
                Ok(SessionRow {
                    id: row.get(0)?,
                    agent: row.get(1)?,
                    origin: row.get(2)?,
                    status: row.get(3)?,
                    external_key: row.get(4)?,
                    payload: json(row.get(5)?),
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let channel_messages = conn
            .prepare("SELECT channel, request_id, state, message FROM channel_messages")?
            .query_map([], |row| {
                Ok(ChannelRow {
                    channel: row.get(0)?,
                    request_id: row.get(1)?,
                    state: row.get(2)?,
                    message: row.get(3)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut timelines: HashMap<String, Vec<Value>> = HashMap::new();
        let mut statement = conn.prepare("SELECT session_id, body FROM messages ORDER BY session_id, position")?;
        let entries = statement.query_map([], |row| Ok((row.get::<_, String>(0)?, json(row.get(1)?))))?;
        for entry in entries {
            let (session, body) = entry?;
            timelines.entry(session).or_default().push(body);
        }
        let outbox = conn
            .prepare("SELECT idempotency_key, kind, state, attempts, payload FROM outbox")?
            .query_map([], |row| {
                Ok(OutboxRow {
                    key: row.get(0)?,
                    kind: row.get(1)?,
                    state: row.get(2)?,
                    attempts: row.get(3)?,
                    request_id: json(row.get(4)?)["request_id"].as_str().unwrap_or_default().to_owned(),
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(Snapshot {
            integrity,
            foreign_key_violations,
            secret,
            questions,
            sessions,
            timelines,
            asked_events: event_counts(conn, "question_pending")?,
            resolved_events: event_counts(conn, "question_resolved")?,
            outbox,
            channel_messages,
        })
    }
}
