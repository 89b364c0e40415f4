//! Opening database files: what is created, what is refused, and that refused files are
//! never modified.

use std::path::Path;

use beckon_core::conversation::SessionStatus;
use beckon_core::{RequestId, SessionId};
use beckon_store::{Error, QuestionStatus, SCHEMA_VERSION, Store};

use crate::common::*;

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn opening_creates_the_file_and_its_folders_with_durable_settings() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a").join("b").join("beckon.db");
    let store = Store::open(&path).unwrap();
    assert!(path.exists());
    assert_eq!(store.path(), Some(path.as_path()));
    let conn = store.connection();
    let pragma =
        |name: &str| conn.pragma_query_value(None, name, |row| row.get::<_, rusqlite::types::Value>(0)).unwrap();
    assert_eq!(pragma("journal_mode"), rusqlite::types::Value::Text("wal".into()));
    assert_eq!(pragma("synchronous"), rusqlite::types::Value::Integer(2), "FULL");
    assert_eq!(pragma("foreign_keys"), rusqlite::types::Value::Integer(1));
    assert_eq!(pragma("busy_timeout"), rusqlite::types::Value::Integer(5_000));
    assert_eq!(pragma("user_version"), rusqlite::types::Value::Integer(SCHEMA_VERSION));
}

#[test]
fn reopening_keeps_everything() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("beckon.db");
    let (session, question) = {
        let mut store = Store::open(&path).unwrap();
        asked(&mut store, "poet", 1)
    };
    let store = Store::open(&path).unwrap();
    assert_eq!(store.read().session(session).unwrap().unwrap().status, SessionStatus::WaitingForInput);
    assert_eq!(store.read().pending_questions().unwrap()[0].id, question);
}

#[test]
fn an_empty_file_becomes_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("beckon.db");
    std::fs::write(&path, b"").unwrap();
    Store::open(&path).unwrap();
}

#[test]
fn a_file_that_is_not_a_database_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("beckon.db");
    let text = b"These are my notes, not a database. Please do not overwrite them.\n".repeat(100);
    std::fs::write(&path, &text).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, Error::NotADatabase { .. }), "{err}");
    assert!(err.to_string().contains(&path.display().to_string()), "names the path: {err}");
    assert_eq!(bytes(&path), text);
    std::fs::write(&path, b"SQLite").unwrap();
    assert!(matches!(Store::open(&path), Err(Error::NotADatabase { .. })), "a short file");
}

#[test]
fn a_damaged_database_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("beckon.db");
    {
        let mut store = Store::open(&path).unwrap();
        asked(&mut store, "poet", 1);
    }
    let mut damaged = bytes(&path);
    // Keep the 100-byte header, wreck the rest of page 1 (the schema table).
    for byte in &mut damaged[100..4096] {
        *byte = 0xA5;
    }
    std::fs::write(&path, &damaged).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. } | Error::NotADatabase { .. }), "{err}");
    assert!(err.to_string().contains("left untouched"), "{err}");
    assert_eq!(bytes(&path), damaged, "never overwritten");
}

#[test]
fn a_database_from_a_newer_beckon_is_refused_unmodified() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("beckon.db");
    {
        let store = Store::open(&path).unwrap();
        store.connection().pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
        store.connection().pragma_update(None, "journal_mode", "DELETE").unwrap();
    }
    let before = bytes(&path);
    let err = Store::open(&path).unwrap_err();
    assert!(
        matches!(err, Error::NewerSchema { found, supported, .. } if found == SCHEMA_VERSION + 1 && supported == SCHEMA_VERSION)
    );
    assert!(err.to_string().contains("update Beckon"), "{err}");
    assert_eq!(bytes(&path), before);
    assert!(!dir.path().join("beckon.db-wal").exists(), "not even switched to WAL");
}

#[test]
fn a_database_from_schema_v1_opens_with_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("beckon.db");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema-v1.db"), &path).unwrap();
    let store = Store::open(&path).unwrap();
    let version: i64 = store.connection().pragma_query_value(None, "user_version", |row| row.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    let answered: RequestId = "0190f1d2-0000-7000-8000-0000000000a1".parse().unwrap();
    let pending: RequestId = "0190f1d2-0000-7000-8000-0000000000a2".parse().unwrap();
    let session: SessionId = "0190f1d2-0000-7000-8000-000000000002".parse().unwrap();
    assert_eq!(store.read().question(answered).unwrap().unwrap().status, QuestionStatus::Answered);
    let waiting = store.read().pending_questions().unwrap();
    assert_eq!(waiting.iter().map(|p| p.id).collect::<Vec<_>>(), [pending]);
    // Asked before lines were kept: its line is made from the request.
    let inbox = store.read().inbox().unwrap();
    assert_eq!(inbox.iter().map(|entry| entry.id).collect::<Vec<_>>(), [pending]);
    assert_eq!(inbox[0].line().unwrap(), waiting[0].request().unwrap().inbox_line());
    assert_eq!(store.read().session(session).unwrap().unwrap().status, SessionStatus::WaitingForInput);
    assert_eq!(store.read().timeline(session).unwrap().len(), 2);
    assert_eq!(store.read().setting("install_secret").unwrap().as_deref(), Some("fixture-secret"));
    assert_eq!(store.read().due_callbacks(i64::MAX, 10).unwrap().len(), 2);
}
