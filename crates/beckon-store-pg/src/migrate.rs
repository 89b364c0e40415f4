//! The schema, one migration per version, applied in one transaction under an advisory lock:
//! two replicas starting at once migrate once, and a crash mid-way leaves the old version whole.

use postgres::Client;

use crate::error::{Error, Result};

/// The migrations, in order; version N is the first N applied.
const MIGRATIONS: &[&str] =
    &[include_str!("../migrations/001_events.sql"), include_str!("../migrations/002_leases.sql")];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Held while migrating (any fixed number; "beckon" in ASCII).
const MIGRATION_LOCK: i64 = 0x6265_636b_6f6e;

/// Brings the database's schema to [`SCHEMA_VERSION`]; returns the version it found. A schema
/// from a newer Beckon is refused untouched.
pub fn migrate(client: &mut Client) -> Result<i64> {
    let mut tx = client.transaction()?;
    // Transaction-scoped: released by the commit or the rollback, whichever comes.
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS beckon_schema (version BIGINT NOT NULL)")?;
    let found: i64 = match tx.query_opt("SELECT version FROM beckon_schema", &[])? {
        Some(row) => row.get(0),
        None => {
            tx.execute("INSERT INTO beckon_schema (version) VALUES (0)", &[])?;
            0
        }
    };
    if found > SCHEMA_VERSION {
        return Err(Error::NewerSchema { found, supported: SCHEMA_VERSION });
    }
    for migration in MIGRATIONS.iter().skip(usize::try_from(found).unwrap_or(0)) {
        tx.batch_execute(migration)?;
    }
    tx.execute("UPDATE beckon_schema SET version = $1", &[&SCHEMA_VERSION])?;
    tx.commit()?;
    Ok(found)
}
