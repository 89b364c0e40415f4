//! Crash safety with real process kills: a worker performs ask/resolve cycles (one commit
//! each, or in group commits of eight with a failing write among them) and is killed with
//! SIGKILL at random moments; after each kill the database holds everything the worker was
//! told was saved, nothing half-written, no failed write, and passes SQLite's integrity check.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::thread;
use std::time::Duration;

use beckon_core::{Outcome, RequestId};
use beckon_store::{QuestionStatus, Store};
use rand::Rng;

const KILLS: usize = 60;

#[test]
fn sigkill_at_random_moments_loses_nothing_acknowledged_and_half_writes_nothing() {
    kill_repeatedly(&[]);
}

#[test]
fn sigkill_inside_group_commits_loses_nothing_acknowledged_and_half_writes_nothing() {
    kill_repeatedly(&["group"]);
}

/// Runs the worker with `args` and kills it [`KILLS`] times, checking the database after each.
fn kill_repeatedly(args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("beckon.db");
    let mut asked: Vec<RequestId> = Vec::new();
    let mut resolved: HashMap<RequestId, String> = HashMap::new();
    let mut failed: Vec<RequestId> = Vec::new();
    let mut rng = rand::rng();
    for kill in 0..KILLS {
        let mut child = Command::new(env!("CARGO_BIN_EXE_beckon-store-crash-worker"))
            .arg(&path)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = thread::spawn(move || BufReader::new(stdout).lines().map_while(Result::ok).collect::<Vec<_>>());
        thread::sleep(Duration::from_millis(rng.random_range(5..60)));
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        assert!(!status.success(), "kill {kill}: the worker must have been killed, not have exited");
        for line in reader.join().unwrap() {
            let parts: Vec<&str> = line.split(' ').collect();
            match parts.as_slice() {
                ["asked", _session, question] => asked.push(question.parse().unwrap()),
                ["resolved", question, label] => {
                    resolved.insert(question.parse().unwrap(), (*label).to_owned());
                }
                ["failed", question] => failed.push(question.parse().unwrap()),
                _ => panic!("unexpected line {line:?}"),
            }
        }
        check(&path, &asked, &resolved, kill);
        let store = Store::open(&path).unwrap();
        for id in &failed {
            assert!(store.read().question(*id).unwrap().is_none(), "kill {kill}: the failed write of {id} was kept");
        }
    }
    if !args.is_empty() {
        assert!(!failed.is_empty(), "the groups held failing writes");
    }
    assert!(asked.len() > KILLS, "the worker got real work done between kills ({} questions)", asked.len());
    assert!(!resolved.is_empty());
}

fn check(path: &std::path::Path, asked: &[RequestId], resolved: &HashMap<RequestId, String>, kill: usize) {
    let store = Store::open(path).unwrap();
    let integrity: String = store.connection().query_row("PRAGMA integrity_check", [], |row| row.get(0)).unwrap();
    assert_eq!(integrity, "ok", "kill {kill}");
    for id in asked {
        let question = store
            .read()
            .question(*id)
            .unwrap()
            .unwrap_or_else(|| panic!("kill {kill}: acknowledged question {id} lost"));
        if let Some(label) = resolved.get(id) {
            assert_eq!(question.status, QuestionStatus::Answered, "kill {kill}: {id}");
            let Some(Outcome::Answered { answers }) = &question.outcome else {
                panic!("kill {kill}: {id} has no answer")
            };
            assert_eq!(&answers.items()[0].selected[0], label, "kill {kill}: {id} keeps the acknowledged answer");
        }
    }
    let conn = store.connection();
    let ids = |sql: &str| -> HashSet<String> {
        conn.prepare(sql).unwrap().query_map([], |row| row.get::<_, String>(0)).unwrap().map(Result::unwrap).collect()
    };
    let questions = ids("SELECT id FROM questions");
    let resolved_questions = ids("SELECT id FROM questions WHERE status <> 'pending'");
    let question_entries = ids("SELECT json_extract(body, '$.request_id') FROM messages WHERE kind = 'question'");
    let answer_entries = ids("SELECT json_extract(body, '$.request_id') FROM messages WHERE kind = 'answer'");
    let pending_events = ids("SELECT request_id FROM events WHERE kind = 'question_pending'");
    let resolved_events = ids("SELECT request_id FROM events WHERE kind = 'question_resolved'");
    assert_eq!(
        question_entries, questions,
        "kill {kill}: every question has its timeline entry and no entry lacks its question"
    );
    assert_eq!(
        pending_events, questions,
        "kill {kill}: every question has its pending event and no event lacks its question"
    );
    assert_eq!(
        answer_entries, resolved_questions,
        "kill {kill}: every resolution has its answer entry, and only resolutions"
    );
    assert_eq!(
        resolved_events, resolved_questions,
        "kill {kill}: every resolution has its event, and only resolutions"
    );
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |row| row.get(0)).unwrap() };
    let inconsistent = [
        (
            "a waiting session without a pending question",
            "SELECT count(*) FROM sessions s WHERE s.status = 'waiting_for_input' AND NOT EXISTS (SELECT 1 FROM questions q WHERE q.session_id = s.id AND q.status = 'pending')",
        ),
        (
            "a pending question whose session is not waiting",
            "SELECT count(*) FROM questions q JOIN sessions s ON s.id = q.session_id WHERE q.status = 'pending' AND s.status <> 'waiting_for_input'",
        ),
        ("an event seq gap", "SELECT (SELECT coalesce(max(seq), 0) FROM events) - (SELECT count(*) FROM events)"),
    ];
    for (what, sql) in inconsistent {
        assert_eq!(count(sql), 0, "kill {kill}: {what}");
    }
}
