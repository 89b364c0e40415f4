//! The store's figures: `cargo bench -p beckon-store` (add `-- --quick` for a smaller run).
//!
//! Prints median and p99 of `ask` and `resolve` on a file database (synchronous=FULL, and
//! NORMAL for reference) beside a bare one-insert-one-update transaction with the same
//! PRAGMAs; listing 10,000 pending questions among 1,000,000, warm and cold (reopened with
//! the file's pages dropped from the OS cache); and reading 1,000 events after a seq.

#![allow(clippy::expect_used, clippy::unwrap_used)]
// posix_fadvise is the one way to drop a single file's pages from the OS cache.
#![allow(unsafe_code)]

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use beckon_core::conversation::{Origin, SessionStatus, State};
use beckon_core::{Answer, AnsweredVia, Answers, Outcome, QuestionRequest, RequestId, SessionId, SessionOrigin};
use beckon_store::{NewQuestion, NewSession, Resolution, Store};
use rusqlite::{Connection, params};
use serde_json::json;
use uuid::Uuid;

fn request() -> QuestionRequest {
    QuestionRequest::parse(&json!({"questions": [
        {"question": "Which style should the poem take?", "header": "Style", "options": [
            {"label": "Free verse", "description": "No fixed metre or rhyme"},
            {"label": "Rhyming", "description": "Rhymed couplets"},
            {"label": "Sonnet", "description": "Fourteen lines"},
            {"label": "Haiku", "description": "Three lines, 5-7-5"}
        ]},
        {"question": "Which tones?", "header": "Tone", "multiSelect": true, "options": [
            {"label": "Warm"}, {"label": "Wry"}, {"label": "Melancholy"}
        ]}
    ]}))
    .unwrap()
}

fn answers(request: &QuestionRequest) -> Answers {
    Answers::new(vec![Answer::select(["Haiku"]), Answer::select(["Warm", "Wry"])], request).unwrap()
}

struct Stats {
    median: Duration,
    p99: Duration,
}

fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort_unstable();
    let at = |p: f64| samples[((p * samples.len() as f64).ceil() as usize).clamp(1, samples.len()) - 1];
    Stats { median: at(0.5), p99: at(0.99) }
}

