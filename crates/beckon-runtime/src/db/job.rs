//! The jobs the store's thread runs in a write group, and what it tells after a commit.

use beckon_store::{StoredEvent, Tx, Written};
use tokio::sync::oneshot;

use crate::error::{Error, Result};

/// What the store thread calls after each commit, with the committed events and whether it
/// queued callbacks. It runs on the store thread, so it must be quick.
pub(crate) trait AfterCommit: Send + Sync {
    fn committed(&self, events: &[StoredEvent], callbacks_queued: bool);
}

/// A write waiting for its group: run inside the group's transaction (again, from the start,
/// when another write of the group failed and the group was rolled back to run once more),
/// then told how the group ended.
pub(super) trait WriteJob: Send {
    fn run(&mut self, tx: &mut Tx<'_>) -> beckon_store::Result<()>;
    fn finish(self: Box<Self>, outcome: beckon_store::Result<Written>, hook: &dyn AfterCommit);
}

/// A write closure, its value once it ran, and where its caller waits.
pub(super) struct Write<T, F> {
    pub(super) f: F,
    pub(super) value: Option<T>,
    pub(super) reply: oneshot::Sender<Result<T>>,
}

impl<T, F> WriteJob for Write<T, F>
where
    T: Send,
    F: Fn(&mut Tx<'_>) -> beckon_store::Result<T> + Send,
{
    fn run(&mut self, tx: &mut Tx<'_>) -> beckon_store::Result<()> {
        self.value = Some((self.f)(tx)?);
        Ok(())
    }

    fn finish(self: Box<Self>, outcome: beckon_store::Result<Written>, hook: &dyn AfterCommit) {
        let Write { value, reply, .. } = *self;
        let answer = outcome.map_err(Error::from).and_then(|written| {
            if !written.events.is_empty() || written.callbacks_queued {
                hook.committed(&written.events, written.callbacks_queued);
            }
            value.ok_or(Error::ShuttingDown)
        });
        let _ = reply.send(answer);
    }
}
