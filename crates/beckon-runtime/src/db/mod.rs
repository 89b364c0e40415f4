//! The store's thread. The store is synchronous and owns one connection; every read and write
//! runs here. Writes that queue up while one commits are committed together (group commit):
//! in one transaction, one sync to disk for all (run again each in its own savepoint when one
//! fails, so that it alone is undone), and each acknowledged — its events handed on, in seq order, then its caller answered — only once that
//! commit is durable. Reads run after the writes queued with them, so a read never sees a write
//! that is not yet durable.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc as std_mpsc;
use std::time::{Duration, Instant};

use beckon_store::{Store, Tx};
use tokio::sync::oneshot;

use crate::error::{Error, Result};

mod job;
mod leases;

pub(crate) use job::AfterCommit;
use job::{Write, WriteJob};
pub(crate) use leases::LeaseChange;
use leases::LeaseJob;

/// Most jobs taken from the queue at once.
const MAX_BATCH: usize = 256;
/// How long the store's thread keeps looking for the next job (yielding its core meanwhile)
/// before it sleeps. A session's next job usually comes within this of the last reply, and a
/// thread that is already awake spares it the wake-up.
const LINGER: Duration = Duration::from_micros(200);

enum Job {
    Read(Box<dyn FnOnce(&Store) + Send>),
    Write(Box<dyn WriteJob>),
    /// Merged with the batch's other lease changes into one write.
    Lease(LeaseJob),
}

/// A handle to the store thread; cheap to clone.
#[derive(Clone)]
pub(crate) struct Db {
    jobs: std_mpsc::Sender<Job>,
    taken: Arc<AtomicU64>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Db")
    }
}

/// Runs the jobs of one batch: its writes as one group, then its reads.
fn run_batch(store: &mut Store, batch: Vec<Job>, hook: &dyn AfterCommit) {
    let mut writes: Vec<Box<dyn WriteJob>> = Vec::new();
    let mut reads = Vec::new();
    let mut leases = Vec::new();
    for job in batch {
        match job {
            Job::Read(read) => reads.push(read),
            Job::Write(write) => writes.push(write),
            Job::Lease(lease) => leases.push(lease),
        }
    }
    if !leases.is_empty() {
        writes.push(Box::new(leases::Merged::new(leases)));
    }
    if !writes.is_empty() {
        let outcomes = store.write_group(&mut writes, |write, tx| write.run(tx));
        for (write, outcome) in writes.into_iter().zip(outcomes) {
            write.finish(outcome, hook);
        }
    }
    for read in reads {
        read(store);
    }
}

/// The next job, or `None` once every handle is dropped.
fn next_job(receiver: &std_mpsc::Receiver<Job>) -> Option<Job> {
    let lingering = Instant::now();
    loop {
        match receiver.try_recv() {
            Ok(job) => return Some(job),
            Err(std_mpsc::TryRecvError::Disconnected) => return None,
            Err(std_mpsc::TryRecvError::Empty) if lingering.elapsed() < LINGER => std::thread::yield_now(),
            Err(std_mpsc::TryRecvError::Empty) => return receiver.recv().ok(),
        }
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
                while let Some(first) = next_job(&receiver) {
                    let mut batch = vec![first];
                    while batch.len() < MAX_BATCH {
                        match receiver.try_recv() {
                            Ok(job) => batch.push(job),
                            Err(_) => break,
                        }
                    }
                    run_batch(&mut store, batch, after_commit.as_ref());
                }
            })
            .map_err(|err| Error::DataDir {
                path: Default::default(),
                detail: format!("cannot start the store thread: {err}"),
            })?;
        Ok(Db { jobs, taken: Arc::new(AtomicU64::new(0)) })
    }

    fn send(&self, job: Job) -> Result<()> {
        self.taken.fetch_add(1, Ordering::Relaxed);
        self.jobs.send(job).map_err(|_| Error::ShuttingDown)
    }

    /// How many jobs (reads and writes) the store thread has been given.
    pub(crate) fn jobs(&self) -> u64 {
        self.taken.load(Ordering::Relaxed)
    }

    /// Runs `f` on the store thread, on the latest durable data.
    pub(crate) async fn call<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> beckon_store::Result<T> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        self.send(Job::Read(Box::new(move |store| {
            let _ = reply.send(f(store).map_err(Error::from));
        })))?;
        answer.await.map_err(|_| Error::ShuttingDown)?
    }

    /// Runs `f` in a write transaction (shared with the writes queued beside it); once the
    /// commit is durable its events (and word of any queued callbacks) are handed on, then the
    /// value is returned. Nothing is written or handed on when `f` fails. `f` may run more than
    /// once (see [`Store::write_group`]): only its last run counts.
    pub(crate) async fn write<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&mut Tx<'_>) -> beckon_store::Result<T> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        self.send(Job::Write(Box::new(Write { f, value: None, reply })))?;
        answer.await.map_err(|_| Error::ShuttingDown)?
    }

    /// Claims (or gives back) `owner`'s lease on `work`, with the other lease changes queued
    /// beside it in one statement: whether `owner` holds the work now (a claim), or held it
    /// until now (a give-back).
    pub(crate) async fn lease(&self, work: &str, owner: &str, change: LeaseChange) -> Result<bool> {
        let (reply, answer) = oneshot::channel();
        self.send(Job::Lease(LeaseJob { work: work.to_owned(), owner: owner.to_owned(), change, reply }))?;
        answer.await.map_err(|_| Error::ShuttingDown)?
    }

    /// Queues `f` as a write and returns without waiting for it: for bookkeeping no caller
    /// waits on (when a token was last used). It commits with the writes queued beside it, and
    /// a read queued after this call sees it. A failure is logged, not returned.
    pub(crate) fn write_detached<F>(&self, what: &'static str, f: F)
    where
        F: Fn(&mut Tx<'_>) -> beckon_store::Result<()> + Send + 'static,
    {
        let logged = move |tx: &mut Tx<'_>| {
            let done = f(tx);
            if let Err(err) = &done {
                tracing::warn!(%err, what, "a background write failed");
            }
            done
        };
        // Nobody waits on the reply: its receiver is dropped, and sending to it does nothing.
        let (reply, _) = oneshot::channel();
        if let Err(err) = self.send(Job::Write(Box::new(Write { f: logged, value: None, reply }))) {
            tracing::debug!(%err, what, "a background write was not queued");
        }
    }
}