fn us(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn sid() -> SessionId {
    SessionId::from_uuid(Uuid::now_v7())
}

fn rid() -> RequestId {
    RequestId::from_uuid(Uuid::now_v7())
}

/// `ask` and `resolve` through the store, each its own transaction on a fresh file, measured
/// round by round beside the durable floor — one insert and one update in a transaction on
/// another file with the same settings — so all three see the same disk.
fn durable_steps(dir: &Path, synchronous: &str, rounds: usize) -> (Stats, Stats, Stats) {
    let mut store = Store::open(dir.join(format!("steps-{synchronous}.db"))).unwrap();
    store.connection().pragma_update(None, "synchronous", synchronous).unwrap();
    let floor_db = Connection::open(dir.join(format!("floor-{synchronous}.db"))).unwrap();
    floor_db.pragma_update(None, "journal_mode", "WAL").unwrap();
    floor_db.pragma_update(None, "synchronous", synchronous).unwrap();
    floor_db.pragma_update(None, "foreign_keys", "ON").unwrap();
    floor_db
        .execute_batch(
            "CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT NOT NULL) STRICT;
             CREATE TABLE c (id INTEGER PRIMARY KEY, n INTEGER NOT NULL) STRICT;
             INSERT INTO c VALUES (1, 0);",
        )
        .unwrap();
    let request = request();
    let (mut floor, mut ask, mut resolve) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..rounds as i64 {
        let started = Instant::now();
        floor_db.execute_batch("BEGIN IMMEDIATE").unwrap();
        floor_db
            .execute("INSERT INTO t VALUES (?1, ?2)", params![Uuid::now_v7().to_string(), format!("value {i}")])
            .unwrap();
        floor_db.execute("UPDATE c SET n = n + 1 WHERE id = 1", []).unwrap();
        floor_db.execute_batch("COMMIT").unwrap();
        floor.push(started.elapsed());

        let (session, question) = (sid(), rid());
        store
            .write(|tx| {
                tx.start_session(&NewSession {
                    id: session,
                    agent: "poet".into(),
                    origin: SessionOrigin::Chat,
                    parent: None,
                    external_key: None,
                    title: "A poem".into(),
                    state: State::LlmRequesting { attempt: 1 },
                    payload: None,
                    at_ms: i,
                })
            })
            .unwrap();
        let new = NewQuestion {
            id: question,
            session_id: session,
            tool_use_id: format!("toolu_{i}"),
            agent: "poet".into(),
            origin: Origin::agent("poet"),
            request: request.clone(),
            callback_url: None,
            expires_at_ms: None,
            expiry_policy: None,
            at_ms: i,
            callbacks: vec![],
        };
        let started = Instant::now();
        store.write(|tx| tx.ask(&new)).unwrap();
        ask.push(started.elapsed());
        let resolution = Resolution {
            request_id: question,
            outcome: Outcome::Answered { answers: answers(&request) },
            via: Some(AnsweredVia::Window),
            at_ms: i + 1,
            session_status: Some(SessionStatus::Running),
            callbacks: vec![],
        };
        let started = Instant::now();
        store.write(|tx| tx.resolve(&resolution)).unwrap();
        resolve.push(started.elapsed());
    }
    (stats(floor), stats(ask), stats(resolve))
}

/// A database of `questions` questions in a tenth as many sessions, one in a hundred pending,
/// built as a real inbox would grow: each question enters the pending index and most leave
/// it a little later. Cached between runs.
fn big_database(dir: &Path, questions: usize) -> PathBuf {
    let path = dir.join(format!("inbox-{questions}.db"));
    if path.exists() {
        return path;
    }
    eprintln!("building a database of {questions} questions (cached for later runs)…");
    let partial = dir.join(format!("inbox-{questions}.db.partial"));
    let _ = std::fs::remove_file(&partial);
    drop(Store::open(&partial).unwrap());
    let mut conn = Connection::open(&partial).unwrap();
    conn.pragma_update(None, "synchronous", "OFF").unwrap();
    let request = serde_json::to_string(&request()).unwrap();
    let outcome = serde_json::to_string(&Outcome::Answered { answers: answers(&self::request()) }).unwrap();
    let origin = serde_json::to_string(&Origin::agent("poet")).unwrap();
    let state = serde_json::to_string(&State::Completed).unwrap();
    let mut ids: Vec<String> = Vec::with_capacity(questions);
    let sessions = questions / 10;
    let mut session_ids: Vec<String> = Vec::with_capacity(sessions);
    let lag = 50;
    for chunk in (0..questions).collect::<Vec<_>>().chunks(20_000) {
        let tx = conn.transaction().unwrap();
        {
            let mut session_insert = tx
                .prepare("INSERT INTO sessions (id, agent, origin, title, status, state, created_at, updated_at) VALUES (?1, 'poet', 'chat', 'A poem', ?2, ?3, ?4, ?4)")
                .unwrap();
            let mut question_insert = tx
                .prepare("INSERT INTO questions (id, session_id, tool_use_id, agent, origin, request, status, created_at) VALUES (?1, ?2, ?3, 'poet', ?4, ?5, 'pending', ?6)")
                .unwrap();
            let mut answer = tx
                .prepare("UPDATE questions SET status = 'answered', outcome = ?2, answered_via = 'window', resolved_at = ?3 WHERE id = ?1")
                .unwrap();
            for &i in chunk {
                let at = 1_700_000_000_000i64 + i as i64 * 1000;
                // One question in a hundred stays pending, each in a session of its own; the
                // rest rotate through the other sessions, each asking again long after its
                // previous question was answered.
                let stays = i % 100 == 99;
                let pool = (sessions - questions / 100).max(1);
                let slot = if stays { pool + i / 100 } else { i % pool };
                if session_ids.len() <= slot {
                    session_ids.resize(slot + 1, String::new());
                }
                if session_ids[slot].is_empty() {
                    session_ids[slot] = Uuid::now_v7().to_string();
                    let status = if stays { "waiting_for_input" } else { "completed" };
                    session_insert.execute(params![session_ids[slot], status, state, at]).unwrap();
                }
                let session_id = &session_ids[slot];
                let id = Uuid::now_v7().to_string();
                question_insert.execute(params![id, session_id, format!("toolu_{i}"), origin, request, at]).unwrap();
                ids.push(id);
                // Resolve the question asked `lag` questions ago, unless it is one that stays.
                if i >= lag && (i - lag) % 100 != 99 {
                    answer.execute(params![ids[i - lag], outcome, at]).unwrap();
                }
            }
        }
        tx.commit().unwrap();
    }
    {
        let tx = conn.transaction().unwrap();
        let first = questions.saturating_sub(lag);
        for (i, id) in ids.iter().enumerate().skip(first) {
            if i % 100 != 99 {
                tx.execute("UPDATE questions SET status = 'answered', outcome = ?2, answered_via = 'window', resolved_at = created_at + 1 WHERE id = ?1", params![id, outcome]).unwrap();
            }
        }
        tx.commit().unwrap();
    }
    conn.pragma_update(None, "wal_checkpoint", "TRUNCATE").unwrap();
    drop(conn);
    std::fs::rename(&partial, &path).unwrap();
    path
}

/// Drops the file's pages from the OS cache, so the next read comes from the disk.
fn drop_from_cache(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let file_path = PathBuf::from(format!("{}{suffix}", path.display()));
        let Ok(file) = File::open(&file_path) else { continue };
        file.sync_all().unwrap();
        // SAFETY: a valid open descriptor, whole-file range; the call only gives advice.
        let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        assert_eq!(rc, 0, "posix_fadvise failed");
    }
}

