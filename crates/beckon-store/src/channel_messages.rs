//! The `channel_messages` table: each question's message on a channel (Slack, Telegram), as the
//! channel's outbox. A row is written as `posting`, with the channel's mark, before the post is
//! sent, so a crash mid-post leaves a row that says "look for the message before posting
//! again"; `posted` holds where the message is; `settled` once it shows how the question ended.
//! A post that failed for certain waits as `waiting` for its next attempt.

use beckon_core::RequestId;

use crate::codec::{name, parse};
use crate::error::Result;
use crate::questions;
use crate::rows::{ChannelMessage, ChannelMessageState, ChannelScope, ChannelWork, QuestionRecord};
use crate::sql::{Conn, Row, args};
use crate::store::Tx;

const COLUMNS: &str = "channel, request_id, state, mark, conversation, message, attempts, next_attempt_at";

fn row_of(row: &Row<'_>) -> Result<ChannelMessage> {
    Ok(ChannelMessage {
        channel: row.get(0)?,
        request_id: parse("channel_messages", "request_id", row.text(1)?)?,
        state: name("channel_messages", "state", row.text(2)?, ChannelMessageState::parse)?,
        mark: row.get(3)?,
        conversation: row.get(4)?,
        message: row.get(5)?,
        attempts: row.get(6)?,
        next_attempt_at_ms: row.get(7)?,
    })
}

pub(crate) fn get(conn: Conn<'_>, channel: &str, request_id: RequestId) -> Result<Option<ChannelMessage>> {
    conn.query_opt(
        &format!("SELECT {COLUMNS} FROM channel_messages WHERE channel = ?1 AND request_id = ?2"),
        &args![channel, request_id.to_string()],
        row_of,
    )
}

/// Rows of `channel` in `state` that are due, each with its question.
fn due_rows(
    conn: Conn<'_>,
    channel: &str,
    state: ChannelMessageState,
    resolved_only: bool,
    now_ms: i64,
    limit: usize,
) -> Result<Vec<(ChannelMessage, QuestionRecord)>> {
    let messages = conn.query(
        &format!(
            "SELECT {COLUMNS} FROM channel_messages m
             WHERE channel = ?1 AND state = ?2 AND next_attempt_at <= ?3
               AND (?4 = 0 OR EXISTS (SELECT 1 FROM questions q WHERE q.id = m.request_id AND q.status <> 'pending'))
             ORDER BY next_attempt_at, request_id LIMIT ?5"
        ),
        &args![channel, state.as_str(), now_ms, i64::from(resolved_only), limit as i64],
        row_of,
    )?;
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        if let Some(question) = questions::get(conn, message.request_id)? {
            out.push((message, question));
        }
    }
    Ok(out)
}

/// The condition that a question `q` is addressed to one of the audiences in parameter `n` (a
/// JSON array), or any question when that parameter is NULL.
fn addressed_to(conn: Conn<'_>, n: u8) -> String {
    let audiences =
        conn.pick("SELECT value FROM json_each(?{n})", "SELECT json_array_elements_text(CAST(?{n} AS TEXT)::json)");
    let null = conn.pick("?{n} IS NULL", "CAST(?{n} AS TEXT) IS NULL");
    format!(
        "({null} OR EXISTS (SELECT 1 FROM session_audiences a WHERE a.session_id = q.session_id AND a.audience IN ({audiences})))"
    )
    .replace("{n}", &n.to_string())
}

