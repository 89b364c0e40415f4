//! The `tokens` table (tokens for agents on other machines, by the hash of their secret) and
//! `question_tokens` (which token asked a question).

use beckon_core::RequestId;
use rusqlite::{Connection, ErrorCode, OptionalExtension, Row, params};

use crate::codec::name;
use crate::error::{Error, Result};
use crate::rows::{NewToken, TokenId, TokenKind, TokenRecord};
use crate::store::Tx;

const COLUMNS: &str = "id, name, kind, secret_hash, created_at, last_used_at, revoked_at";

impl Tx<'_> {
    /// Stores a new token. A live token with the same name, or the same secret, is refused
    /// with [`Error::TokenNameTaken`] (a secret is random, so only a name can clash in truth).
    pub fn create_token(&mut self, token: &NewToken) -> Result<TokenRecord> {
        let inserted = self
            .tx
            .prepare_cached("INSERT INTO tokens (name, kind, secret_hash, created_at) VALUES (?1, ?2, ?3, ?4)")?
            .execute(params![token.name, token.kind.as_str(), &token.secret_hash[..], token.at_ms]);
        match inserted {
            Ok(_) => {}
            Err(rusqlite::Error::SqliteFailure(failure, _)) if failure.code == ErrorCode::ConstraintViolation => {
                return Err(Error::TokenNameTaken(token.name.clone()));
            }
            Err(err) => return Err(err.into()),
        }
        Ok(TokenRecord {
            id: TokenId(self.tx.last_insert_rowid()),
            name: token.name.clone(),
            kind: token.kind,
            secret_hash: token.secret_hash,
            created_at_ms: token.at_ms,
            last_used_at_ms: None,
            revoked_at_ms: None,
        })
    }

    /// Revokes the live token named `name`; the token as revoked, or `None` when no live token
    /// has that name.
    pub fn revoke_token(&mut self, name: &str, at_ms: i64) -> Result<Option<TokenRecord>> {
        let Some(mut token) = live_by_name(self.tx, name)? else { return Ok(None) };
        self.tx
            .prepare_cached("UPDATE tokens SET revoked_at = ?2 WHERE id = ?1")?
            .execute(params![token.id.0, at_ms])?;
        token.revoked_at_ms = Some(at_ms);
        Ok(Some(token))
    }

    /// Records that a request carried `token` at `at_ms`.
    pub fn token_used(&mut self, token: TokenId, at_ms: i64) -> Result<()> {
        self.tx
            .prepare_cached("UPDATE tokens SET last_used_at = max(coalesce(last_used_at, 0), ?2) WHERE id = ?1")?
            .execute(params![token.0, at_ms])?;
        Ok(())
    }

    /// Records that `token` asked question `request` (in the transaction that stores it).
    pub fn mark_asked_by(&mut self, request: RequestId, token: TokenId) -> Result<()> {
        self.tx
            .prepare_cached("INSERT INTO question_tokens (request_id, token_id) VALUES (?1, ?2)")?
            .execute(params![request.to_string(), token.0])?;
        Ok(())
    }
}

fn read_row(row: &Row<'_>) -> rusqlite::Result<(TokenRecord, String)> {
    let hash: Vec<u8> = row.get(3)?;
    let mut secret_hash = [0u8; 32];
    // The table's CHECK keeps every hash 32 bytes long; a shorter one reads as zeros and
    // matches no secret.
    if hash.len() == 32 {
        secret_hash.copy_from_slice(&hash);
    }
    let record = TokenRecord {
        id: TokenId(row.get(0)?),
        name: row.get(1)?,
        kind: TokenKind::AskOnly,
        secret_hash,
        created_at_ms: row.get(4)?,
        last_used_at_ms: row.get(5)?,
        revoked_at_ms: row.get(6)?,
    };
    Ok((record, row.get(2)?))
}

fn finish((mut record, kind): (TokenRecord, String)) -> Result<TokenRecord> {
    record.kind = name("tokens", "kind", &kind, TokenKind::parse)?;
    Ok(record)
}

fn live_by_name(conn: &Connection, token_name: &str) -> Result<Option<TokenRecord>> {
    conn.prepare_cached(&format!("SELECT {COLUMNS} FROM tokens WHERE name = ?1 AND revoked_at IS NULL"))?
        .query_row([token_name], read_row)
        .optional()?
        .map(finish)
        .transpose()
}

/// Every token, newest first; revoked ones too when `revoked` is set.
pub(crate) fn list(conn: &Connection, revoked: bool) -> Result<Vec<TokenRecord>> {
    let sql = if revoked {
        format!("SELECT {COLUMNS} FROM tokens ORDER BY created_at DESC, id DESC")
    } else {
        format!("SELECT {COLUMNS} FROM tokens WHERE revoked_at IS NULL ORDER BY created_at DESC, id DESC")
    };
    let mut statement = conn.prepare_cached(&sql)?;
    let rows = statement.query_map([], read_row)?;
    rows.map(|row| finish(row?)).collect()
}

/// The token that asked question `request`, if a token did.
pub(crate) fn asked_by(conn: &Connection, request: RequestId) -> Result<Option<TokenId>> {
    Ok(conn
        .prepare_cached("SELECT token_id FROM question_tokens WHERE request_id = ?1")?
        .query_row([request.to_string()], |row| row.get(0))
        .optional()?
        .map(TokenId))
}
