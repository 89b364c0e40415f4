//! Oversize values are refused with a typed error; damaged or tampered rows read back as typed
//! errors, never a panic.

use beckon_core::conversation::{Message, State};
use beckon_store::{Error, JSON_MAX_BYTES, SessionFilter};
use serde_json::json;

use crate::common::*;

fn oversize_values_are_refused_and_nothing_is_written(backend: Backend) {
    let (_db, mut store) = backend.store();
    let session = session_id();
    store.write(|tx| tx.start_session(&new_session(session, "poet", 1))).unwrap();
    let huge = "x".repeat(JSON_MAX_BYTES + 1);
    let before = store.read().last_seq().unwrap();
    let err = store.write(|tx| tx.append_messages(session, &[Message::User { text: huge.clone() }], 2)).unwrap_err();
    assert!(matches!(err, Error::TooLarge { what: "message", limit, .. } if limit == JSON_MAX_BYTES), "{err}");
    let mut with_payload = new_session(session_id(), "hook", 3);
    with_payload.payload = Some(json!({"blob": huge}));
    assert!(matches!(
        store.write(|tx| tx.start_session(&with_payload)),
        Err(Error::TooLarge { what: "webhook payload", .. })
    ));
    assert_eq!(store.read().timeline(session).unwrap(), []);
    assert_eq!(store.read().last_seq().unwrap(), before);
}

/// Writes around every check, as a damaged or hand-edited file would.
fn tamper(store: &beckon_store::Store, sql: &str) {
    store
        .connection()
        .execute_batch(&format!("PRAGMA ignore_check_constraints = ON; {sql}; PRAGMA ignore_check_constraints = OFF;"))
        .unwrap();
}

#[test]
fn an_unknown_status_reads_back_as_a_typed_error() {
    let (_dir, mut store) = file_store();
    let (session, question) = asked(&mut store, "poet", 1);
    tamper(&store, &format!("UPDATE questions SET status = 'snoozed' WHERE id = '{question}'"));
    let err = store.read().question(question).unwrap_err();
    assert!(matches!(&err, Error::InvalidData { table: "questions", column: "status", .. }), "{err}");
    assert!(err.to_string().contains("snoozed"), "{err}");
    tamper(&store, &format!("UPDATE sessions SET status = 'napping' WHERE id = '{session}'"));
    let err = store.read().sessions(&SessionFilter { limit: 10, ..SessionFilter::default() }).unwrap_err();
    assert!(matches!(err, Error::InvalidData { table: "sessions", column: "status", .. }), "{err}");
}

#[test]
fn an_id_that_is_not_a_uuid_reads_back_as_a_typed_error() {
    let (_dir, mut store) = file_store();
    let (session, _) = asked(&mut store, "poet", 1);
    store.connection().execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    store
        .connection()
        .execute("UPDATE questions SET id = 'not-a-uuid' WHERE session_id = ?1", [session.to_string()])
        .unwrap();
    let err = store.read().pending_questions().unwrap_err();
    assert!(matches!(&err, Error::InvalidData { table: "questions", column: "id", .. }), "{err}");
    let err = store.read().pending_question_of(session).unwrap_err();
    assert!(matches!(err, Error::InvalidData { .. }));
}

#[test]
fn broken_json_reads_back_as_a_typed_error() {
    let (_dir, mut store) = file_store();
    let (session, question) = asked(&mut store, "poet", 1);
    store
        .connection()
        .execute("UPDATE sessions SET state = '{\"state\": \"dancing\"}' WHERE id = ?1", [session.to_string()])
        .unwrap();
    assert!(matches!(
        store.read().session(session),
        Err(Error::InvalidData { table: "sessions", column: "state", .. })
    ));
    store
        .connection()
        .execute("UPDATE questions SET request = '{\"questions\": []}' WHERE id = ?1", [question.to_string()])
        .unwrap();
    let err = store.read().question(question).unwrap_err();
    assert!(matches!(&err, Error::InvalidData { table: "questions", column: "request", .. }), "{err}");
    assert!(err.to_string().contains("has 0 questions"), "the stored request is held to the same rules: {err}");
    store
        .connection()
        .execute("UPDATE messages SET body = 'garbage' WHERE session_id = ?1", [session.to_string()])
        .unwrap();
    assert!(matches!(store.read().timeline(session), Err(Error::InvalidData { table: "messages", .. })));
}

fn an_oversize_state_is_refused(backend: Backend) {
    let (_db, mut store) = backend.store();
    let session = session_id();
    store.write(|tx| tx.start_session(&new_session(session, "poet", 1))).unwrap();
    let reason = "r".repeat(beckon_store::STATE_MAX_BYTES + 1);
    let err = store.write(|tx| tx.save_state(session, &State::Failed { reason }, 2)).unwrap_err();
    assert!(matches!(err, Error::TooLarge { what: "session state", .. }));
}

conformance!(oversize_values_are_refused_and_nothing_is_written, an_oversize_state_is_refused,);
