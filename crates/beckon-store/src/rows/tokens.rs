//! Tokens for agents on other machines: the one to create, and the token as stored. The secret
//! itself is never here, only its SHA-256. What a token may do ([`TokenKind`]) is beckon-api's
//! (the wire contract).

use beckon_api::TokenKind;
use beckon_core::Audience;

/// A token's row id: stable for its whole life, where its name may be reused once it is
/// revoked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TokenId(pub i64);

impl std::fmt::Display for TokenId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A token to create.
#[derive(Clone, PartialEq, Eq)]
pub struct NewToken {
    /// The name it is known by; unique among live tokens.
    pub name: String,
    /// What it may do.
    pub kind: TokenKind,
    /// The SHA-256 of its secret.
    pub secret_hash: [u8; 32],
    /// The person or group it asks for, on a team server; the person's own without one.
    pub owner: Option<Audience>,
    /// When (Unix ms).
    pub at_ms: i64,
}

impl std::fmt::Debug for NewToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The hash stands for the secret in lookups: kept out of logs all the same.
        f.debug_struct("NewToken").field("name", &self.name).field("kind", &self.kind).finish_non_exhaustive()
    }
}

/// A token as stored.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenRecord {
    /// Its id.
    pub id: TokenId,
    /// Its name.
    pub name: String,
    /// What it may do.
    pub kind: TokenKind,
    /// The SHA-256 of its secret.
    pub secret_hash: [u8; 32],
    /// The person or group it asks for, on a team server; the person's own without one.
    pub owner: Option<Audience>,
    /// When it was made (Unix ms).
    pub created_at_ms: i64,
    /// When a request last carried it, to the minute (Unix ms).
    pub last_used_at_ms: Option<i64>,
    /// When it was revoked (Unix ms); live while `None`.
    pub revoked_at_ms: Option<i64>,
}

impl std::fmt::Debug for TokenRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenRecord")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("owner", &self.owner)
            .field("created_at_ms", &self.created_at_ms)
            .field("last_used_at_ms", &self.last_used_at_ms)
            .field("revoked_at_ms", &self.revoked_at_ms)
            .finish_non_exhaustive()
    }
}
