//! The `messages` table: each session's ordered timeline (user, assistant, tool_use,
//! tool_result, question, answer), so questions and answers stay in the history.

use beckon_core::SessionId;
use beckon_core::conversation::{Message, ToolResult};
use serde_json::value::RawValue;

use crate::codec::{JSON_MAX_BYTES, from_json, to_raw};
use crate::error::{Error, Result};
use crate::event_payload::{Appended, EventPayload};
use crate::rows::TimelineEntry;
use crate::sql::{Conn, Value, args};
use crate::store::Tx;

/// The timeline kind of a message, as stored.
pub(crate) fn kind(message: &Message) -> &'static str {
    match message {
        Message::User { .. } => "user",
        Message::Assistant { .. } => "assistant",
        Message::ToolUse { .. } => "tool_use",
        Message::ToolResult { .. } => "tool_result",
        Message::Question { .. } => "question",
        Message::Answer { .. } => "answer",
    }
}

impl Tx<'_> {
    /// Appends entries to a session's timeline, in order, each recorded as an event.
    pub fn append_messages(&mut self, session_id: SessionId, messages: &[Message], at_ms: i64) -> Result<()> {
        if messages.is_empty() {
            return Ok(());
        }
        let entries = messages
            .iter()
            .map(|message| Ok((kind(message), to_raw("message", message, JSON_MAX_BYTES)?)))
            .collect::<Result<Vec<_>>>()?;
        self.append_entries(session_id, &entries, at_ms)
    }

    /// Appends tool results to a session's timeline.
    pub fn append_tool_results(&mut self, session_id: SessionId, results: &[ToolResult], at_ms: i64) -> Result<()> {
        let messages: Vec<Message> = results.iter().cloned().map(|result| Message::ToolResult { result }).collect();
        self.append_messages(session_id, &messages, at_ms)
    }

    /// Appends already-serialised messages of known kinds to an existing session.
    pub(crate) fn append_entries(
        &mut self,
        session_id: SessionId,
        entries: &[(&'static str, Box<RawValue>)],
        at_ms: i64,
    ) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let session = session_id.to_string();
        // The entries take the next positions in the statement that checks the session is
        // there: one round trip for all of them.
        let mut params = args![session, at_ms].to_vec();
        for (kind, body) in entries {
            params.extend([Value::Text(kind), Value::Text(body.get())]);
        }
        let positions: Vec<i64> = self.tx.query(&append_sql(entries.len()), &params, |row| row.get(0))?;
        let Some(first) = positions.iter().min().copied() else { return Err(Error::SessionNotFound(session_id)) };
        for (position, (_, body)) in (first..).zip(entries) {
            self.appended(session_id, position, body, at_ms)?;
        }
        Ok(())
    }

    fn appended(&mut self, session_id: SessionId, position: i64, message: &RawValue, at_ms: i64) -> Result<()> {
        let appended = Appended { position, message: message.to_owned() };
        self.append_event(&EventPayload::MessageAppended(appended), Some(session_id), None, at_ms)
    }
}

/// The insert of `count` timeline entries after a session's last: parameters 1 and 2 are the
/// session and the time, then each entry's kind and body.
fn append_sql(count: usize) -> String {
    let entries = (0..count)
        .map(|i| {
            format!("SELECT {} AS n, CAST(?{} AS TEXT) AS kind, CAST(?{} AS TEXT) AS body", i + 1, 2 * i + 3, 2 * i + 4)
        })
        .collect::<Vec<_>>()
        .join(" UNION ALL ");
    format!(
        "INSERT INTO messages (session_id, position, kind, body, created_at)
         SELECT s.id, (SELECT coalesce(max(position), 0) FROM messages WHERE session_id = ?1) + e.n, e.kind, e.body,
                CAST(?2 AS BIGINT)
         FROM sessions s, ({entries}) e
         WHERE s.id = ?1
         RETURNING position"
    )
}

/// A session's whole timeline, in order.
pub(crate) fn timeline(conn: Conn<'_>, session_id: SessionId) -> Result<Vec<TimelineEntry>> {
    conn.query(
        "SELECT position, body, created_at FROM messages WHERE session_id = ?1 ORDER BY position",
        &args![session_id.to_string()],
        |row| {
            Ok(TimelineEntry {
                position: row.get(0)?,
                message: from_json("messages", "body", row.text(1)?)?,
                at_ms: row.get(2)?,
            })
        },
    )
}
