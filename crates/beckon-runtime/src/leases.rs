//! Work one replica of a team server does at a time — the callback outbox, retention, Slack
//! and Telegram, each in-app session — held through the store's leases.
//!
//! A replica is named by an id kept in its data folder, so a replica started again after a
//! crash is the same replica: it lets go of everything it held (nothing of it runs any more)
//! and claims again what it takes up. A heartbeat renews what it holds every third of the
//! lease's length; a replica that dies stops renewing, and once its leases run out another
//! replica's claim succeeds. On a lone Beckon (SQLite) every claim succeeds without a write.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::clock::Clock;
use crate::db::{Db, LeaseChange};
use crate::stop::Stop;

/// How long a lease lasts unless renewed: how long a dead replica's work waits for another.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(15);
/// The shortest lease allowed: the heartbeat must fit three times into it with room to spare.
pub const SHORTEST_LEASE: Duration = Duration::from_secs(2);
/// The file in the data folder that names this replica.
const REPLICA_FILE: &str = "replica-id";

/// This replica's leases; cheap to clone.
#[derive(Clone)]
pub(crate) struct Leases(Arc<Inner>);

struct Inner {
    db: Db,
    clock: Arc<dyn Clock>,
    owner: String,
    lease: Duration,
    /// Whether other replicas share the store (PostgreSQL); if not, every claim succeeds.
    shared: bool,
    /// How many of this replica's tasks hold each piece of work taken with [`Leases::take`]:
    /// the lease is given back when the last does. Each count is behind its own lock, held
    /// across the claim or release, so a task taking work is never undone by one giving it back.
    takers: Mutex<HashMap<String, Arc<tokio::sync::Mutex<usize>>>>,
    /// What [`Leases::keep`] last learnt of each piece of work: whether this replica held it,
    /// and when (Unix ms). Within a third of a lease it is answered from here: a claim made then
    /// lasts a whole lease, and the heartbeat renews it meanwhile.
    kept: Mutex<HashMap<String, (bool, i64)>>,
}

impl std::fmt::Debug for Leases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Leases").field("owner", &self.0.owner).field("shared", &self.0.shared).finish_non_exhaustive()
    }
}

impl Leases {
    pub(crate) fn new(db: Db, clock: Arc<dyn Clock>, owner: String, lease: Duration, shared: bool) -> Leases {
        let (takers, kept) = (Mutex::new(HashMap::new()), Mutex::new(HashMap::new()));
        Leases(Arc::new(Inner { db, clock, owner, lease, shared, takers, kept }))
    }

    /// Whether other replicas share the work.
    pub(crate) fn shared(&self) -> bool {
        self.0.shared
    }

    /// How long a lease lasts unless renewed.
    pub(crate) fn lease(&self) -> Duration {
        self.0.lease
    }

    /// Claims `work` for this replica, or renews its claim: whether it holds it now. For work
    /// one worker of the replica does for as long as it may (the outbox, retention, channels),
    /// asked again before each round of it.
    pub(crate) async fn keep(&self, work: &str) -> bool {
        if !self.0.shared {
            return true;
        }
        let now = self.0.clock.now_ms();
        if let Some(held) = self.known(work, now, self.lease_ms() / 3) {
            return held;
        }
        let held = self.claim(work).await;
        self.0.kept.lock().unwrap_or_else(PoisonError::into_inner).insert(work.to_owned(), (held, now));
        held
    }

    /// Whether this replica holds `work` as [`Leases::keep`] learnt within the last lease,
    /// without asking the database (`false` when it has not learnt that long). Whoever keeps
    /// `work` asks again at least every third of a lease.
    pub(crate) fn seems_held(&self, work: &str) -> bool {
        !self.0.shared || self.known(work, self.0.clock.now_ms(), self.lease_ms()).unwrap_or(false)
    }

    /// What `keep` learnt of `work` less than `within` ms before `now`.
    fn known(&self, work: &str, now: i64, within: i64) -> Option<bool> {
        let kept = self.0.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let (held, at) = *kept.get(work)?;
        (now.saturating_sub(at) < within).then_some(held)
    }

