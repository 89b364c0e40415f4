//! What the database itself guarantees, whoever writes to it and however many at once.

use std::sync::{Arc, Barrier};
use std::thread;

use beckon_core::Outcome;
use beckon_core::conversation::Message;
use beckon_store::{Error, EventKind, Resolved};
use rusqlite::params;

use crate::common::*;

#[test]
fn the_database_refuses_a_second_pending_question_inserted_around_the_api() {
    let (_dir, mut store) = file_store();
    let (session, _) = asked(&mut store, "poet", 1);
    let raw = store.connection().execute(
        "INSERT INTO questions (id, session_id, tool_use_id, agent, origin, request, status, created_at)
         VALUES (?1, ?2, 'toolu_x', 'poet', '[\"poet\"]', '{}', 'pending', 5)",
        params![request_id().to_string(), session.to_string()],
    );
    let err = raw.unwrap_err();
    assert_eq!(err.sqlite_error_code(), Some(rusqlite::ErrorCode::ConstraintViolation), "{err}");
    assert!(err.to_string().contains("questions.session_id"), "{err}");
}

#[test]
fn the_database_refuses_unknown_statuses_and_dangling_sessions() {
    let (_dir, store) = file_store();
    let err = store
        .connection()
        .execute(
            "INSERT INTO sessions (id, agent, origin, status, state, created_at, updated_at) VALUES ('x', 'a', 'chat', 'sleeping', '{}', 1, 1)",
            [],
        )
        .unwrap_err();
    assert_eq!(err.sqlite_error_code(), Some(rusqlite::ErrorCode::ConstraintViolation));
    let err = store
        .connection()
        .execute(
            "INSERT INTO questions (id, session_id, tool_use_id, agent, origin, request, status, created_at) VALUES ('q', 'nobody', 't', 'a', '[]', '{}', 'pending', 1)",
            [],
        )
        .unwrap_err();
    assert_eq!(err.sqlite_error_code(), Some(rusqlite::ErrorCode::ConstraintViolation), "foreign keys are on");
}

fn concurrent_resolves_from_many_connections_have_exactly_one_winner(backend: Backend) {
    let (db, mut store) = backend.store();
    let db = Arc::new(db);
    for round in 0..10 {
        let (_, question) = asked(&mut store, "poet", round);
        let writers = 8;
        let barrier = Arc::new(Barrier::new(writers));
        let handles: Vec<_> = (0..writers)
            .map(|i| {
                let (barrier, db) = (barrier.clone(), db.clone());
                thread::spawn(move || {
                    let mut store = db.open();
                    let outcome = if i % 2 == 0 {
                        answered("Haiku")
                    } else {
                        Outcome::Declined { reason: Some(format!("writer {i}")) }
                    };
                    barrier.wait();
                    (
                        outcome.clone(),
                        store.write(|tx| tx.resolve(&resolution(question, outcome, 100 + i as i64))).map(|c| c.value),
                    )
                })
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let winners: Vec<_> = results.iter().filter(|(_, r)| matches!(r, Ok(Resolved::Now(_)))).collect();
        assert_eq!(winners.len(), 1, "round {round}: {results:?}");
        let winning = winners[0].0.clone();
        for (outcome, result) in &results {
            match result {
                Ok(Resolved::Now(record)) => assert_eq!(&record.outcome, outcome),
                Ok(Resolved::Repeat(record)) => assert_eq!(&record.outcome, &winning),
                Err(Error::AlreadyResolved(record)) => assert_eq!(&record.outcome, &winning),
                Err(other) => panic!("unexpected {other}"),
            }
        }
        let stored = store.read().question(question).unwrap().unwrap();
        assert_eq!(stored.outcome, Some(winning));
        let answers = store
            .read()
            .timeline(stored.session_id)
            .unwrap()
            .into_iter()
            .filter(|entry| matches!(&entry.message, Message::Answer { request_id, .. } if *request_id == question))
            .count();
        assert_eq!(answers, 1, "one timeline answer");
        let resolved_events = store
            .read()
            .events_after(0, 100_000)
            .unwrap()
            .into_iter()
            .filter(|event| event.kind == EventKind::QuestionResolved && event.request_id == Some(question))
            .count();
        assert_eq!(resolved_events, 1, "one resolution event");
    }
}

fn event_seqs_stay_gap_free_under_concurrent_writers(backend: Backend) {
    let (db, _store) = backend.store();
    let db = Arc::new(db);
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let db = db.clone();
            thread::spawn(move || {
                let mut store = db.open();
                let mut seen = Vec::new();
                for i in 0..25 {
                    let (session, question) = (session_id(), request_id());
                    let committed = store
                        .write(|tx| {
                            tx.start_session(&new_session(session, "poet", i))?;
                            tx.ask(&new_question(question, session, "poet", i))
                        })
                        .unwrap();
                    seen.extend(committed.events.iter().map(|e| e.seq));
                }
                seen
            })
        })
        .collect();
    let mut all: Vec<i64> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
    all.sort_unstable();
    assert_eq!(all, (1..=all.len() as i64).collect::<Vec<_>>(), "every seq used once, none skipped");
    let store = db.open();
    let stored: Vec<i64> = store.read().events_after(0, 10_000).unwrap().iter().map(|e| e.seq).collect();
    assert_eq!(stored, all);
}

conformance!(
    concurrent_resolves_from_many_connections_have_exactly_one_winner,
    event_seqs_stay_gap_free_under_concurrent_writers,
);
