//! The sessions whose task is alive, each with its mailbox, and a count of the states tasks
//! have committed, by which facts read ahead of a task are known to be still current.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use beckon_core::SessionId;
use tokio::sync::mpsc;

use super::input::Input;

/// How many counters the commits are spread over: a commit in one shard leaves the facts read
/// for sessions of the others current.
const SHARDS: usize = 64;

type Mailboxes = HashMap<SessionId, mpsc::UnboundedSender<Input>>;

/// The live tasks.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    mailboxes: Mutex<Mailboxes>,
    revisions: Arc<Revisions>,
}

/// How many states tasks have committed, per shard of sessions. Bumped on the store's thread
/// inside the committing transaction, so a read on that thread sees a count and the states it
/// covers together.
#[derive(Debug)]
pub(crate) struct Revisions([AtomicU64; SHARDS]);

impl Default for Revisions {
    fn default() -> Self {
        Revisions(std::array::from_fn(|_| AtomicU64::new(0)))
    }
}

impl Revisions {
    /// The count for `session`'s shard: read with a session's facts and compared when its
    /// task starts with them, it tells whether a state was committed in between.
    pub(crate) fn of(&self, session: SessionId) -> u64 {
        self.0[shard(session)].load(Ordering::Acquire)
    }

    /// Counts a commit of `session`'s state.
    pub(crate) fn bump(&self, session: SessionId) {
        self.0[shard(session)].fetch_add(1, Ordering::AcqRel);
    }
}

/// The registry, locked: held only for map operations and channel sends.
pub(crate) struct Locked<'a> {
    mailboxes: MutexGuard<'a, Mailboxes>,
    revisions: &'a Revisions,
}

impl Registry {
    pub(crate) fn lock(&self) -> Locked<'_> {
        Locked { mailboxes: self.mailboxes.lock().unwrap_or_else(PoisonError::into_inner), revisions: &self.revisions }
    }

    pub(crate) fn revisions(&self) -> &Arc<Revisions> {
        &self.revisions
    }
}

impl Locked<'_> {
    pub(crate) fn mailbox(&self, session: SessionId) -> Option<&mpsc::UnboundedSender<Input>> {
        self.mailboxes.get(&session)
    }

    pub(crate) fn insert(&mut self, session: SessionId, mailbox: mpsc::UnboundedSender<Input>) {
        self.mailboxes.insert(session, mailbox);
    }

    /// Whether no state of `session`'s shard was committed since `revision` was read.
    pub(crate) fn unchanged_since(&self, session: SessionId, revision: u64) -> bool {
        self.revisions.of(session) == revision
    }

    /// Unregisters `session`'s task: it has ended.
    pub(crate) fn remove(&mut self, session: SessionId) {
        self.mailboxes.remove(&session);
    }
}

fn shard(session: SessionId) -> usize {
    let bytes = session.as_uuid().as_bytes();
    // The id's random tail, so that sessions made in the same millisecond spread out.
    usize::from(bytes[15]) % SHARDS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(last: u8) -> SessionId {
        format!("0190f1d2-0000-7000-8000-0000000000{last:02x}").parse().unwrap()
    }

    #[test]
    fn a_commit_changes_only_its_own_shard() {
        let registry = Registry::default();
        let (one, other) = (session(1), session(2));
        let (before_one, before_other) = (registry.revisions().of(one), registry.revisions().of(other));
        registry.revisions().bump(one);
        let locked = registry.lock();
        assert!(!locked.unchanged_since(one, before_one), "the commit must show");
        assert!(locked.unchanged_since(other, before_other), "another shard is untouched");
    }

    #[test]
    fn mailboxes_come_and_go() {
        let registry = Registry::default();
        let (mailbox, _inbox) = mpsc::unbounded_channel();
        let mut locked = registry.lock();
        locked.insert(session(1), mailbox);
        assert!(locked.mailbox(session(1)).is_some());
        assert!(locked.mailbox(session(2)).is_none());
        locked.remove(session(1));
        assert!(locked.mailbox(session(1)).is_none());
    }
}
