//! The work that runs on its own beside the service: question deadlines, this replica's claims
//! on shared work, the workers awaited at shutdown, the stop signal they all heed, and the data
//! folder's lock that outlives them.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::task::JoinHandle;

use crate::deadlines::Deadlines;
use crate::leases::Leases;
use crate::lock::DataDirLock;
use crate::stop::{Stop, StopSignal};

/// What runs on its own, and what stops it.
pub(crate) struct Work {
    pub(crate) deadlines: Deadlines,
    /// The work this replica holds on a team server.
    pub(crate) leases: Leases,
    /// Stops every part.
    signal: StopSignal,
    /// The parts that run on their own, awaited at shutdown.
    workers: Mutex<Vec<JoinHandle<()>>>,
    /// The data folder's lock, shared with the executor: released once both are gone.
    _lock: Arc<DataDirLock>,
}

impl Work {
    pub(crate) fn new(deadlines: Deadlines, leases: Leases, signal: StopSignal, lock: Arc<DataDirLock>) -> Work {
        Work { deadlines, leases, signal, workers: Mutex::new(Vec::new()), _lock: lock }
    }

    /// The stop signal, as one more part holds it.
    pub(crate) fn stop_signal(&self) -> Stop {
        self.signal.subscribe()
    }

    /// Adds a part that runs on its own, to be awaited at shutdown.
    pub(crate) fn keep(&self, worker: JoinHandle<()>) {
        self.workers().push(worker);
    }

    /// Adds parts that run on their own, to be awaited at shutdown.
    pub(crate) fn keep_all(&self, workers: Vec<JoinHandle<()>>) {
        self.workers().extend(workers);
    }

    /// Tells every part to stop, and hands back the workers to await.
    pub(crate) fn stop(&self) -> Vec<JoinHandle<()>> {
        self.signal.stop();
        std::mem::take(&mut *self.workers())
    }

    fn workers(&self) -> std::sync::MutexGuard<'_, Vec<JoinHandle<()>>> {
        // A worker list is whole after any panic: pushes and takes are single steps.
        self.workers.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
