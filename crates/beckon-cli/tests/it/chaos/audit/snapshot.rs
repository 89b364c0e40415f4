//! The database as the stopped servers left it — a `beckon.db` read with a read-only connection,
//! or a team server's PostgreSQL database: integrity (SQLite's own checks; PostgreSQL enforces
//! its constraints itself), questions, sessions with their timelines, the event log's question
//! events, the outbox, and the callback secret.

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

/// A row as text, column by column (`NULL` as `None`).
type Row = Vec<Option<String>>;

/// Where the rows come from: each query's columns are text (numbers cast in the SQL).
trait Rows {
    fn rows(&mut self, sql: &str, param: Option<&str>) -> Vec<Row>;
}

impl Rows for Connection {
    fn rows(&mut self, sql: &str, param: Option<&str>) -> Vec<Row> {
        let mut statement = self.prepare(sql).unwrap_or_else(|err| panic!("{sql} cannot be prepared: {err}"));
        let width = statement.column_count();
        let params: Vec<&dyn rusqlite::ToSql> = param.iter().map(|p| p as &dyn rusqlite::ToSql).collect();
        statement
            .query_map(params.as_slice(), |row| (0..width).map(|i| row.get::<_, Option<String>>(i)).collect())
            .and_then(Iterator::collect)
            .unwrap_or_else(|err| panic!("{sql} cannot be read: {err}"))
    }
}

impl Rows for postgres::Client {
    fn rows(&mut self, sql: &str, param: Option<&str>) -> Vec<Row> {
        let sql = sql.replace("?1", "$1");
        let params: Vec<&(dyn postgres::types::ToSql + Sync)> =
            param.iter().map(|p| p as &(dyn postgres::types::ToSql + Sync)).collect();
        let rows = self.query(&sql, &params).unwrap_or_else(|err| panic!("{sql} cannot be read: {err}"));
        rows.iter().map(|row| (0..row.len()).map(|i| row.get::<_, Option<String>>(i)).collect()).collect()
    }
}

fn json(text: Option<&String>) -> Value {
    text.and_then(|text| serde_json::from_str(text).ok()).unwrap_or(Value::Null)
}

fn text(row: &Row, column: usize) -> String {
    row.get(column).cloned().flatten().unwrap_or_default()
}

fn optional(row: &Row, column: usize) -> Option<String> {
    row.get(column).cloned().flatten()
}

fn event_counts(source: &mut dyn Rows, kind: &str) -> HashMap<String, usize> {
    source
        .rows(
            "SELECT request_id, CAST(count(*) AS TEXT) FROM events WHERE kind = ?1 AND request_id IS NOT NULL GROUP BY request_id",
            Some(kind),
        )
        .iter()
        .map(|row| (text(row, 0), text(row, 1).parse().unwrap_or_default()))
        .collect()
}

impl Snapshot {
    /// Reads `beckon.db` at `path`.
    pub fn read(path: &Path) -> Snapshot {
        let mut conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap_or_else(|err| panic!("{} cannot be opened read-only: {err}", path.display()));
        let integrity = conn.rows("PRAGMA integrity_check", None).iter().map(|row| text(row, 0)).collect();
        let foreign_key_violations = conn.rows("PRAGMA foreign_key_check", None).len();
        Snapshot::from(&mut conn, integrity, foreign_key_violations)
    }

    /// Reads a team server's PostgreSQL database at `url` (blocks: call it off async threads).
    pub fn read_postgres(url: &str) -> Snapshot {
        let mut client = postgres::Client::connect(url, postgres::NoTls)
            .unwrap_or_else(|err| panic!("the team server's database cannot be reached: {err}"));
        // PostgreSQL checks its pages and constraints as it writes them.
        Snapshot::from(&mut client, vec!["ok".to_owned()], 0)
    }

    fn from(source: &mut dyn Rows, integrity: Vec<String>, foreign_key_violations: usize) -> Snapshot {
        let secret = source
            .rows("SELECT value FROM settings WHERE key = 'callback_secret'", None)
            .first()
            .map(|row| text(row, 0));
        let questions = source
            .rows("SELECT id, session_id, request, status, outcome FROM questions", None)
            .iter()
            .map(|row| QuestionRow {
                id: text(row, 0),
                session_id: text(row, 1),
                text: json(row[2].as_ref())["questions"][0]["question"].as_str().unwrap_or_default().to_owned(),
                status: text(row, 3),
                outcome: json(row[4].as_ref()),
            })
            .collect();
        let sessions = source
            .rows("SELECT id, agent, origin, status, external_key, payload FROM sessions", None)
            .iter()
            .map(|row| SessionRow {
                id: text(row, 0),
                agent: text(row, 1),
                origin: text(row, 2),
                status: text(row, 3),
                external_key: optional(row, 4),
                payload: json(row[5].as_ref()),
            })
            .collect();
        let channel_messages = source
            .rows("SELECT channel, request_id, state, message FROM channel_messages", None)
            .iter()
            .map(|row| ChannelRow {
                channel: text(row, 0),
                request_id: text(row, 1),
                state: text(row, 2),
                message: optional(row, 3),
            })
            .collect();
        let mut timelines: HashMap<String, Vec<Value>> = HashMap::new();
        for row in source.rows("SELECT session_id, body FROM messages ORDER BY session_id, position", None) {
            timelines.entry(text(&row, 0)).or_default().push(json(row[1].as_ref()));
        }
        let outbox = source
            .rows("SELECT idempotency_key, kind, state, CAST(attempts AS TEXT), payload FROM outbox", None)
            .iter()
            .map(|row| OutboxRow {
                key: text(row, 0),
                kind: text(row, 1),
                state: text(row, 2),
                attempts: text(row, 3).parse().unwrap_or_default(),
                request_id: json(row[4].as_ref())["request_id"].as_str().unwrap_or_default().to_owned(),
            })
            .collect();
        Snapshot {
            integrity,
            foreign_key_violations,
            secret,
            questions,
            sessions,
            timelines,
            asked_events: event_counts(source, "question_pending"),
            resolved_events: event_counts(source, "question_resolved"),
            outbox,
            channel_messages,
        }
    }
}
