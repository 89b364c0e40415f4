//! A team inbox's event stream (`GET /v1/events`, server-sent events), read event by event.
//! Each is kept as the JSON text it came as — a window applies it as the desktop's own events
//! (the same `LiveEvent` shape) — with its kind typed, and what the app itself acts on read out
//! typed. An event of a kind this client does not know (a newer server's) is passed over: the
//! app acts on none of those.

use beckon_api::{EventKind, PendingQuestion};
use beckon_core::{RequestId, SessionId};
use serde::Deserialize;

use crate::client::{ClientError, ClientResult};

/// The largest event read; a bigger one ends the stream (the caller reconnects from the last seq).
const EVENT_MAX_BYTES: usize = 8 * 1024 * 1024;

/// The events of one stream, in order.
#[derive(Debug)]
pub struct Events {
    response: reqwest::Response,
    buffer: Vec<u8>,
}

impl Events {
    pub(crate) fn new(response: reqwest::Response) -> Events {
        Events { response, buffer: Vec::new() }
    }

    /// The next event; `None` when the server ended the stream.
    pub async fn next(&mut self) -> ClientResult<Option<RemoteEvent>> {
        loop {
            if let Some(end) = block_end(&self.buffer) {
                let block: Vec<u8> = self.buffer.drain(..end).collect();
                if let Some(event) = parse(&block)? {
                    return Ok(Some(event));
                }
                continue;
            }
            if self.buffer.len() > EVENT_MAX_BYTES {
                return Err(ClientError::TooLarge { url: self.response.url().to_string(), limit: EVENT_MAX_BYTES });
            }
            let url = self.response.url().to_string();
            match self.response.chunk().await.map_err(|err| super::transport(&url, &err))? {
                Some(chunk) => self.buffer.extend_from_slice(&chunk),
                None => return Ok(None),
            }
        }
    }
}

/// Where the first whole event block (up to and including its blank line) ends.
fn block_end(buffer: &[u8]) -> Option<usize> {
    let text = buffer;
    (0..text.len()).find_map(|i| {
        if text[i..].starts_with(b"\n\n") {
            Some(i + 2)
        } else if text[i..].starts_with(b"\r\n\r\n") {
            Some(i + 4)
        } else {
            None
        }
    })
}

/// One event of a team inbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteEvent {
    /// Its seq on the team server.
    pub seq: i64,
    /// Its kind: the `kind` its `LiveEvent` is tagged with.
    pub kind: EventKind,
    /// The event as JSON (a `LiveEvent`).
    pub data: String,
}

#[derive(Deserialize)]
struct Pending {
    question: PendingQuestion,
}

#[derive(Deserialize)]
struct About {
    session_id: Option<SessionId>,
    request_id: Option<RequestId>,
}

impl RemoteEvent {
    /// The question now waiting, for a [`EventKind::QuestionPending`] event.
    pub fn pending(&self) -> Option<PendingQuestion> {
        match self.kind {
            EventKind::QuestionPending => serde_json::from_str::<Pending>(&self.data).ok().map(|p| p.question),
            EventKind::SessionStarted
            | EventKind::SessionStatus
            | EventKind::MessageAppended
            | EventKind::QuestionResolved
            | EventKind::SessionResumed
            | EventKind::SessionDeleted => None,
        }
    }

    /// The question settled, for a [`EventKind::QuestionResolved`] event.
    pub fn resolved(&self) -> Option<RequestId> {
        match self.kind {
            EventKind::QuestionResolved => serde_json::from_str::<About>(&self.data).ok()?.request_id,
            EventKind::SessionStarted
            | EventKind::SessionStatus
            | EventKind::MessageAppended
            | EventKind::QuestionPending
            | EventKind::SessionResumed
            | EventKind::SessionDeleted => None,
        }
    }

    /// The session the event concerns, when it names one.
    pub fn session_id(&self) -> Option<SessionId> {
        match self.pending() {
            Some(question) => Some(question.session_id),
            None => serde_json::from_str::<About>(&self.data).ok()?.session_id,
        }
    }
}

/// The event a block carries; none for a comment (keep-alive), a block without data, or an
/// event of a kind this client does not know.
fn parse(block: &[u8]) -> ClientResult<Option<RemoteEvent>> {
    let text = String::from_utf8_lossy(block);
    let field = |name: &str| {
        text.lines()
            .filter_map(move |line| line.strip_prefix(name))
            .map(|value| value.strip_prefix(' ').unwrap_or(value).to_owned())
            .collect::<Vec<_>>()
    };
    let data = field("data:");
    if data.is_empty() {
        return Ok(None);
    }
    let unreadable = |what: &str| ClientError::Transport {
        url: "a team server's event stream".into(),
        detail: format!("an event without {what}"),
    };
    let seq = field("id:").first().and_then(|id| id.trim().parse().ok()).ok_or_else(|| unreadable("an id"))?;
    let kind = field("event:").first().cloned().ok_or_else(|| unreadable("a kind"))?;
    Ok(EventKind::parse(kind.trim()).map(|kind| RemoteEvent { seq, kind, data: data.join("\n") }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_end_at_a_blank_line_and_comments_carry_nothing() {
        assert_eq!(block_end(b"id: 1\ndata: {}\n\nid: 2"), Some("id: 1\ndata: {}\n\n".len()));
        assert_eq!(block_end(b"id: 1\r\ndata: {}\r\n\r\n"), Some("id: 1\r\ndata: {}\r\n\r\n".len()));
        assert_eq!(block_end(b"id: 1\ndata: {}\n"), None);
        assert!(parse(b": keep-alive\n\n").unwrap().is_none());
        assert!(parse(b"data: {}\n\n").is_err(), "no id");
        let event = parse(b"id: 7\nevent: question_resolved\ndata: {\"request_id\": null}\n\n").unwrap().unwrap();
        assert_eq!((event.seq, event.kind), (7, EventKind::QuestionResolved));
        assert_eq!(event.resolved(), None);
        assert!(parse(b"id: 8\nevent: session_renamed\ndata: {}\n\n").unwrap().is_none(), "a newer server's kind");
    }
}