pub(crate) fn work(
    conn: Conn<'_>,
    channel: &str,
    now_ms: i64,
    scope: ChannelScope<'_>,
    limit: usize,
) -> Result<ChannelWork> {
    // Every post in doubt, due or not: while one is, nothing else may be posted.
    let in_doubt = due_rows(conn, channel, ChannelMessageState::Posting, false, i64::MAX, limit)?;
    let to_settle = due_rows(conn, channel, ChannelMessageState::Posted, true, now_ms, limit)?;
    let agents = scope.agents.map(|agents| serde_json::Value::from(agents.to_vec()).to_string());
    let audiences = scope.audiences.map(|audiences| serde_json::Value::from(audiences.to_vec()).to_string());
    // The agents and audiences are JSON arrays of names.
    let agent_in = conn.pick(
        "(?3 IS NULL OR q.agent IN (SELECT value FROM json_each(?3)))",
        "(CAST(?3 AS TEXT) IS NULL OR q.agent IN (SELECT json_array_elements_text(CAST(?3 AS TEXT)::json)))",
    );
    let ids: Vec<RequestId> = conn.query(
        &format!(
            "SELECT q.id FROM questions q
             LEFT JOIN channel_messages m ON m.channel = ?1 AND m.request_id = q.id
             WHERE q.status = 'pending' AND q.created_at <= ?2 AND {agent_in} AND {addressed}
               AND (m.request_id IS NULL OR (m.state = 'waiting' AND m.next_attempt_at <= ?4))
             ORDER BY q.created_at, q.id LIMIT ?5",
            addressed = addressed_to(conn, 6)
        ),
        &args![channel, scope.asked_by_ms, agents, now_ms, limit as i64, audiences],
        |row| parse("questions", "id", row.text(0)?),
    )?;
    let mut to_post = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(question) = questions::get(conn, id)? {
            to_post.push(question);
        }
    }
    // The next row to fall due, and the next pending question to come of age.
    let next_row: Option<i64> = conn.query_one(
        "SELECT min(next_attempt_at) FROM channel_messages m
             WHERE channel = ?1 AND next_attempt_at > ?2
               AND (state = 'posting'
                    OR (state = 'waiting' AND EXISTS (SELECT 1 FROM questions q WHERE q.id = m.request_id AND q.status = 'pending'))
                    OR (state = 'posted' AND EXISTS (SELECT 1 FROM questions q WHERE q.id = m.request_id AND q.status <> 'pending')))",
        &args![channel, now_ms],
        |row| row.get(0),
    )?;
    let next_question: Option<i64> = conn.query_one(
        &format!(
            "SELECT min(q.created_at) FROM questions q
             WHERE q.status = 'pending' AND q.created_at > ?2 AND {agent_in} AND {addressed}
               AND NOT EXISTS (SELECT 1 FROM channel_messages m WHERE m.channel = ?1 AND m.request_id = q.id)",
            addressed = addressed_to(conn, 4)
        ),
        &args![channel, scope.asked_by_ms, agents, audiences],
        |row| row.get(0),
    )?;
    let next_question = next_question.map(|at| at.saturating_add(scope.delay_ms));
    let next_due_ms = [next_row, next_question].into_iter().flatten().min();
    Ok(ChannelWork { in_doubt, to_post, to_settle, next_due_ms })
}

