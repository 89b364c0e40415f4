//! Tokens as front ends show them: never the secret, which is shown once, when made.

use beckon_store::{TokenKind, TokenRecord};
use serde::{Deserialize, Serialize};

/// A token for agents on another machine, as listed.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenView {
    /// The name it is known by (unique among live tokens).
    pub name: String,
    /// What it may do.
    pub kind: TokenKind,
    /// When it was made (Unix ms).
    pub created_at_ms: i64,
    /// When a request last carried it, to the minute (Unix ms); `None` if none has.
    pub last_used_at_ms: Option<i64>,
    /// Whom it asks for on a team server (`person:<subject>` or `group:<name>`); `None` for the
    /// person's own.
    #[serde(default)]
    pub owner: Option<String>,
}

impl From<&TokenRecord> for TokenView {
    fn from(record: &TokenRecord) -> Self {
        TokenView {
            name: record.name.clone(),
            kind: record.kind,
            created_at_ms: record.created_at_ms,
            last_used_at_ms: record.last_used_at_ms,
            owner: record.owner.as_ref().map(ToString::to_string),
        }
    }
}

/// A token just made, with its secret: the only time the secret is seen.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatedToken {
    /// The token.
    pub token: TokenView,
    /// The secret a client sends as its bearer token (`bkn_ask_…`).
    pub secret: String,
}

impl std::fmt::Debug for CreatedToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secret is a credential: never in logs or panics.
        f.debug_struct("CreatedToken").field("token", &self.token).field("secret", &"<redacted>").finish()
    }
}
