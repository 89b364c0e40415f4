//! The `messages` table: each session's ordered timeline (user, assistant, tool_use,
//! tool_result, question, answer), so questions and answers stay in the history.

use beckon_core::SessionId;
use beckon_core::conversation::{Message, ToolResult};
use serde_json::value::RawValue;

use crate::codec::{JSON_MAX_BYTES, from_json, to_raw};
use crate::error::{Error, Result};
use crate::event_payload::{Appended, EventPayload};
use crate::rows::TimelineEntry;
use crate::sql::{Conn, args};
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
        let session = session_id.to_string();
        let Some(((first_kind, first_body), rest)) = entries.split_first() else { return Ok(()) };
        // The first entry takes the next position in the same statement that checks the session
        // is there: one round trip instead of three on PostgreSQL.
        let first = self.tx.query_opt(
            "INSERT INTO messages (session_id, position, kind, body, created_at)
             SELECT id, coalesce((SELECT max(position) FROM messages WHERE session_id = ?1), 0) + 1, ?2, ?3,
                    CAST(?4 AS BIGINT)
             FROM sessions WHERE id = ?1
             RETURNING position",
            &args![session, first_kind, first_body.get(), at_ms],
            |row| row.get::<i64>(0),
        )?;
        let Some(mut position) = first else { return Err(Error::SessionNotFound(session_id)) };
        self.appended(session_id, position, first_body, at_ms)?;
        for (kind, body) in rest {
            position += 1;
            self.tx.execute(
                "INSERT INTO messages (session_id, position, kind, body, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                &args![session, position, kind, body.get(), at_ms],
            )?;
            self.appended(session_id, position, body, at_ms)?;
        }
        Ok(())
    }

    fn appended(&mut self, session_id: SessionId, position: i64, message: &RawValue, at_ms: i64) -> Result<()> {
        let appended = Appended { position, message: message.to_owned() };
        self.append_event(&EventPayload::MessageAppended(appended), Some(session_id), None, at_ms)
    }
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