fn list_pending(path: &Path, rounds: usize) -> (Duration, Duration, Duration, usize) {
    drop_from_cache(path);
    let started = Instant::now();
    let store = Store::open(path).unwrap();
    let open = started.elapsed();
    let started = Instant::now();
    let cold = store.read().pending_questions().unwrap();
    let cold_time = started.elapsed();
    let mut warm = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        let listed = store.read().pending_questions().unwrap();
        warm.push(started.elapsed());
        assert_eq!(listed.len(), cold.len());
    }
    (open, cold_time, stats(warm).median, cold.len())
}

fn events_after(dir: &Path, rounds: usize) -> Stats {
    let path = dir.join("events.db");
    let mut store = Store::open(&path).unwrap();
    let request = request();
    store
        .write(|tx| {
            for i in 0..250 {
                let (session, question) = (sid(), rid());
                tx.start_session(&NewSession {
                    id: session,
                    agent: "poet".into(),
                    origin: SessionOrigin::Chat,
                    parent: None,
                    external_key: None,
                    title: "A poem".into(),
                    state: State::Idle,
                    payload: None,
                    at_ms: i,
                })?;
                tx.ask(&NewQuestion {
                    id: question,
                    session_id: session,
                    tool_use_id: format!("toolu_{i}"),
                    agent: "poet".into(),
                    origin: Origin::agent("poet"),
                    request: request.clone(),
                    callback_url: None,
                    expires_at_ms: None,
                    expiry_policy: None,
                    at_ms: i,
                    callbacks: vec![],
                })?;
            }
            Ok(())
        })
        .unwrap();
    assert!(store.read().last_seq().unwrap() >= 1000);
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        let events = store.read().events_after(0, 1000).unwrap();
        samples.push(started.elapsed());
        assert_eq!(events.len(), 1000);
    }
    stats(samples)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (rounds, questions) = if quick { (300, 100_000) } else { (2_000, 1_000_000) };
    let scratch = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let cache =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("store-bench-v{}", beckon_store::SCHEMA_VERSION));
    std::fs::create_dir_all(&cache).unwrap();

    println!("beckon-store benchmark{}", if quick { " (quick)" } else { "" });
    println!();
    println!("{:<44} {:>12} {:>12} {:>8}", "durable step (file, WAL)", "median", "p99", "ratio");
    for synchronous in ["FULL", "NORMAL"] {
        let (floor, ask, resolve) = durable_steps(scratch.path(), synchronous, rounds);
        let ratio = |s: &Stats| s.median.as_secs_f64() / floor.median.as_secs_f64();
        println!(
            "{:<44} {:>12} {:>12} {:>8}",
            format!("bare insert+update ({synchronous})"),
            us(floor.median),
            us(floor.p99),
            "1.00×"
        );
        println!(
            "{:<44} {:>12} {:>12} {:>7.2}×",
            format!("ask ({synchronous})"),
            us(ask.median),
            us(ask.p99),
            ratio(&ask)
        );
        println!(
            "{:<44} {:>12} {:>12} {:>7.2}×",
            format!("resolve ({synchronous})"),
            us(resolve.median),
            us(resolve.p99),
            ratio(&resolve)
        );
    }

    let path = big_database(&cache, questions);
    let (open, cold, warm, pending) = list_pending(&path, 20);
    println!();
    println!("{:<44} {:>12}", format!("list {pending} pending among {questions}"), "");
    println!("{:<44} {:>12}", "  open after dropping the file from cache", ms(open));
    println!("{:<44} {:>12}", "  list, cold", ms(cold));
    println!("{:<44} {:>12}", "  list, warm (median of 20)", ms(warm));

    let events = events_after(scratch.path(), 50);
    println!();
    println!("{:<44} {:>12} {:>12}", "events after seq (1,000 events)", ms(events.median), ms(events.p99));
}
