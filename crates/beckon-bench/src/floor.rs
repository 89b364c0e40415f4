//! The durable floor: what one committed transaction costs on this disk with Beckon's
//! settings (WAL, `synchronous=FULL`), and each of Beckon's durable steps beside it, measured
//! round by round on the same disk so they see the same conditions.

use std::path::Path;
use std::time::{Duration, Instant};

use beckon_core::conversation::{Origin, SessionStatus, State};
use beckon_core::{AnsweredVia, Outcome, RequestId, SessionId, SessionOrigin};
use beckon_store::{NewQuestion, NewSession, Resolution, Store};
use rusqlite::{Connection, params};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::Failure;
use crate::fixtures::{answers, request};
use crate::stats::{Summary, ms};

/// The floor and each step.
#[derive(Debug, Clone, Copy)]
pub struct Floor {
    /// A bare single-row insert, committed.
    pub floor: Summary,
    /// A session starts (its row and event).
    pub start_session: Summary,
    /// A question is asked (its row, the session's status, the timeline entry, the event).
    pub ask: Summary,
    /// A question is answered (its outcome, the session's status, the event).
    pub resolve: Summary,
}

impl Floor {
    /// Each step's median over the floor's.
    pub fn ratios(&self) -> [(&'static str, Summary, f64); 3] {
        let ratio = |s: Summary| s.median.as_secs_f64() / self.floor.median.as_secs_f64();
        [
            ("start session", self.start_session, ratio(self.start_session)),
            ("ask", self.ask, ratio(self.ask)),
            ("resolve", self.resolve, ratio(self.resolve)),
        ]
    }

    /// As JSON.
    pub fn to_json(&self) -> Value {
        let mut steps = serde_json::Map::new();
        for (name, summary, ratio) in self.ratios() {
            let mut step = summary.to_json();
            step["ratio_to_floor"] = json!((ratio * 100.0).round() / 100.0);
            steps.insert(name.replace(' ', "_"), step);
        }
        json!({"floor": self.floor.to_json(), "floor_median_us": ms(self.floor.median) * 1000.0, "steps": steps})
    }
}

/// A database with Beckon's connection settings and one table.
fn floor_database(path: &Path) -> Result<Connection, Failure> {
    let db = Connection::open(path)?;
    db.pragma_update(None, "journal_mode", "WAL")?;
    db.pragma_update(None, "synchronous", "FULL")?;
    db.pragma_update(None, "foreign_keys", "ON")?;
    db.execute_batch("CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT NOT NULL) STRICT;")?;
    Ok(db)
}

fn timed<T>(work: impl FnOnce() -> Result<T, Failure>) -> Result<(T, Duration), Failure> {
    let started = Instant::now();
    let value = work()?;
    Ok((value, started.elapsed()))
}

/// `rounds` of each, in files under `dir`.
pub fn measure(dir: &Path, rounds: usize) -> Result<Floor, Failure> {
    let mut store = Store::open(dir.join("steps.db"))?;
    let floor_db = floor_database(&dir.join("floor.db"))?;
    let request = request()?;
    let answers = answers(&request)?;
    let (mut floor, mut start, mut ask, mut resolve) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..rounds as i64 {
        let ((), took) = timed(|| {
            floor_db.execute_batch("BEGIN IMMEDIATE")?;
            floor_db
                .execute("INSERT INTO t VALUES (?1, ?2)", params![Uuid::now_v7().to_string(), format!("row {i}")])?;
            floor_db.execute_batch("COMMIT")?;
            Ok(())
        })?;
        floor.push(took);

        let (session, question) = (SessionId::from_uuid(Uuid::now_v7()), RequestId::from_uuid(Uuid::now_v7()));
        let new_session = NewSession {
            id: session,
            agent: "poet".into(),
            origin: SessionOrigin::Chat,
            parent: None,
            external_key: None,
            title: "A poem".into(),
            state: State::LlmRequesting { attempt: 1 },
            payload: None,
            at_ms: i,
        };
        let (_, took) = timed(|| Ok(store.write(|tx| tx.start_session(&new_session))?))?;
        start.push(took);
        let new_question = NewQuestion {
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
        let (_, took) = timed(|| Ok(store.write(|tx| tx.ask(&new_question))?))?;
        ask.push(took);
        let resolution = Resolution {
            request_id: question,
            outcome: Outcome::Answered { answers: answers.clone() },
            via: Some(AnsweredVia::Window),
            by: None,
            at_ms: i + 1,
            session_status: Some(SessionStatus::Running),
            callbacks: vec![],
        };
        let (_, took) = timed(|| Ok(store.write(|tx| tx.resolve(&resolution))?))?;
        resolve.push(took);
    }
    let summary = |samples: Vec<Duration>| Summary::of(samples).ok_or("no rounds");
    Ok(Floor { floor: summary(floor)?, start_session: summary(start)?, ask: summary(ask)?, resolve: summary(resolve)? })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_is_measured_beside_the_floor() {
        let dir = tempfile::tempdir().unwrap();
        let floor = measure(dir.path(), 10).unwrap();
        assert_eq!(floor.floor.count, 10);
        for (_, summary, ratio) in floor.ratios() {
            assert_eq!(summary.count, 10);
            assert!(ratio > 0.0);
        }
        let store = Store::open(dir.path().join("steps.db")).unwrap();
        assert_eq!(store.read().pending_questions().unwrap().len(), 0, "every question asked was resolved");
    }
}