impl Tx<'_> {
    /// Records that a post of `request_id`'s message is about to be sent, with the channel's
    /// `mark`; false (and nothing written) when the question is no longer pending or its
    /// message is already posting or posted.
    pub fn begin_channel_post(&mut self, channel: &str, request_id: RequestId, mark: &str, at_ms: i64) -> Result<bool> {
        let changed = self.tx.execute("INSERT INTO channel_messages (channel, request_id, state, mark, next_attempt_at, created_at, updated_at)
                 SELECT ?1, ?2, 'posting', ?3, ?4, ?4, ?4 WHERE EXISTS (SELECT 1 FROM questions WHERE id = ?2 AND status = 'pending')
                 ON CONFLICT (channel, request_id) DO UPDATE SET state = 'posting', mark = excluded.mark, updated_at = excluded.updated_at
                 WHERE channel_messages.state = 'waiting'", &args![channel, request_id.to_string(), mark, at_ms])?;
        Ok(changed > 0)
    }

    /// Records where the message was posted.
    pub fn channel_posted(
        &mut self,
        channel: &str,
        request_id: RequestId,
        conversation: &str,
        message: &str,
        at_ms: i64,
    ) -> Result<()> {
        self.tx.execute(
            "UPDATE channel_messages SET state = 'posted', conversation = ?3, message = ?4, attempts = 0,
                   last_error = NULL, next_attempt_at = ?5, updated_at = ?5
                 WHERE channel = ?1 AND request_id = ?2 AND state IN ('posting', 'waiting')",
            &args![channel, request_id.to_string(), conversation, message, at_ms],
        )?;
        Ok(())
    }

    /// Records a failed attempt; the row goes to `state` (`Waiting` when nothing was posted for
    /// certain, `Posting` while a post stays in doubt, `Posted` when showing the outcome failed)
    /// and is tried again at `retry_at_ms`.
    pub fn channel_attempt_failed(
        &mut self,
        channel: &str,
        request_id: RequestId,
        state: ChannelMessageState,
        error: &str,
        retry_at_ms: i64,
        at_ms: i64,
    ) -> Result<()> {
        let error: String = error.chars().take(1000).collect();
        self.tx.execute(
            "UPDATE channel_messages SET state = ?3, attempts = attempts + 1, last_error = ?4,
                   next_attempt_at = ?5, updated_at = ?6
                 WHERE channel = ?1 AND request_id = ?2 AND state <> 'settled'",
            &args![channel, request_id.to_string(), state.as_str(), error, retry_at_ms, at_ms],
        )?;
        Ok(())
    }

    /// Records that the message shows how its question ended.
    pub fn channel_settled(&mut self, channel: &str, request_id: RequestId, at_ms: i64) -> Result<()> {
        self.tx.execute(
            "UPDATE channel_messages SET state = 'settled', last_error = NULL, updated_at = ?3
                 WHERE channel = ?1 AND request_id = ?2 AND state = 'posted'",
            &args![channel, request_id.to_string(), at_ms],
        )?;
        Ok(())
    }

    /// Records that `channel` does not show `request_id` at all: a row already settled, with an
    /// empty conversation and message (none was posted), so the question is neither offered for
    /// posting nor settled on it again.
    pub fn channel_pass_over(&mut self, channel: &str, request_id: RequestId, at_ms: i64) -> Result<()> {
        self.tx.execute(
            "INSERT INTO channel_messages
                   (channel, request_id, state, conversation, message, next_attempt_at, created_at, updated_at)
                 VALUES (?1, ?2, 'settled', '', '', ?3, ?3, ?3)
                 ON CONFLICT (channel, request_id) DO UPDATE SET state = 'settled', conversation = '', message = '',
                   updated_at = excluded.updated_at
                 WHERE channel_messages.state = 'waiting'",
            &args![channel, request_id.to_string(), at_ms],
        )?;
        Ok(())
    }

    /// Forgets a message that was never posted (its question ended first).
    pub fn channel_abandon(&mut self, channel: &str, request_id: RequestId) -> Result<()> {
        self.tx.execute(
            "DELETE FROM channel_messages WHERE channel = ?1 AND request_id = ?2 AND state IN ('waiting', 'posting')",
            &args![channel, request_id.to_string()],
        )?;
        Ok(())
    }
}

/// How many message rows `channel` has.
/// The names people's own messages on `channel` are kept under ("slack:<subject>") that still
/// have a message to settle once its question ends.
pub(crate) fn people_with_messages(conn: Conn<'_>, channel: &str) -> Result<Vec<String>> {
    conn.query(
        "SELECT DISTINCT channel FROM channel_messages WHERE substr(channel, 1, length(?1) + 1) = ?1 || ':'
             AND state = 'posted' ORDER BY channel",
        &args![channel],
        |row| row.get(0),
    )
}

pub(crate) fn count(conn: Conn<'_>, channel: &str) -> Result<i64> {
    conn.query_one("SELECT count(*) FROM channel_messages WHERE channel = ?1", &args![channel], |row| row.get(0))
}
