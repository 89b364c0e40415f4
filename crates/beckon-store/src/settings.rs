//! The `settings` table: small values the app keeps with its data (install secret, …).

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::store::Tx;

impl Tx<'_> {
    /// Sets a setting.
    pub fn set_setting(&mut self, key: &str, value: &str) -> Result<()> {
        self.tx.prepare_cached("INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value")?.execute(
            params![key, value],
        )?;
        Ok(())
    }
}

pub(crate) fn get(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT value FROM settings WHERE key = ?1")?
        .query_row([key], |row| row.get(0))
        .optional()?)
}
