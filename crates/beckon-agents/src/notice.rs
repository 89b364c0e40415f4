//! A notice about an agent's session: what a hook event changes about it.

use serde_json::Value;

/// What a hook event changes about the session's notice.
#[derive(Debug, Clone, PartialEq)]
pub enum NoticeChange {
    /// Show (or replace) the notice under `key`: the body of `PUT /v1/notices/{key}`.
    Post {
        /// The session's notice key.
        key: String,
        /// `agent`, `message` and `project`.
        body: Value,
    },
    /// The session went on: take its notice away.
    Clear {
        /// The session's notice key.
        key: String,
    },
}
