//! An agent session: the one to create, which to list, and its title. The session as stored,
//! in lists and in pages is beckon-api's (the wire contract).

use beckon_api::SessionCursor;
use beckon_core::conversation::{SessionStatus, State};
use beckon_core::{SessionId, SessionOrigin};
use serde_json::Value;

/// Longest session title kept (the first words of the first message).
pub const TITLE_MAX_CHARS: usize = 120;

/// A session to create.
#[derive(Debug, Clone)]
pub struct NewSession {
    /// Its id.
    pub id: SessionId,
    /// The agent that runs it (or, for external sessions, the agent name given).
    pub agent: String,
    /// How it came to exist.
    pub origin: SessionOrigin,
    /// The session that spawned it.
    pub parent: Option<SessionId>,
    /// An external agent's key grouping its questions into one session.
    pub external_key: Option<String>,
    /// A short title for lists.
    pub title: String,
    /// Its initial state.
    pub state: State,
    /// A webhook's payload, kept as given.
    pub payload: Option<Value>,
    /// When (Unix ms).
    pub at_ms: i64,
}

/// Which sessions to list: newest first.
#[derive(Debug, Clone, Default)]
pub struct SessionFilter {
    /// Only sessions with this status.
    pub status: Option<SessionStatus>,
    /// Only top-level sessions (no sub-agents).
    pub top_level_only: bool,
    /// Continue after this cursor.
    pub after: Option<SessionCursor>,
    /// At most this many (clamped to 1..=500).
    pub limit: usize,
}

/// Cuts a text to a title: first line, at most [`TITLE_MAX_CHARS`] characters.
pub fn title_from(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
    let mut title: String = line.chars().take(TITLE_MAX_CHARS).collect();
    if line.chars().count() > TITLE_MAX_CHARS {
        title.push('…');
    }
    title
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_take_the_first_line() {
        assert_eq!(title_from("\n  Write a poem about rain  \nmore"), "Write a poem about rain");
        let long = "x".repeat(TITLE_MAX_CHARS + 5);
        assert_eq!(title_from(&long).chars().count(), TITLE_MAX_CHARS + 1);
    }
}
