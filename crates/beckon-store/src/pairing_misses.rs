//! The `pairing_misses` table: wrong pairing codes sent to a channel's bot on a team server, one
//! row each (the channel, the account that sent it, when), so that how many came lately — from
//! one account, or to the whole channel — is the same for every replica that reads it.

use crate::error::Result;
use crate::sql::{Conn, args};
use crate::store::Tx;

impl Tx<'_> {
    /// Records that `account` sent `channel` a code that paired nothing, at `at_ms`, and forgets
    /// the channel's misses from before `forget_before_ms` (older than any window they are
    /// counted in), so the table holds no more than the windows' worth.
    pub fn record_pairing_miss(
        &mut self,
        channel: &str,
        account: &str,
        at_ms: i64,
        forget_before_ms: i64,
    ) -> Result<()> {
        self.tx
            .execute("DELETE FROM pairing_misses WHERE channel = ?1 AND at < ?2", &args![channel, forget_before_ms])?;
        self.tx.execute(
            "INSERT INTO pairing_misses (channel, account, at) VALUES (?1, ?2, ?3)",
            &args![channel, account, at_ms],
        )?;
        Ok(())
    }
}

/// How many wrong codes came to `channel` at or after `since_ms`: from `account`, or from
/// every account when `None`.
pub(crate) fn count(conn: Conn<'_>, channel: &str, account: Option<&str>, since_ms: i64) -> Result<i64> {
    match account {
        Some(account) => conn.query_one(
            "SELECT count(*) FROM pairing_misses WHERE channel = ?1 AND account = ?2 AND at >= ?3",
            &args![channel, account, since_ms],
            |row| row.get(0),
        ),
        None => conn.query_one(
            "SELECT count(*) FROM pairing_misses WHERE channel = ?1 AND at >= ?2",
            &args![channel, since_ms],
            |row| row.get(0),
        ),
    }
}
