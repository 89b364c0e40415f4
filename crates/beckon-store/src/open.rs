//! Opening a database file: refusing what is not ours or is newer, setting the per-connection
//! PRAGMAs, and bringing the schema up to date.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};
use rusqlite_migration::{M, Migrations};

use crate::error::{Error, Result};
use crate::store::Store;

/// The schema, one migration per version; the version lives in `PRAGMA user_version`.
const MIGRATION_STEPS: &[M<'static>] = &[
    M::up(include_str!("../migrations/001_initial.sql")),
    M::up(include_str!("../migrations/002_channels.sql")),
    M::up(include_str!("../migrations/003_tokens.sql")),
    M::up(include_str!("../migrations/004_triage.sql")),
    M::up(include_str!("../migrations/005_inbox_lines.sql")),
    M::up(include_str!("../migrations/006_sign_in.sql")),
    M::up(include_str!("../migrations/007_audiences.sql")),
    M::up(include_str!("../migrations/008_channel_people.sql")),
    M::up(include_str!("../migrations/009_askers_and_revocation.sql")),
    M::up(include_str!("../migrations/010_pairing_misses.sql")),
    M::up(include_str!("../migrations/011_push.sql")),
];
pub(crate) const MIGRATIONS: Migrations<'static> = Migrations::from_slice(MIGRATION_STEPS);

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 11;

const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// Prepared statements kept per connection: more than the store has, so none is parsed twice
/// (rusqlite keeps 16 by default, fewer than one pause-and-resume cycle uses).
const STATEMENT_CACHE: usize = 128;

impl Store {
    /// Opens (creating if needed) the database at `path`, with its folders.
    ///
    /// A file that is not an SQLite database, is damaged, or was written by a newer Beckon is
    /// refused with an error naming it, and is never modified.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref().to_path_buf();
        let open_error = |detail: String| Error::Open { path: path.clone(), detail };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|err| open_error(format!("cannot create {}: {err}", dir.display())))?;
        }
        check_header(&path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_with_flags(&path, flags).map_err(|err| classify(&path, err))?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(|err| classify(&path, err))?;
        let found: i64 =
            conn.pragma_query_value(None, "user_version", |row| row.get(0)).map_err(|err| classify(&path, err))?;
        if found > SCHEMA_VERSION {
            return Err(Error::NewerSchema { path, found, supported: SCHEMA_VERSION });
        }
        // Reading the schema catches damage beyond the header before anything is written.
        conn.query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get::<_, i64>(0))
            .map_err(|err| classify(&path, err))?;
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
            .map_err(|err| classify(&path, err))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::Open {
                path,
                detail: format!("the file system does not support WAL (journal mode {mode})"),
            });
        }
        configure(&conn).map_err(|err| classify(&path, err))?;
        MIGRATIONS
            .to_latest(&mut conn)
            .map_err(|err| Error::Migration { path: path.clone(), detail: err.to_string() })?;
        Ok(Store::from_connection(conn, Some(path)))
    }

    /// Opens an existing database at `path` for reading only, beside the app that may have it
    /// open for writing: nothing is created, migrated or written, and a database from a newer
    /// Beckon is refused. For tools that inspect a data folder (`beckon status --secret`).
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref().to_path_buf();
        if !path.is_file() {
            return Err(Error::Open {
                path,
                detail: "there is no database yet; start Beckon once to create it".into(),
            });
        }
        check_header(&path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&path, flags).map_err(|err| classify(&path, err))?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(|err| classify(&path, err))?;
        let found: i64 =
            conn.pragma_query_value(None, "user_version", |row| row.get(0)).map_err(|err| classify(&path, err))?;
        if found > SCHEMA_VERSION {
            return Err(Error::NewerSchema { path, found, supported: SCHEMA_VERSION });
        }
        if found < SCHEMA_VERSION {
            return Err(Error::Open {
                path,
                detail: format!(
                    "schema version {found} is older than this build's {SCHEMA_VERSION}; start Beckon once to upgrade it"
                ),
            });
        }
        Ok(Store::from_connection(conn, Some(path)))
    }

    /// A fresh database in memory, for tests.
    pub fn open_in_memory() -> Result<Store> {
        let mut conn = Connection::open_in_memory()?;
        configure(&conn)?;
        MIGRATIONS
            .to_latest(&mut conn)
            .map_err(|err| Error::Migration { path: PathBuf::from(":memory:"), detail: err.to_string() })?;
        Ok(Store::from_connection(conn, None))
    }
}

/// Per-connection settings: durable commits (an acknowledged answer survives a power cut),
/// enforced foreign keys, and waiting for other writers instead of failing.
fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.busy_timeout(BUSY_TIMEOUT)
}

