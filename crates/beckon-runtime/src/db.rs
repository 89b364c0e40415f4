//! The store's thread. The store is synchronous and owns one connection; every read and write
//! runs here, in order, and the events of each commit are handed on right after it, in seq
//! order, before the next job runs.

use std::sync::Arc;
use std::sync::mpsc as std_mpsc;

use beckon_store::{Committed, Store, StoredEvent, Tx};
use tokio::sync::oneshot;

use crate::error::{Error, Result};

/// What the store thread calls after each commit, with the committed events and whether it
/// queued callbacks. It runs on the store thread, so it must be quick.
pub(crate) trait AfterCommit: Send + Sync {
    fn committed(&self, events: &[StoredEvent], callbacks_queued: bool);
}

type Job = Box<dyn FnOnce(&mut Store, &dyn AfterCommit) + Send>;

/// A handle to the store thread; cheap to clone.
#[derive(Clone)]
pub(crate) struct Db {
    jobs: std_mpsc::Sender<Job>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Db")
    }
}

impl Db {
    /// Starts the thread around an open store.
    pub(crate) fn start(mut store: Store, after_commit: Arc<dyn AfterCommit>) -> Result<Db> {
        let (jobs, receiver) = std_mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("beckon-store".into())
            .spawn(move || {
                // Ends when every handle is dropped.
                while let Ok(job) = receiver.recv() {
                    job(&mut store, after_commit.as_ref());
                }
            })
            .map_err(|err| Error::DataDir {
                path: Default::default(),
                detail: format!("cannot start the store thread: {err}"),
            })?;
        Ok(Db { jobs })
    }

    async fn run<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Store, &dyn AfterCommit) -> beckon_store::Result<T> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let job: Job = Box::new(move |store, hook| {
            let _ = reply.send(f(store, hook));
        });
        self.jobs.send(job).map_err(|_| Error::ShuttingDown)?;
        answer.await.map_err(|_| Error::ShuttingDown)?.map_err(Error::from)
    }

    /// Runs `f` on the store thread: reads, mostly.
    pub(crate) async fn call<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Store) -> beckon_store::Result<T> + Send + 'static,
    {
        self.run(move |store, _| f(store)).await
    }

    /// Runs `f` in one write transaction; after the commit its events (and word of any queued
    /// callbacks) are handed on, then the value is returned. Nothing is handed on when the
    /// transaction fails.
    pub(crate) async fn write<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> beckon_store::Result<T> + Send + 'static,
    {
        self.run(move |store, hook| {
            let Committed { value, events, callbacks_queued } = store.write(f)?;
            if !events.is_empty() || callbacks_queued {
                hook.committed(&events, callbacks_queued);
            }
            Ok(value)
        })
        .await
    }
}
