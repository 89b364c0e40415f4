//! The `tokens` table (tokens for agents on other machines, by the hash of their secret) and
//! `question_tokens` (which token asked a question).

use beckon_core::{Audience, RequestId};

use crate::codec::name;
use crate::error::{Error, Result};
use crate::rows::{NewToken, TokenId, TokenKind, TokenRecord};
use crate::sql::{Conn, Row, args, is_constraint};
use crate::store::Tx;

const COLUMNS: &str = "id, name, kind, secret_hash, created_at, last_used_at, revoked_at, owner";

impl Tx<'_> {
    /// Stores a new token. A live token with the same name, or the same secret, is refused
    /// with [`Error::TokenNameTaken`] (a secret is random, so only a name can clash in truth).
    pub fn create_token(&mut self, token: &NewToken) -> Result<TokenRecord> {
        let owner = token.owner.as_ref().map(ToString::to_string);
        let inserted = self.tx.guarded(|| {
            self.tx.query_one(
                "INSERT INTO tokens (name, kind, secret_hash, created_at, owner) VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
                &args![token.name, token.kind.as_str(), token.secret_hash, token.at_ms, owner],
                |row| row.get::<i64>(0),
            )
        });
        let id = match inserted {
            Ok(id) => id,
            Err(err) if is_constraint(&err) => return Err(Error::TokenNameTaken(token.name.clone())),
            Err(err) => return Err(err),
        };
        Ok(TokenRecord {
            id: TokenId(id),
            name: token.name.clone(),
            kind: token.kind,
            secret_hash: token.secret_hash,
            owner: token.owner.clone(),
            created_at_ms: token.at_ms,
            last_used_at_ms: None,
            revoked_at_ms: None,
        })
    }

    /// Revokes the live token named `name`; the token as revoked, or `None` when no live token
    /// has that name.
    pub fn revoke_token(&mut self, name: &str, at_ms: i64) -> Result<Option<TokenRecord>> {
        let Some(mut token) = live_by_name(self.tx, name)? else { return Ok(None) };
        self.tx.execute("UPDATE tokens SET revoked_at = ?2 WHERE id = ?1", &args![token.id.0, at_ms])?;
        token.revoked_at_ms = Some(at_ms);
        Ok(Some(token))
    }

    /// Records that a request carried `token` at `at_ms`.
    pub fn token_used(&mut self, token: TokenId, at_ms: i64) -> Result<()> {
        let latest = self.tx.pick("max(coalesce(last_used_at, 0), ?2)", "greatest(coalesce(last_used_at, 0), ?2)");
        self.tx.execute(&format!("UPDATE tokens SET last_used_at = {latest} WHERE id = ?1"), &args![token.0, at_ms])?;
        Ok(())
    }

    /// Records who asked question `request` (in the transaction that stores it): a signed-in
    /// person by `subject`, and how the asker is shown.
    pub fn mark_asker(&mut self, request: RequestId, subject: Option<&str>, shown: &str) -> Result<()> {
        self.tx.execute(
            "UPDATE questions SET asked_by_subject = ?2, asked_by = ?3 WHERE id = ?1",
            &args![request.to_string(), subject, shown],
        )?;
        Ok(())
    }

    /// Records that `token` asked question `request` (in the transaction that stores it).
    pub fn mark_asked_by(&mut self, request: RequestId, token: TokenId) -> Result<()> {
        self.tx.execute(
            "INSERT INTO question_tokens (request_id, token_id) VALUES (?1, ?2)",
            &args![request.to_string(), token.0],
        )?;
        Ok(())
    }
}

/// An audience as stored, or the column's corruption named.
pub(crate) fn audience(table: &'static str, column: &'static str, text: &str) -> Result<Audience> {
    Audience::parse(text).map_err(|detail| Error::InvalidData { table, column, detail })
}

fn read_row(row: &Row<'_>) -> Result<TokenRecord> {
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
        kind: name("tokens", "kind", row.text(2)?, TokenKind::parse)?,
        secret_hash,
        created_at_ms: row.get(4)?,
        last_used_at_ms: row.get(5)?,
        revoked_at_ms: row.get(6)?,
        owner: match row.get::<Option<String>>(7)? {
            Some(text) => Some(audience("tokens", "owner", &text)?),
            None => None,
        },
    };
    Ok(record)
}

fn live_by_name(conn: Conn<'_>, token_name: &str) -> Result<Option<TokenRecord>> {
    conn.query_opt(
        &format!("SELECT {COLUMNS} FROM tokens WHERE name = ?1 AND revoked_at IS NULL"),
        &args![token_name],
        read_row,
    )
}

/// Every token, newest first; revoked ones too when `revoked` is set.
pub(crate) fn list(conn: Conn<'_>, revoked: bool) -> Result<Vec<TokenRecord>> {
    let sql = if revoked {
        format!("SELECT {COLUMNS} FROM tokens ORDER BY created_at DESC, id DESC")
    } else {
        format!("SELECT {COLUMNS} FROM tokens WHERE revoked_at IS NULL ORDER BY created_at DESC, id DESC")
    };
    conn.query(&sql, &[], read_row)
}

/// The token that asked question `request`, if a token did.
/// The subject of the signed-in person who asked question `request`, if one did.
pub(crate) fn asking_person(conn: Conn<'_>, request: RequestId) -> Result<Option<String>> {
    let found =
        conn.query_opt("SELECT asked_by_subject FROM questions WHERE id = ?1", &args![request.to_string()], |row| {
            row.get::<Option<String>>(0)
        })?;
    Ok(found.flatten())
}

pub(crate) fn asked_by(conn: Conn<'_>, request: RequestId) -> Result<Option<TokenId>> {
    Ok(conn
        .query_opt("SELECT token_id FROM question_tokens WHERE request_id = ?1", &args![request.to_string()], |row| {
            row.get(0)
        })?
        .map(TokenId))
}
