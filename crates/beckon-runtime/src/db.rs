//! The store's thread. The store is synchronous and owns one connection; every read and write
//! runs here. Writes that queue up while one commits are committed together (group commit):
//! each in its own savepoint inside one transaction, one sync to disk for all, and each
//! acknowledged — its events handed on, in seq order, then its caller answered — only once that
//! commit is durable. Reads run after the writes queued with them, so a read never sees a write
//! that is not yet durable.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc as std_mpsc;
use std::time::{Duration, Instant};

use beckon_store::{Store, StoredEvent, Tx, Written};
use tokio::sync::oneshot;

use crate::error::{Error, Result};

/// Most jobs taken from the queue at once.
const MAX_BATCH: usize = 256;
/// How long the store's thread keeps looking for the next job (yielding its core meanwhile)
/// before it sleeps. A session's next job usually comes within this of the last reply, and a
/// thread that is already awake spares it the wake-up.
const LINGER: Duration = Duration::from_micros(200);

/// What the store thread calls after each commit, with the committed events and whether it
/// queued callbacks. It runs on the store thread, so it must be quick.
pub(crate) trait AfterCommit: Send + Sync {
    fn committed(&self, events: &[StoredEvent], callbacks_queued: bool);
}

/// A write waiting for its group: run inside the group's transaction, then told how the group
/// ended.
trait WriteJob: Send {
    fn run(&mut self, tx: &mut Tx<'_>) -> beckon_store::Result<()>;
    fn finish(self: Box<Self>, outcome: beckon_store::Result<Written>, hook: &dyn AfterCommit);
}

/// A write closure, its value once it ran, and where its caller waits.
struct Write<T, F> {
    f: Option<F>,
    value: Option<T>,
    reply: oneshot::Sender<Result<T>>,
}

impl<T, F> WriteJob for Write<T, F>
where
    T: Send,
    F: FnOnce(&mut Tx<'_>) -> beckon_store::Result<T> + Send,
{
    fn run(&mut self, tx: &mut Tx<'_>) -> beckon_store::Result<()> {
        let f = self.f.take().ok_or_else(|| beckon_store::Error::GroupFailed("a write ran twice".into()))?;
        self.value = Some(f(tx)?);
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

enum Job {
    Read(Box<dyn FnOnce(&Store) + Send>),
    Write(Box<dyn WriteJob>),
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
    for job in batch {
        match job {
            Job::Read(read) => reads.push(read),
            Job::Write(write) => writes.push(write),
        }
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

    /// Runs `f` in a write transaction (shared with the writes queued beside it, each in its
    /// own savepoint); once the commit is durable its events (and word of any queued callbacks)
    /// are handed on, then the value is returned. Nothing is written or handed on when `f`
    /// fails.
    pub(crate) async fn write<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> beckon_store::Result<T> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        self.send(Job::Write(Box::new(Write { f: Some(f), value: None, reply })))?;
        answer.await.map_err(|_| Error::ShuttingDown)?
    }

    /// Queues `f` as a write and returns without waiting for it: for bookkeeping no caller
    /// waits on (when a token was last used). It commits with the writes queued beside it, and
    /// a read queued after this call sees it. A failure is logged, not returned.
    pub(crate) fn write_detached<F>(&self, what: &'static str, f: F)
    where
        F: FnOnce(&mut Tx<'_>) -> beckon_store::Result<()> + Send + 'static,
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
        if let Err(err) = self.send(Job::Write(Box::new(Write { f: Some(logged), value: None, reply }))) {
            tracing::debug!(%err, what, "a background write was not queued");
        }
    }
}
