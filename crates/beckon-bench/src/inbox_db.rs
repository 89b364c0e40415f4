//! A big, realistic database: `questions` questions in a tenth as many sessions, one in a
//! hundred still pending (each in a session of its own, waiting for input), built as a real
//! inbox grows — each question enters the pending index and most leave it a little later.
//! Built once per size and schema version, then reused.

use std::path::{Path, PathBuf};

use beckon_core::Outcome;
use beckon_core::conversation::{Origin, State};
use beckon_store::Store;
use rusqlite::{Connection, params};
use uuid::Uuid;

use crate::Failure;
use crate::fixtures::{answers, request};

/// How many questions back each answered question was asked.
const LAG: usize = 50;

/// The data folder holding the database of `questions` questions under `cache`, built if
/// missing.
pub fn data_dir(cache: &Path, questions: usize) -> Result<PathBuf, Failure> {
    let dir = cache.join(format!("inbox-v{}-{questions}", beckon_store::SCHEMA_VERSION));
    let path = dir.join("beckon.db");
    if path.exists() {
        return Ok(dir);
    }
    std::fs::create_dir_all(&dir)?;
    eprintln!("building a database of {questions} questions (kept for later runs)…");
    let partial = dir.join("beckon.db.partial");
    let _ = std::fs::remove_file(&partial);
    drop(Store::open(&partial)?);
    fill(&partial, questions)?;
    std::fs::rename(&partial, &path)?;
    Ok(dir)
}

fn fill(path: &Path, questions: usize) -> Result<(), Failure> {
    let mut conn = Connection::open(path)?;
    conn.pragma_update(None, "synchronous", "OFF")?;
    let request_value = request()?;
    let request = serde_json::to_string(&request_value)?;
    let line = serde_json::to_string(&request_value.inbox_line())?;
    let outcome = serde_json::to_string(&Outcome::Answered { answers: answers(&request_value)? })?;
    let origin = serde_json::to_string(&Origin::agent("poet"))?;
    let completed = serde_json::to_string(&State::Completed)?;
    let sessions = questions / 10;
    let stay_pending = |i: usize| i % 100 == 99;
    let pool = (sessions - questions / 100).max(1);
    let mut ids: Vec<String> = Vec::with_capacity(questions);
    let mut session_ids: Vec<String> = Vec::with_capacity(sessions);
    let all: Vec<usize> = (0..questions).collect();
    let mut progress = crate::progress::Progress::new("questions", questions);
    for (chunk_index, chunk) in all.chunks(20_000).enumerate() {
        let tx = conn.transaction()?;
        {
            let mut session_insert = tx.prepare(
                "INSERT INTO sessions (id, agent, origin, title, status, state, created_at, updated_at) \
                 VALUES (?1, 'poet', 'chat', 'A poem', ?2, ?3, ?4, ?4)",
            )?;
            let mut question_insert = tx.prepare(
                "INSERT INTO questions (id, session_id, tool_use_id, agent, origin, request, line, status, created_at) \
                 VALUES (?1, ?2, ?3, 'poet', ?4, ?5, ?6, 'pending', ?7)",
            )?;
            let mut answer = tx.prepare(
                "UPDATE questions SET status = 'answered', outcome = ?2, answered_via = 'window', resolved_at = ?3 \
                 WHERE id = ?1",
            )?;
            for &i in chunk {
                let at = 1_700_000_000_000i64 + i as i64 * 1000;
                // The pending ones sit in sessions of their own; the rest rotate through the
                // other sessions, each asking again long after its previous answer.
                let slot = if stay_pending(i) { pool + i / 100 } else { i % pool };
                if session_ids.len() <= slot {
                    session_ids.resize(slot + 1, String::new());
                }
                if session_ids[slot].is_empty() {
                    session_ids[slot] = Uuid::now_v7().to_string();
                    let status = if stay_pending(i) { "waiting_for_input" } else { "completed" };
                    session_insert.execute(params![session_ids[slot], status, completed, at])?;
                }
                let id = Uuid::now_v7().to_string();
                question_insert.execute(params![
                    id,
                    session_ids[slot],
                    format!("toolu_{i}"),
                    origin,
                    request,
                    line,
                    at
                ])?;
                ids.push(id);
                if i >= LAG && !stay_pending(i - LAG) {
                    answer.execute(params![ids[i - LAG], outcome, at])?;
                }
            }
        }
        tx.commit()?;
        progress.update(((chunk_index + 1) * 20_000).min(questions));
    }
    progress.finish();
    let tx = conn.transaction()?;
    for (i, id) in ids.iter().enumerate().skip(questions.saturating_sub(LAG)) {
        if !stay_pending(i) {
            tx.execute(
                "UPDATE questions SET status = 'answered', outcome = ?2, answered_via = 'window', \
                 resolved_at = created_at + 1 WHERE id = ?1",
                params![id, outcome],
            )?;
        }
    }
    tx.commit()?;
    conn.pragma_update(None, "wal_checkpoint", "TRUNCATE")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_question_in_a_hundred_waits_each_in_a_session_of_its_own() {
        let cache = tempfile::tempdir().unwrap();
        let dir = data_dir(cache.path(), 2_000).unwrap();
        let store = Store::open(dir.join("beckon.db")).unwrap();
        let pending = store.read().pending_questions().unwrap();
        assert_eq!(pending.len(), 20);
        let sessions: std::collections::HashSet<_> = pending.iter().map(|q| q.session_id).collect();
        assert_eq!(sessions.len(), 20);
        for question in &pending {
            let session = store.read().session(question.session_id).unwrap().unwrap();
            assert_eq!(session.status, beckon_core::conversation::SessionStatus::WaitingForInput);
        }
        // Each with its inbox line, as a question asked through the store has.
        let inbox = store.read().inbox().unwrap();
        assert_eq!(inbox.len(), 20);
        assert_eq!(inbox[0].line().unwrap(), request().unwrap().inbox_line());
        let again = data_dir(cache.path(), 2_000).unwrap();
        assert_eq!(again, dir, "built once, then reused");
    }
}
