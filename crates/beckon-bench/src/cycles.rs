//! The whole loop, as an agent lives it: a session starts and stops on its question (pause),
//! the person answers and the session resumes into that tool call and completes (resume).

use beckon_core::GivenAnswers;
use std::sync::Arc;
use std::time::{Duration, Instant};

use beckon_core::AnsweredVia;
use beckon_runtime::Decision;
use serde_json::{Value, json};

use crate::Failure;
use crate::rig::{AGENT, ANSWER, Rig};
use crate::stats::Summary;

/// Pause, resume and whole-cycle latencies, and the rate.
#[derive(Debug, Clone, Copy)]
pub struct Cycles {
    /// Start of a session → its question is pending.
    pub pause: Summary,
    /// The answer → the session has completed.
    pub resume: Summary,
    /// Both.
    pub cycle: Summary,
    /// Cycles completed per second of wall time.
    pub per_second: f64,
    /// Durable commits per cycle, counted by the store.
    pub commits_per_cycle: f64,
    /// Jobs (reads and writes) the store ran per cycle.
    pub store_jobs_per_cycle: f64,
}

impl Cycles {
    /// As JSON.
    pub fn to_json(self) -> Value {
        json!({"pause": self.pause.to_json(), "resume": self.resume.to_json(), "cycle": self.cycle.to_json(),
               "cycles_per_s": (self.per_second * 10.0).round() / 10.0,
               "commits_per_cycle": (self.commits_per_cycle * 100.0).round() / 100.0,
               "store_jobs_per_cycle": (self.store_jobs_per_cycle * 100.0).round() / 100.0})
    }
}

/// One cycle: its pause and resume.
pub(crate) async fn one(rig: &Rig, n: usize) -> Result<(Duration, Duration), Failure> {
    let started = Instant::now();
    let session = rig.beckon.start_session(AGENT, &format!("Release build {n}")).await?;
    let (question, pending_at) = rig.pending(session).await?;
    let answering = Instant::now();
    rig.beckon
        .resolve(question, AnsweredVia::Window, Decision::Answer(GivenAnswers::Texts(vec![ANSWER.to_owned()])))
        .await?;
    let completed_at = rig.completed(session).await?;
    Ok((pending_at.saturating_duration_since(started), completed_at.saturating_duration_since(answering)))
}

/// What the store did over a run: its commits and jobs, counted from before the first cycle.
struct StoreCount {
    commits: u64,
    jobs: u64,
}

impl StoreCount {
    async fn now(rig: &Rig) -> Result<StoreCount, Failure> {
        // Counting commits is itself a job; the jobs are read after it so it is not counted.
        let commits = rig.beckon.health().commits().await?;
        Ok(StoreCount { commits, jobs: rig.beckon.health().jobs() })
    }

    /// Commits and jobs since `self`.
    async fn since(self, rig: &Rig) -> Result<(u64, u64), Failure> {
        let jobs = rig.beckon.health().jobs() - self.jobs;
        Ok((rig.beckon.health().commits().await? - self.commits, jobs))
    }
}

pub(crate) fn summarise(
    samples: Vec<(Duration, Duration)>,
    wall: Duration,
    (commits, jobs): (u64, u64),
) -> Result<Cycles, Failure> {
    let count = samples.len();
    let pause = Summary::of(samples.iter().map(|s| s.0).collect()).ok_or("no cycles")?;
    let resume = Summary::of(samples.iter().map(|s| s.1).collect()).ok_or("no cycles")?;
    let cycle = Summary::of(samples.iter().map(|s| s.0 + s.1).collect()).ok_or("no cycles")?;
    Ok(Cycles {
        pause,
        resume,
        cycle,
        per_second: count as f64 / wall.as_secs_f64(),
        commits_per_cycle: commits as f64 / count as f64,
        store_jobs_per_cycle: jobs as f64 / count as f64,
    })
}

/// `count` cycles one after another, after one that is not counted: a runtime just started
/// still has its own first trips to the store to make.
pub async fn sequential(rig: &Rig, count: usize) -> Result<Cycles, Failure> {
    let mut samples = Vec::with_capacity(count);
    one(rig, count).await?;
    let before = StoreCount::now(rig).await?;
    let started = Instant::now();
    for n in 0..count {
        samples.push(one(rig, n).await?);
    }
    let wall = started.elapsed();
    summarise(samples, wall, before.since(rig).await?)
}

/// `count` cycles all at once.
pub async fn concurrent(rig: Arc<Rig>, count: usize) -> Result<Cycles, Failure> {
    let before = StoreCount::now(&rig).await?;
    let started = Instant::now();
    let tasks: Vec<_> = (0..count)
        .map(|n| {
            let rig = rig.clone();
            tokio::spawn(async move { one(&rig, n).await.map_err(|err| err.to_string()) })
        })
        .collect();
    let mut samples = Vec::with_capacity(count);
    for task in tasks {
        samples.push(task.await??);
    }
    let wall = started.elapsed();
    summarise(samples, wall, before.since(&rig).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cycles_are_timed_and_every_session_completes_with_the_answer() {
        let dir = tempfile::tempdir().unwrap();
        let rig = Arc::new(Rig::start(dir.path(), None).await.unwrap());
        let one_by_one = sequential(&rig, 5).await.unwrap();
        assert_eq!(one_by_one.cycle.count, 5);
        assert!(one_by_one.cycle.median >= one_by_one.pause.median.min(one_by_one.resume.median));
        assert!(one_by_one.per_second > 0.0);
        // Begin the session, ask (folded into the model reply), answer, and complete.
        assert_eq!(one_by_one.commits_per_cycle, 4.0, "{one_by_one:?}");
        assert!(one_by_one.store_jobs_per_cycle >= one_by_one.commits_per_cycle, "{one_by_one:?}");
        let at_once = concurrent(rig.clone(), 20).await.unwrap();
        assert_eq!(at_once.cycle.count, 20);
        let filter = beckon_store::SessionFilter { limit: 500, ..Default::default() };
        let sessions = rig.beckon.inbox().sessions(filter).await.unwrap();
        // 5 + 20, and the uncounted first cycle.
        assert_eq!(sessions.sessions.len(), 26);
        for summary in &sessions.sessions {
            let view = rig.beckon.inbox().session(summary.id).await.unwrap();
            assert_eq!(view.session.status, beckon_core::conversation::SessionStatus::Completed);
            let text = serde_json::to_string(&view.timeline).unwrap();
            assert!(text.contains("Decided: Ship."), "{text}");
        }
        Arc::try_unwrap(rig).ok().unwrap().stop().await;
    }
}
