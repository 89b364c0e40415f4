//! Start-up rehydration: the runtime opens a big database and lists every pending question
//! with its session and agent — cold (the file's pages dropped from the OS cache first) and
//! warm — whole, as the runtime's own start needs them, and by their inbox lines, as the
//! window's first screen does.

use std::path::Path;
use std::time::{Duration, Instant};

use beckon_runtime::{Beckon, RuntimeConfig, StartOptions};
use serde_json::{Value, json};

use crate::Failure;
use crate::page_cache::drop_file;
use crate::stats::{Summary, ms};

/// The figures.
#[derive(Debug, Clone, Copy)]
pub struct Rehydration {
    /// Questions in the database.
    pub questions: usize,
    /// Pending questions listed.
    pub pending: usize,
    /// Starting the runtime on the uncached file.
    pub open_cold: Duration,
    /// The first listing after that.
    pub list_cold: Duration,
    /// Later listings.
    pub list_warm: Summary,
    /// Listing their inbox lines (the window's start), warm.
    pub inbox_warm: Summary,
}

impl Rehydration {
    /// As JSON.
    pub fn to_json(self) -> Value {
        json!({"questions": self.questions, "pending": self.pending, "open_cold_ms": ms(self.open_cold),
               "list_cold_ms": ms(self.list_cold), "list_warm": self.list_warm.to_json(),
               "inbox_warm": self.inbox_warm.to_json()})
    }
}

/// Measures on the database in `data_dir` holding `questions` questions.
pub async fn measure(data_dir: &Path, questions: usize, warm_rounds: usize) -> Result<Rehydration, Failure> {
    for suffix in ["", "-wal", "-shm"] {
        drop_file(&data_dir.join(format!("beckon.db{suffix}")))?;
    }
    let started = Instant::now();
    let beckon = Beckon::start(RuntimeConfig::new(data_dir), StartOptions::default()).await?;
    let open_cold = started.elapsed();
    let started = Instant::now();
    let first = beckon.inbox().pending().await?;
    let list_cold = started.elapsed();
    let mut warm = Vec::with_capacity(warm_rounds);
    for _ in 0..warm_rounds {
        let started = Instant::now();
        let listed = beckon.inbox().pending().await?;
        warm.push(started.elapsed());
        if listed.len() != first.len() {
            return Err("the listing changed between rounds".into());
        }
    }
    if first.iter().any(|q| q.agent.is_empty()) {
        return Err("a pending question without its agent".into());
    }
    let mut inbox_warm = Vec::with_capacity(warm_rounds);
    for _ in 0..warm_rounds {
        let started = Instant::now();
        let lines = beckon.inbox().entries().await?;
        inbox_warm.push(started.elapsed());
        if lines.len() != first.len() {
            return Err("the inbox's lines and the pending questions differ".into());
        }
    }
    beckon.shutdown().await;
    Ok(Rehydration {
        questions,
        pending: first.len(),
        open_cold,
        list_cold,
        list_warm: Summary::of(warm).ok_or("no warm rounds")?,
        inbox_warm: Summary::of(inbox_warm).ok_or("no warm rounds")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn lists_every_pending_question_cold_and_warm() {
        let cache = tempfile::tempdir().unwrap();
        let dir = crate::inbox_db::data_dir(cache.path(), 3_000).unwrap();
        let figures = measure(&dir, 3_000, 3).await.unwrap();
        assert_eq!(figures.pending, 30);
        assert_eq!(figures.list_warm.count, 3);
    }
}