/// Refuses an existing, non-empty file that does not start with SQLite's header.
fn check_header(path: &Path) -> Result<()> {
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(Error::Open { path: path.to_path_buf(), detail: err.to_string() }),
    };
    let mut header = [0u8; 16];
    let mut read = 0;
    while read < header.len() {
        match file.read(&mut header[read..]) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(err) => return Err(Error::Open { path: path.to_path_buf(), detail: err.to_string() }),
        }
    }
    if read == 0 || (read == header.len() && &header == SQLITE_HEADER) {
        Ok(())
    } else {
        Err(Error::NotADatabase { path: path.to_path_buf() })
    }
}

fn classify(path: &Path, err: rusqlite::Error) -> Error {
    match err.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => Error::NotADatabase { path: path.to_path_buf() },
        Some(ErrorCode::DatabaseCorrupt) => Error::Corrupt { path: path.to_path_buf(), detail: err.to_string() },
        _ => Error::Open { path: path.to_path_buf(), detail: err.to_string() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid() {
        MIGRATIONS.validate().unwrap();
    }

    #[test]
    fn a_read_only_store_reads_beside_a_writer_and_cannot_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("beckon.db");
        let mut writer = Store::open(&path).unwrap();
        writer.write(|tx| tx.set_setting("callback_secret", "first")).unwrap();

        let mut reader = Store::open_read_only(&path).unwrap();
        assert_eq!(reader.read().setting("callback_secret").unwrap().as_deref(), Some("first"));
        writer.write(|tx| tx.set_setting("callback_secret", "second")).unwrap();
        assert_eq!(reader.read().setting("callback_secret").unwrap().as_deref(), Some("second"), "sees later commits");
        assert!(reader.write(|tx| tx.set_setting("callback_secret", "mine")).is_err(), "writes are refused");
        assert_eq!(writer.read().setting("callback_secret").unwrap().as_deref(), Some("second"));
    }

    #[test]
    fn a_read_only_store_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("beckon.db");
        let err = Store::open_read_only(&path).unwrap_err();
        assert!(err.to_string().contains("no database yet"), "{err}");
        assert!(!path.exists());
        std::fs::write(&path, b"not a database at all, but long enough").unwrap();
        assert!(matches!(Store::open_read_only(&path), Err(Error::NotADatabase { .. })));
    }

    #[test]
    fn rebuilding_questions_keeps_the_rows_that_point_at_them() {
        let mut conn = Connection::open_in_memory().unwrap();
        configure(&conn).unwrap();
        MIGRATIONS.to_version(&mut conn, 3).unwrap();
        conn.execute_batch(
            "INSERT INTO sessions (id, agent, origin, status, state, created_at, updated_at)
                 VALUES ('s1', 'poet', 'external', 'waiting_for_input', '{}', 1, 1);
             INSERT INTO questions (id, session_id, tool_use_id, agent, origin, request, status, created_at, answered_by)
                 VALUES ('q1', 's1', 't1', 'poet', '{}', '{}', 'pending', 1, NULL);
             INSERT INTO tokens (id, name, kind, secret_hash, created_at) VALUES (7, 'devbox', 'ask_only', zeroblob(32), 1);
             INSERT INTO question_tokens (request_id, token_id) VALUES ('q1', 7);
             INSERT INTO channel_messages (channel, request_id, state, next_attempt_at, created_at, updated_at)
                 VALUES ('slack', 'q1', 'waiting', 1, 1, 1);",
        )
        .unwrap();
        MIGRATIONS.to_latest(&mut conn).unwrap();
        let count = |sql: &str| conn.query_row(sql, [], |row| row.get::<_, i64>(0)).unwrap();
        assert_eq!(count("SELECT count(*) FROM questions"), 1);
        assert_eq!(count("SELECT count(*) FROM question_tokens"), 1);
        assert_eq!(count("SELECT count(*) FROM channel_messages"), 1);
        assert_eq!(count("SELECT count(*) FROM sqlite_temp_schema"), 0, "nothing is left aside");
        conn.execute(
            "UPDATE questions SET status = 'answered', outcome = '{}', resolved_at = 2, answered_via = 'rule'",
            [],
        )
        .unwrap();
        assert_eq!(count("SELECT count(*) FROM pragma_foreign_key_check"), 0);
    }

    #[test]
    fn schema_version_matches_the_migrations() {
        let store = Store::open_in_memory().unwrap();
        let version: i64 = store.connection().pragma_query_value(None, "user_version", |row| row.get(0)).unwrap();
        assert_eq!(version, SCHEMA_VERSION);
    }
}