    /// Takes `work` for one of this replica's tasks: whether it holds it now. Several tasks of
    /// the replica may hold the same work; the lease goes when the last of them gives it back.
    pub(crate) async fn take(&self, work: &str) -> bool {
        if !self.0.shared {
            return true;
        }
        let slot = self.slot(work);
        let mut takers = slot.lock().await;
        if *takers == 0 && !self.claim(work).await {
            return false;
        }
        *takers += 1;
        true
    }

    /// Gives back `work` a task took; the lease goes when no task of this replica holds it.
    pub(crate) async fn give_back(&self, work: &str) {
        if !self.0.shared {
            return;
        }
        self.0.kept.lock().unwrap_or_else(PoisonError::into_inner).remove(work);
        let slot = self.slot(work);
        let mut takers = slot.lock().await;
        *takers = takers.saturating_sub(1);
        if *takers > 0 {
            return;
        }
        if let Err(err) = self.0.db.lease(work, &self.0.owner, LeaseChange::Release).await {
            tracing::warn!(work, %err, "cannot give back a lease; it runs out by itself");
        }
        let mut all = self.0.takers.lock().unwrap_or_else(PoisonError::into_inner);
        // Only this task and the map hold the count: nobody is waiting to take the work.
        if Arc::strong_count(&slot) == 2 {
            all.remove(work);
        }
    }

    /// Lets go of everything this replica held before it started (nothing of it runs now).
    pub(crate) async fn start_afresh(&self) -> crate::Result<()> {
        if !self.0.shared {
            return Ok(());
        }
        let owner = self.0.owner.clone();
        let released = self.0.db.write(move |tx| tx.release_leases(&owner)).await?;
        if released > 0 {
            tracing::info!(released, owner = %self.0.owner, "let go of the leases a previous run of this replica held");
        }
        Ok(())
    }

    /// Renews every lease this replica holds.
    async fn renew(&self) {
        let (owner, now, lease) = (self.0.owner.clone(), self.0.clock.now_ms(), self.lease_ms());
        if let Err(err) = self.0.db.write(move |tx| tx.renew_leases(&owner, now, lease)).await {
            tracing::warn!(%err, "cannot renew this replica's leases");
        }
    }

    async fn claim(&self, work: &str) -> bool {
        let change = LeaseChange::Claim { now_ms: self.0.clock.now_ms(), ttl_ms: self.lease_ms() };
        match self.0.db.lease(work, &self.0.owner, change).await {
            Ok(claimed) => claimed,
            Err(err) => {
                tracing::warn!(work, %err, "cannot claim a lease");
                false
            }
        }
    }

    fn slot(&self, work: &str) -> Arc<tokio::sync::Mutex<usize>> {
        let mut all = self.0.takers.lock().unwrap_or_else(PoisonError::into_inner);
        all.entry(work.to_owned()).or_default().clone()
    }

    fn lease_ms(&self) -> i64 {
        i64::try_from(self.0.lease.as_millis()).unwrap_or(i64::MAX)
    }
}

/// Renews this replica's leases every third of their length until the runtime stops.
pub(crate) async fn heartbeat(leases: Leases, stop: Stop) {
    let every = leases.lease() / 3;
    loop {
        tokio::select! {
            () = tokio::time::sleep(every) => leases.renew().await,
            () = stop.stopping() => return,
        }
    }
}

/// This replica's id: read from the data folder, or made and kept there at its first start.
pub(crate) fn replica_id(data_dir: &Path) -> std::io::Result<String> {
    let path = data_dir.join(REPLICA_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => return Ok(text.trim().to_owned()),
        Ok(_) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(err),
    }
    let host = hostname();
    let id = format!("{host}-{}", hex::encode(rand::random::<[u8; 6]>()));
    crate::private_file::write(&path, id.as_bytes())?;
    Ok(id)
}

/// The machine's name, for telling replicas apart in the leases table (`replica` if unknown).
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|name| name.trim().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').take(40).collect())
        .filter(|name: &String| !name.is_empty())
        .unwrap_or_else(|| "replica".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replica_keeps_its_id_across_starts_and_two_folders_get_two() {
        let one = tempfile::tempdir().unwrap();
        let two = tempfile::tempdir().unwrap();
        let first = replica_id(one.path()).unwrap();
        assert_eq!(replica_id(one.path()).unwrap(), first);
        assert_ne!(replica_id(two.path()).unwrap(), first);
        assert!(!first.is_empty() && !first.contains(char::is_whitespace));
    }
}
