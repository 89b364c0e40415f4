//! Denying many approvals at once: the runtime in this process with `approvals` external
//! approvals pending, each long-polled by its own waiter the way an agent waits on
//! `GET /v1/questions/{id}?wait=`, then one batch deny from the window. Measured: how long the
//! batch takes to commit, how many durable commits it took (counted by the store), and how long
//! until every waiter holds its denial.

use std::path::Path;
use std::time::{Duration, Instant};

use beckon_core::{AnsweredVia, Approval, Outcome, QuestionRequest, RequestId};
use beckon_runtime::{BatchDecision, Beckon, ExternalAsk, RuntimeConfig, StartOptions};
use beckon_store::{QuestionRecord, QuestionStatus};
use serde_json::{Value, json};

use crate::Failure;
use crate::stats::ms;

/// What the model is told.
pub const MESSAGE: &str = "not now";
/// The longest a waiter holds its long-poll (the gateway's ceiling).
const WAIT: Duration = Duration::from_secs(120);

/// The figures.
#[derive(Debug, Clone, Copy)]
pub struct BatchDeny {
    /// Approvals denied.
    pub approvals: usize,
    /// Asking them all (concurrently).
    pub ask: Duration,
    /// From calling the batch to its receipt: committed.
    pub commit: Duration,
    /// Durable commits the batch took.
    pub commits: u64,
    /// From calling the batch to the last waiter holding its denial.
    pub all_resumed: Duration,
    /// Waiters that came back with their denial.
    pub resumed: usize,
}

impl BatchDeny {
    /// As JSON.
    pub fn to_json(self) -> Value {
        json!({"approvals": self.approvals, "ask_all_ms": ms(self.ask), "commit_ms": ms(self.commit),
               "commits": self.commits, "all_resumed_ms": ms(self.all_resumed), "resumed": self.resumed})
    }
}

/// An approval for `npm test` in a shop's project.
fn npm_test() -> Result<QuestionRequest, Failure> {
    let approval = Approval::parse(
        &json!({"tool_name": "Bash", "input": {"command": "npm test"}, "project": "/home/ada/shop"}),
        "approval",
    )
    .map_err(|problems| format!("{problems:?}"))?;
    Ok(QuestionRequest::for_approval(approval))
}

/// Whether `record` is resolved as a denial with [`MESSAGE`] for the model.
fn denied(record: &QuestionRecord) -> bool {
    match (&record.status, &record.outcome) {
        (QuestionStatus::Answered, Some(Outcome::Answered { answers })) => {
            !record.request.allows(answers) && serde_json::to_string(answers).is_ok_and(|s| s.contains(MESSAGE))
        }
        _ => false,
    }
}

/// Starts a runtime on `data_dir`, asks `approvals` approvals, parks a waiter on each, and
/// denies them all in one batch.
pub async fn measure(data_dir: &Path, approvals: usize) -> Result<BatchDeny, Failure> {
    std::fs::create_dir_all(data_dir)?;
    let beckon = Beckon::start(RuntimeConfig::new(data_dir), StartOptions::default()).await?;
    let measured = run(&beckon, approvals).await;
    beckon.shutdown().await;
    measured
}

async fn run(beckon: &Beckon, approvals: usize) -> Result<BatchDeny, Failure> {
    let request = npm_test()?;
    let asked_at = Instant::now();
    let asks: Vec<_> = (0..approvals)
        .map(|n| {
            let (beckon, request) = (beckon.clone(), request.clone());
            tokio::spawn(async move {
                let ask = ExternalAsk {
                    agent: ["claude-code", "codex", "release-bot"][n % 3].into(),
                    request: Some(request),
                    ..ExternalAsk::default()
                };
                beckon.ask_external(ask).await.map(|asked| asked.request_id)
            })
        })
        .collect();
    let mut ids: Vec<RequestId> = Vec::with_capacity(approvals);
    for ask in asks {
        ids.push(ask.await??);
    }
    let ask = asked_at.elapsed();

    // Each waiter reads its question, registers, and reads it again: two store jobs, the
    // second given only once it is registered.
    let jobs_before = beckon.health().jobs();
    let waiters: Vec<_> = ids
        .iter()
        .map(|&id| {
            let beckon = beckon.clone();
            tokio::spawn(async move {
                let record = beckon.inbox().wait_for_resolution(id, WAIT).await?;
                Ok::<_, beckon_runtime::Error>((record, Instant::now()))
            })
        })
        .collect();
    let parked_by = Instant::now() + Duration::from_secs(60);
    while beckon.health().jobs() < jobs_before + 2 * approvals as u64 {
        if Instant::now() > parked_by {
            return Err("the waiters did not all start waiting".into());
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    // One more trip to the store, behind every waiter's second read.
    beckon.events().last_seq().await?;

    let commits_before = beckon.health().commits().await?;
    let started = Instant::now();
    let receipt = beckon
        .resolve_batch(ids.clone(), AnsweredVia::Window, BatchDecision::Deny { message: Some(MESSAGE.into()) })
        .await?;
    let commit = started.elapsed();
    let commits = beckon.health().commits().await? - commits_before;
    if receipt.resolved.len() != approvals || !receipt.failed.is_empty() {
        return Err(format!(
            "the batch denied {} of {approvals}; {} failed",
            receipt.resolved.len(),
            receipt.failed.len()
        )
        .into());
    }
    let mut last = started;
    let mut resumed = 0;
    for waiter in waiters {
        let (record, at) = waiter.await??;
        if !denied(&record) {
            return Err(format!("waiter for {} came back without its denial: {:?}", record.id, record.status).into());
        }
        resumed += 1;
        last = last.max(at);
    }
    Ok(BatchDeny { approvals, ask, commit, commits, all_resumed: last - started, resumed })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn one_commit_denies_every_waiter() {
        let dir = tempfile::tempdir().unwrap();
        let figures = measure(dir.path(), 40).await.unwrap();
        assert_eq!(figures.resumed, 40);
        assert_eq!(figures.commits, 1);
    }
}
