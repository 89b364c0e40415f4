//! A team server on PostgreSQL beside one person's SQLite file, measured the same way: the
//! pause/answer/resume cycle one after another and 1,000 at once (over two replicas of one
//! database), and how soon an answer given through one replica wakes a long-poll on the other.
//! PostgreSQL is a cluster of the bench's own (Debian's, `synchronous_commit` on, fsync on), on
//! the same machine.

use beckon_core::GivenAnswers;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use beckon_core::QuestionRequest;
use beckon_runtime::{Beckon, Decision, ExternalAsk};
use beckon_store::testing::TestCluster;
use serde_json::{Value, json};

use crate::Failure;
use crate::cycles::{self, Cycles};
use crate::rig::Rig;
use crate::stats::Summary;

/// The figures.
#[derive(Debug)]
pub struct Team {
    /// One after another on one replica.
    pub sequential: Cycles,
    /// All at once, half through each of two replicas.
    pub concurrent: Cycles,
    /// An answer committed through B → A's long-poll returns.
    pub wake: Summary,
}

impl Team {
    /// As JSON.
    pub fn to_json(&self) -> Value {
        json!({"sequential": self.sequential.to_json(), "concurrent_two_replicas": self.concurrent.to_json(),
               "answer_on_b_to_wake_on_a": self.wake.to_json()})
    }
}

/// Starts a PostgreSQL of the bench's own in `scratch` and measures `cycles` cycles and
/// `wakes` wake-ups.
pub async fn measure(scratch: &Path, cycles: usize, wakes: usize) -> Result<Team, Failure> {
    let (_cluster, url) = tokio::task::spawn_blocking(|| -> Result<(TestCluster, String), String> {
        let cluster = TestCluster::start(&[]).map_err(|err| err.to_string())?;
        let url = cluster.create_database("bench").map_err(|err| err.to_string())?;
        Ok((cluster, url))
    })
    .await??;
    let a = Arc::new(Rig::start_on(&scratch.join("a"), None, Some(&url)).await?);
    let b = Arc::new(Rig::start_on(&scratch.join("b"), None, Some(&url)).await?);
    let sequential = cycles::sequential(&a, cycles).await?;
    let concurrent = over_two(&a, &b, cycles).await?;
    let wake = wake(&a.beckon, &b.beckon, wakes).await?;
    for rig in [a, b] {
        if let Ok(rig) = Arc::try_unwrap(rig) {
            rig.stop().await;
        }
    }
    Ok(Team { sequential, concurrent, wake })
}

/// `count` cycles at once, each replica running half of them.
async fn over_two(a: &Arc<Rig>, b: &Arc<Rig>, count: usize) -> Result<Cycles, Failure> {
    let started = Instant::now();
    let tasks: Vec<_> = (0..count)
        .map(|n| {
            let rig = if n % 2 == 0 { a.clone() } else { b.clone() };
            tokio::spawn(async move { cycles::one(&rig, n).await.map_err(|err| err.to_string()) })
        })
        .collect();
    let mut samples = Vec::with_capacity(count);
    for task in tasks {
        samples.push(task.await??);
    }
    // Commits and jobs are each replica's own: not summed here.
    cycles::summarise(samples, started.elapsed(), (0, 0))
}

/// Asks through A, holds a long-poll on A, answers through B: from the answer given to B to A's
/// long-poll returning (B's commit included), `rounds` times.
async fn wake(a: &Beckon, b: &Beckon, rounds: usize) -> Result<Summary, Failure> {
    let request: QuestionRequest = serde_json::from_value(json!({"questions": [{
        "question": "Roll back the release?", "header": "Release", "multiSelect": false,
        "options": [{"label": "Yes", "description": "Roll back"}, {"label": "No", "description": "Keep it"}]
    }]}))?;
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let asked = a
            .ask_external(ExternalAsk {
                agent: "bench".into(),
                external_key: None,
                request: Some(request.clone()),
                timeout: None,
                on_timeout: Default::default(),
                default_answer: None,
                callback_url: None,
                metadata: None,
                asked_by: None,
                asking_person: None,
                audience: None,
            })
            .await?;
        let id = asked.request_id;
        let waiting = {
            let a = a.clone();
            tokio::spawn(async move {
                a.inbox()
                    .wait_for_resolution(id, Duration::from_secs(30))
                    .await
                    .map(|_| Instant::now())
                    .map_err(|e| e.to_string())
            })
        };
        // Let the long-poll settle into waiting.
        tokio::time::sleep(Duration::from_millis(5)).await;
        let answered = Instant::now();
        b.resolve(id, beckon_core::AnsweredVia::Http, Decision::Answer(GivenAnswers::Texts(vec!["Yes".into()])))
            .await?;
        let woke = waiting.await??;
        samples.push(woke.saturating_duration_since(answered));
    }
    Ok(Summary::of(samples).ok_or("no wake-ups")?)
}
