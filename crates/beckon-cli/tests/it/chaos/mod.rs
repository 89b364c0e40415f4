//! `beckon serve` killed with SIGKILL at random moments while concurrent clients ask and answer
//! over HTTP, then started again on the same data folder. Afterwards every question is resolved
//! exactly once with the answer its client was told was saved, every in-app session has
//! completed with exactly one tool_result per tool_use, every callback arrived (signed, under
//! one idempotency key however often it was retried), Slack and Telegram each show exactly the
//! messages the store records — never two for a question, however often a kill landed between a
//! post and its record — each showing how its question ended, and the database passes
//! `PRAGMA integrity_check`.
//!
//! The same run against two replicas sharing a PostgreSQL database (a real one the test starts):
//! clients spread over both, either killed at random, and the same invariants read from the
//! shared database — callbacks delivered, channel posts never doubled, each in-app session run
//! by one replica at a time.
//!
//! The short form runs on every push. `BECKON_CHAOS=full` runs 1,000 questions and at least 30
//! kills. Every random choice comes from one seed, printed first; `BECKON_CHAOS_SEED=<seed>`
//! makes the same choices again.

mod approver;
mod audit;
mod caller;
mod channels;
mod journeys;
mod kills;
mod plan;
mod progress;
mod receiver;
mod run;

use run::{Topology, chaos};

use crate::support::postgres::database;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_is_lost_or_doubled_when_serve_is_killed_at_random() {
    chaos(Topology::Lone).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_is_lost_or_doubled_when_replicas_are_killed_at_random() {
    let (cluster, url) = database("team").await;
    chaos(Topology::Replicas { count: 2, url }).await;
    drop(cluster);
}
