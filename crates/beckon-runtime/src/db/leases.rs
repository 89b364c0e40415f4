//! Lease claims and give-backs, merged. A team server's session tasks each claim their
//! session's lease when they start and give it back when they end: two small writes a task,
//! each a job and a statement of its own in a group. Queued as lease changes instead, the
//! claims of one batch are made by one statement and the give-backs by another, in one job.

use std::collections::HashSet;

use beckon_store::Tx;
use tokio::sync::oneshot;

use super::job::{AfterCommit, WriteJob};
use crate::error::{Error, Result};

/// What a caller asks of one lease.
pub(crate) enum LeaseChange {
    /// Claim `work` (or renew the claim) until `now_ms + ttl_ms`.
    Claim { now_ms: i64, ttl_ms: i64 },
    /// Give `work` back.
    Release,
}

/// One caller's lease change and where it waits: whether it holds the work now (a claim), or
/// held it until now (a give-back).
pub(crate) struct LeaseJob {
    pub(crate) work: String,
    pub(crate) owner: String,
    pub(crate) change: LeaseChange,
    pub(crate) reply: oneshot::Sender<Result<bool>>,
}

/// The lease changes of one batch, as one write job.
pub(super) struct Merged {
    jobs: Vec<LeaseJob>,
    /// Each job's answer once the statements ran.
    answers: Vec<bool>,
}

impl Merged {
    pub(super) fn new(jobs: Vec<LeaseJob>) -> Merged {
        Merged { jobs, answers: Vec::new() }
    }
}

/// What one statement does for the works of several jobs: claims them for one owner for one
/// length (`ttl_ms`), or gives back one owner's (`ttl_ms` is `None`).
#[derive(Debug, PartialEq)]
struct Together<'a> {
    owner: &'a str,
    ttl_ms: Option<i64>,
    /// A claim's clock: the earliest caller's, so no lease is taken as run out before each of
    /// them saw it run out.
    now_ms: i64,
    works: Vec<&'a str>,
}

/// `jobs` gathered into the statements that make them, in order of first appearance.
fn together(jobs: &[LeaseJob]) -> Vec<Together<'_>> {
    let mut statements: Vec<Together<'_>> = Vec::new();
    for job in jobs {
        let (ttl_ms, now_ms) = match job.change {
            LeaseChange::Claim { now_ms, ttl_ms } => (Some(ttl_ms), now_ms),
            LeaseChange::Release => (None, i64::MAX),
        };
        match statements.iter_mut().find(|s| s.owner == job.owner && s.ttl_ms == ttl_ms) {
            Some(statement) => {
                statement.now_ms = statement.now_ms.min(now_ms);
                statement.works.push(&job.work);
            }
            None => statements.push(Together { owner: &job.owner, ttl_ms, now_ms, works: vec![&job.work] }),
        }
    }
    statements
}

impl WriteJob for Merged {
    fn run(&mut self, tx: &mut Tx<'_>) -> beckon_store::Result<()> {
        // What each statement did: (a claim, owner, work), borrowed from the jobs.
        let mut done: HashSet<(bool, &str, &str)> = HashSet::new();
        for statement in together(&self.jobs) {
            let changed = match statement.ttl_ms {
                Some(ttl_ms) => tx.claim_leases(&statement.works, statement.owner, statement.now_ms, ttl_ms)?,
                None => tx.release_leases_on(&statement.works, statement.owner)?,
            };
            for work in statement.works.iter().filter(|work| changed.iter().any(|name| name == *work)) {
                done.insert((statement.ttl_ms.is_some(), statement.owner, work));
            }
        }
        let answers = self
            .jobs
            .iter()
            .map(|job| {
                let claim = matches!(job.change, LeaseChange::Claim { .. });
                done.contains(&(claim, job.owner.as_str(), job.work.as_str()))
            })
            .collect();
        self.answers = answers;
        Ok(())
    }

