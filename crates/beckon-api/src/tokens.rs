//! Tokens for agents on other machines, as front ends show them: what a token may do, and the
//! token as listed. Never the secret, which is shown once, when made.

use serde::{Deserialize, Serialize};

/// What a token lets its holder do.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    /// Ask the person, and read or withdraw only the questions it asked itself; never answer,
    /// allow, list or watch anything.
    AskOnly,
}

impl TokenKind {
    const ALL: [TokenKind; 1] = [TokenKind::AskOnly];

    /// The snake_case name, as stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenKind::AskOnly => "ask_only",
        }
    }

    /// Reads the snake_case name.
    pub fn parse(text: &str) -> Option<TokenKind> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == text)
    }
}

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
