//! How the store is doing: whether it is ready, what it has committed, what the server has on
//! its hands — for health checks, operators' metrics and benchmarks.

use beckon_store::Workload;

use super::handle::Beckon;
use crate::clock::Clock;
use crate::error::Result;
use crate::runtime::Records;

/// What the store has committed since this runtime started: for benchmarks and tests that
/// check how many syncs to disk a piece of work costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreCounts {
    /// Write transactions committed (each a sync to disk).
    pub commits: u64,
    /// Questions those transactions resolved.
    pub resolutions: u64,
}

/// How the store is doing.
#[derive(Debug, Clone, Copy)]
pub struct Health<'a> {
    records: &'a Records,
    clock: &'a dyn Clock,
}

impl Beckon {
    /// How the store is doing.
    pub fn health(&self) -> Health<'_> {
        Health { records: &self.rt.records, clock: &*self.rt.clock }
    }
}

impl Health<'_> {
    /// How many transactions the store committed, and how many questions they resolved.
    pub async fn counts(self) -> Result<StoreCounts> {
        self.records.call(|store| Ok(StoreCounts { commits: store.commits(), resolutions: store.resolutions() })).await
    }

    /// What the server has on its hands now (questions and sessions waiting, callbacks and
    /// channel posts not yet sent, people signed in), for its operators' metrics: counts only.
    pub async fn workload(self) -> Result<Workload> {
        let now = self.clock.now_ms();
        self.records.call(move |store| store.read().workload(now)).await
    }

    /// Whether this replica is ready to serve: its database answers and holds the schema this
    /// build knows.
    pub async fn ready(self) -> bool {
        self.records.call(|store| store.read().schema_current()).await.unwrap_or(false)
    }

    /// How many write transactions the store has committed since this runtime started, each
    /// one synced to disk: what a workload costs in durable commits.
    pub async fn commits(self) -> Result<u64> {
        self.records.call(|store| Ok(store.commits())).await
    }

    /// How many jobs (reads and writes) the store has been given since this runtime started:
    /// what a workload costs in trips to the store.
    pub fn jobs(self) -> u64 {
        self.records.jobs()
    }
}