    fn finish(self: Box<Self>, outcome: beckon_store::Result<beckon_store::Written>, _hook: &dyn AfterCommit) {
        let Merged { jobs, answers } = *self;
        match outcome {
            Ok(_) => {
                for (job, answer) in jobs.into_iter().zip(answers) {
                    let _ = job.reply.send(Ok(answer));
                }
            }
            Err(err) => {
                let detail = err.to_string();
                for job in jobs {
                    let _ = job.reply.send(Err(Error::Store(beckon_store::Error::GroupFailed(detail.clone()))));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use beckon_store::testing::TestCluster;
    use beckon_store::{Store, StoredEvent};

    use super::*;
    use crate::db::Db;

    struct Nothing;

    impl AfterCommit for Nothing {
        fn committed(&self, _events: &[StoredEvent], _callbacks_queued: bool) {}
    }

    fn job(work: &str, owner: &str, change: LeaseChange) -> LeaseJob {
        LeaseJob { work: work.into(), owner: owner.into(), change, reply: oneshot::channel().0 }
    }

    fn statement<'a>(owner: &'a str, ttl_ms: Option<i64>, now_ms: i64, works: &[&'a str]) -> Together<'a> {
        Together { owner, ttl_ms, now_ms, works: works.to_vec() }
    }

    #[test]
    fn claims_made_together_go_by_owner_and_length_under_the_earliest_clock() {
        let jobs = [
            job("session:1", "a", LeaseChange::Claim { now_ms: 1_005, ttl_ms: 500 }),
            job("session:2", "a", LeaseChange::Release),
            job("session:3", "a", LeaseChange::Claim { now_ms: 1_001, ttl_ms: 500 }),
            job("session:4", "b", LeaseChange::Claim { now_ms: 1_009, ttl_ms: 500 }),
            job("outbox", "a", LeaseChange::Claim { now_ms: 1_003, ttl_ms: 900 }),
            job("session:5", "b", LeaseChange::Release),
        ];
        assert_eq!(
            together(&jobs),
            [
                statement("a", Some(500), 1_001, &["session:1", "session:3"]),
                statement("a", None, i64::MAX, &["session:2"]),
                statement("b", Some(500), 1_009, &["session:4"]),
                statement("a", Some(900), 1_003, &["outbox"]),
                statement("b", None, i64::MAX, &["session:5"]),
            ]
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn callers_queued_together_each_learn_their_own_answer() {
        let (cluster, url) = tokio::task::spawn_blocking(|| {
            let cluster = TestCluster::start(&[]).unwrap();
            let url = cluster.create_database("leases").unwrap();
            (cluster, url)
        })
        .await
        .unwrap();
        let (store, mut other) = {
            let url = url.clone();
            tokio::task::spawn_blocking(move || (Store::connect(&url).unwrap(), Store::connect(&url).unwrap()))
                .await
                .unwrap()
        };
        let held = tokio::task::spawn_blocking(move || {
            other.write(|tx| tx.claim_lease("session:held", "replica-b", 1_000, 60_000)).unwrap().value.is_some()
        });
        assert!(held.await.unwrap());
        let db = Db::start(store, Arc::new(Nothing)).unwrap();

        let works: Vec<String> =
            (0..40).map(|n| if n % 5 == 0 { "session:held".into() } else { format!("session:{n}") }).collect();
        let mut claims = tokio::task::JoinSet::new();
        for work in works.clone() {
            let db = db.clone();
            let claim = LeaseChange::Claim { now_ms: 2_000, ttl_ms: 5_000 };
            claims.spawn(async move { (db.lease(&work, "replica-a", claim).await.unwrap(), work) });
        }
        let mut answers = Vec::new();
        while let Some(answer) = claims.join_next().await {
            answers.push(answer.unwrap());
        }
        assert_eq!(answers.len(), works.len());
        for (claimed, work) in &answers {
            assert_eq!(*claimed, work != "session:held", "{work}");
        }

        // Give-backs: only what replica-a holds was held until now.
        let mut releases = tokio::task::JoinSet::new();
        for work in ["session:1", "session:held", "session:2", "session:never"] {
            let db = db.clone();
            releases.spawn(async move { (db.lease(work, "replica-a", LeaseChange::Release).await.unwrap(), work) });
        }
        let mut released = Vec::new();
        while let Some(answer) = releases.join_next().await {
            released.push(answer.unwrap());
        }
        released.sort_by_key(|(_, work)| *work);
        assert_eq!(
            released,
            [(true, "session:1"), (true, "session:2"), (false, "session:held"), (false, "session:never")]
        );
        drop(db);
        drop(cluster);
    }
}
