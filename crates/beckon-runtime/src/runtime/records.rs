//! The records and who hears of their changes: the store, the live event streams, the waits
//! for a question's resolution, and the callback worker's wake-up.

use std::sync::Arc;

use beckon_core::RequestId;
use beckon_store::{Store, StoredEvent, Tx};
use tokio::sync::{Notify, broadcast};

use crate::db::Db;
use crate::error::Result;
use crate::events::{Hub, TextDelta, Waiter, Waiters};

/// The store, with the streams and waits its commits feed.
pub(crate) struct Records {
    db: Db,
    hub: Hub,
    waiters: Arc<Waiters>,
    /// Wakes the callback worker.
    outbox: Arc<Notify>,
}

impl std::fmt::Debug for Records {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Records").finish_non_exhaustive()
    }
}

impl Records {
    pub(crate) fn new(db: Db, hub: Hub, waiters: Arc<Waiters>, outbox: Arc<Notify>) -> Records {
        Records { db, hub, waiters, outbox }
    }

    /// The store itself, for parts that hold it.
    pub(crate) fn db(&self) -> &Db {
        &self.db
    }

    /// Runs `f` on the store thread, on the latest durable data (see [`Db::call`]).
    pub(crate) async fn call<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> beckon_store::Result<T> + Send + 'static,
    {
        self.db.call(f).await
    }

    /// Runs `f` in a write transaction, returning once its commit is durable (see [`Db::write`]).
    pub(crate) async fn write<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&mut Tx<'_>) -> beckon_store::Result<T> + Send + 'static,
    {
        self.db.write(f).await
    }

    /// Queues a write nobody waits on (see [`Db::write_detached`]).
    pub(crate) fn write_detached<F>(&self, what: &'static str, f: F)
    where
        F: Fn(&mut Tx<'_>) -> beckon_store::Result<()> + Send + 'static,
    {
        self.db.write_detached(what, f);
    }

    /// How many jobs the store thread has been given.
    pub(crate) fn jobs(&self) -> u64 {
        self.db.jobs()
    }

    /// The events committed from now on.
    pub(crate) fn live_events(&self) -> broadcast::Receiver<Arc<StoredEvent>> {
        self.hub.live.subscribe()
    }

    /// The assistant's text as it streams.
    pub(crate) fn text_deltas(&self) -> broadcast::Receiver<TextDelta> {
        self.hub.text.subscribe()
    }

    /// A wait for question `id`'s resolution, woken by the commit that resolves it.
    pub(crate) fn wait_for(&self, id: RequestId) -> Waiter<'_> {
        self.waiters.register(id)
    }

    /// How many waits for a resolution are registered now.
    #[cfg(test)]
    pub(crate) fn waits(&self) -> usize {
        self.waiters.registered()
    }

    /// Tells the callback worker to look for callbacks to send.
    pub(crate) fn wake_callbacks(&self) {
        self.outbox.notify_one();
    }
}
