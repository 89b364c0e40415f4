//! The `settings` table: small values the app keeps with its data (install secret, …).

use crate::error::Result;
use crate::sql::{Conn, args};
use crate::store::Tx;

impl Tx<'_> {
    /// Sets a setting.
    pub fn set_setting(&mut self, key: &str, value: &str) -> Result<()> {
        self.tx.execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            &args![key, value],
        )?;
        Ok(())
    }

    /// Sets a setting unless it has a value; whether this set it (of writers racing, one does).
    pub fn set_setting_if_absent(&mut self, key: &str, value: &str) -> Result<bool> {
        let set = self.tx.execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO NOTHING",
            &args![key, value],
        )?;
        Ok(set == 1)
    }
}

pub(crate) fn get(conn: Conn<'_>, key: &str) -> Result<Option<String>> {
    conn.query_opt("SELECT value FROM settings WHERE key = ?1", &args![key], |row| row.get(0))
}
