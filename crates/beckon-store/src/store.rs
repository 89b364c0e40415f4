//! The store handle and its transactions. Reading them is in `read.rs`, which needs every
//! table's file; this one needs none.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::error::{Error, Result};
use crate::rows::StoredEvent;
use crate::sql::{Conn, Pg};

/// Beckon's database: one connection, used from one thread (the runtime owns it).
#[derive(Debug)]
pub struct Store {
    backend: Backend,
    path: Option<PathBuf>,
    commits: u64,
    resolutions: u64,
}

/// Where the data lives.
#[derive(Debug)]
enum Backend {
    /// One person's file.
    Sqlite(Connection),
    /// A team server's shared database.
    Postgres(Box<RefCell<Pg>>),
}

impl Backend {
    fn conn(&self) -> Conn<'_> {
        match self {
            Backend::Sqlite(conn) => Conn::Sqlite(conn),
            Backend::Postgres(pg) => Conn::Postgres(pg),
        }
    }
}

/// What a committed write returns: its value and the events it appended, in `seq` order, to
/// publish now that they are durable.
#[derive(Debug)]
pub struct Committed<T> {
    /// What the write closure returned.
    pub value: T,
    /// The events the transaction appended.
    pub events: Vec<StoredEvent>,
    /// Whether it queued callbacks for the outbox.
    pub callbacks_queued: bool,
}

/// One write's share of a group commit ([`Store::write_group`]): the events it appended, in
/// `seq` order, and whether it queued callbacks — returned only once the group is durable.
#[derive(Debug, Default)]
pub struct Written {
    /// The events the write appended.
    pub events: Vec<StoredEvent>,
    /// Whether it queued callbacks for the outbox.
    pub callbacks_queued: bool,
}

/// How a group's first run, with no savepoints, ended.
enum Together {
    /// Committed: each job's outcome.
    Committed(Vec<Result<Written>>),
    /// A job failed and the transaction was rolled back.
    Failed(Error),
    /// The transaction could not begin or commit.
    Lost(String),
}

/// One write transaction. Every operation on it commits together or not at all.
#[derive(Debug)]
pub struct Tx<'c> {
    pub(crate) tx: Conn<'c>,
    pub(crate) events: Vec<StoredEvent>,
    pub(crate) callbacks_queued: bool,
    /// Questions this transaction resolved.
    pub(crate) resolutions: u64,
}

impl Store {
    pub(crate) fn from_connection(conn: Connection, path: Option<PathBuf>) -> Store {
        Store { backend: Backend::Sqlite(conn), path, commits: 0, resolutions: 0 }
    }

    pub(crate) fn from_postgres(pg: Pg) -> Store {
        Store { backend: Backend::Postgres(Box::new(RefCell::new(pg))), path: None, commits: 0, resolutions: 0 }
    }

    /// The connection statements run on.
    pub(crate) fn conn(&self) -> Conn<'_> {
        self.backend.conn()
    }

    /// Whether the connection is inside a transaction (after a failure, SQLite may have ended
    /// it by itself; PostgreSQL keeps it, aborted, until it is rolled back).
    fn in_transaction(&self) -> bool {
        match &self.backend {
            Backend::Sqlite(conn) => !conn.is_autocommit(),
            Backend::Postgres(_) => true,
        }
    }

    /// The statement that starts a write transaction: SQLite's takes the write lock at once, so
    /// concurrent writers wait rather than fail half-way.
    fn begin_sql(&self) -> &'static str {
        self.conn().pick("BEGIN IMMEDIATE", "BEGIN")
    }

    /// Before a transaction or a read: on PostgreSQL, connects again if the connection was lost.
    pub(crate) fn reconnect_if_lost(&self) -> Result<()> {
        match &self.backend {
            Backend::Sqlite(_) => Ok(()),
            Backend::Postgres(pg) => pg.borrow_mut().reconnect_if_lost(),
        }
    }

    /// The database file, or `None` in memory.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Runs `f` in one write transaction (taken immediately, so concurrent writers wait rather
    /// than fail half-way) and commits it if `f` succeeds. Nothing is written if it fails.
    pub fn write<T>(&mut self, f: impl FnOnce(&mut Tx<'_>) -> Result<T>) -> Result<Committed<T>> {
        self.reconnect_if_lost()?;
        self.exec_all(&[self.begin_sql()], "BEGIN")?;
        let mut tx = Tx { tx: self.backend.conn(), events: Vec::new(), callbacks_queued: false, resolutions: 0 };
        let outcome = f(&mut tx).and_then(|value| {
            crate::sequencer::flush(tx.tx, tx.events.iter_mut())?;
            self.exec("COMMIT")?;
            Ok(value)
        });
        match outcome {
            Ok(value) => {
                self.commits += 1;
                self.resolutions += tx.resolutions;
                Ok(Committed { value, events: tx.events, callbacks_queued: tx.callbacks_queued })
            }
            Err(err) => {
                self.roll_back();
                Err(err)
            }
        }
    }

    /// Runs every one of `jobs` with `run` inside one transaction and commits once: one sync to
    /// disk for all of them. A job that fails rolls back only its own writes and gets its own
    /// error; the others still commit. Returns each job's outcome in order, only after the
    /// commit is durable; when the transaction cannot begin or commit, or a failure takes the
    /// whole transaction down, no job's writes remain and every job that had not failed by
    /// itself gets [`Error::GroupFailed`].
    ///
    /// The jobs first run one after another with nothing between them. Only when one fails is
    /// the transaction rolled back and every job run again from the start, each in a savepoint
    /// of its own ([`Store::write_each_in_savepoint`]): `run` must give the same job the same
    /// writes each time. Most groups have no failure, and on PostgreSQL a savepoint a job costs
    /// two statements and a subtransaction.
    pub fn write_group<J>(
        &mut self,
        jobs: &mut [J],
        mut run: impl FnMut(&mut J, &mut Tx<'_>) -> Result<()>,
    ) -> Vec<Result<Written>> {
        match self.write_together(jobs, &mut run) {
            Together::Committed(outcomes) => outcomes,
            Together::Failed(err) if jobs.len() == 1 => vec![Err(err)],
            Together::Failed(_) => self.write_each_in_savepoint(jobs, run),
            Together::Lost(detail) => jobs.iter().map(|_| Err(Error::GroupFailed(detail.clone()))).collect(),
        }
    }

    /// The jobs in one transaction with no savepoints; rolled back at the first that fails.
    fn write_together<J>(
        &mut self,
        jobs: &mut [J],
        run: &mut impl FnMut(&mut J, &mut Tx<'_>) -> Result<()>,
    ) -> Together {
        if let Err(err) = self.reconnect_if_lost().and_then(|()| self.exec_all(&[self.begin_sql()], "BEGIN")) {
            return Together::Lost(err.to_string());
        }
        let mut tx = Tx { tx: self.backend.conn(), events: Vec::new(), callbacks_queued: false, resolutions: 0 };
        let mut outcomes: Vec<Result<Written>> = Vec::with_capacity(jobs.len());
        for job in jobs.iter_mut() {
            if let Err(err) = run(job, &mut tx) {
                self.roll_back();
                return Together::Failed(err);
            }
            let events = std::mem::take(&mut tx.events);
            let callbacks_queued = std::mem::replace(&mut tx.callbacks_queued, false);
            outcomes.push(Ok(Written { events, callbacks_queued }));
        }
        let events = outcomes.iter_mut().filter_map(|outcome| outcome.as_mut().ok()).flat_map(|w| &mut w.events);
        match crate::sequencer::flush(tx.tx, events).and_then(|()| self.exec("COMMIT")) {
            Ok(()) => {
                self.commits += 1;
                self.resolutions += tx.resolutions;
                Together::Committed(outcomes)
            }
            Err(err) => {
                self.roll_back();
                Together::Lost(err.to_string())
            }
        }
    }

    /// The jobs of [`Store::write_group`] each in its own savepoint inside one transaction: a
    /// job that fails rolls back to its savepoint alone.
    ///
    /// On PostgreSQL the savepoints take no round trip of their own: each goes out with the
    /// job's first statement (see [`Store::exec_all`]), the first with `BEGIN`, each next one
    /// with the release of the one before, and the last is released by `COMMIT`. A job that
    /// failed leaves its savepoint set again (rolled back to), ready for the next job.
    fn write_each_in_savepoint<J>(
        &mut self,
        jobs: &mut [J],
        mut run: impl FnMut(&mut J, &mut Tx<'_>) -> Result<()>,
    ) -> Vec<Result<Written>> {
        let began = self
            .reconnect_if_lost()
            .and_then(|()| self.exec_all(&[self.begin_sql(), "SAVEPOINT job"], "BEGIN; SAVEPOINT job"));
        if let Err(err) = began {
            let detail = err.to_string();
            return jobs.iter().map(|_| Err(Error::GroupFailed(detail.clone()))).collect();
        }
        let mut tx = Tx { tx: self.backend.conn(), events: Vec::new(), callbacks_queued: false, resolutions: 0 };
        let mut outcomes: Vec<Result<Written>> = Vec::with_capacity(jobs.len());
        let mut broken: Option<String> = None;
        // Whether the savepoint is set with nothing written since.
        let mut fresh = true;
        for job in jobs.iter_mut() {
            if broken.is_some() {
                outcomes.push(Ok(Written::default()));
                continue;
            }
            if !fresh && let Err(err) = self.exec_all(&["RELEASE job", "SAVEPOINT job"], "RELEASE job; SAVEPOINT job") {
                broken = Some(err.to_string());
                outcomes.push(Ok(Written::default()));
                continue;
            }
            fresh = false;
            let resolutions_before = tx.resolutions;
            match run(job, &mut tx) {
                Ok(()) => {
                    let events = std::mem::take(&mut tx.events);
                    let callbacks_queued = std::mem::replace(&mut tx.callbacks_queued, false);
                    outcomes.push(Ok(Written { events, callbacks_queued }));
                }
                Err(err) => {
                    tx.events.clear();
                    tx.callbacks_queued = false;
                    tx.resolutions = resolutions_before;
                    // A failure SQLite answered by ending the whole transaction leaves nothing
                    // to roll back to: the group is lost.
                    if !self.in_transaction() {
                        broken = Some(format!("SQLite ended the transaction after a failed write: {err}"));
                    } else if let Error::GroupFailed(detail) = &err {
                        // The savepoints sent ahead of the job's first statement failed: there
                        // may be nothing to roll back to.
                        broken = Some(detail.clone());
                    } else {
                        match self.exec("ROLLBACK TO job") {
                            Ok(()) => fresh = true,
                            Err(undo) => broken = Some(undo.to_string()),
                        }
                    }
                    outcomes.push(Err(err));
                }
            }
        }
        let committed = match &broken {
            Some(detail) => Err(detail.clone()),
            None => {
                let events = outcomes
                    .iter_mut()
                    .filter_map(|outcome| outcome.as_mut().ok())
                    .flat_map(|written| &mut written.events);
                crate::sequencer::flush(tx.tx, events).and_then(|()| self.exec("COMMIT")).map_err(|err| err.to_string())
            }
        };
        match committed {
            Ok(_) => {
                self.commits += 1;
                self.resolutions += tx.resolutions;
                outcomes
            }
            Err(detail) => {
                self.roll_back();
                outcomes
                    .into_iter()
                    .map(|outcome| outcome.and_then(|_| Err(Error::GroupFailed(detail.clone()))))
                    .collect()
            }
        }
    }

    /// Rolls back the open transaction, if the database still has one. A failed rollback is
    /// ignored: the error that led here matters more, and the database completes the rollback
    /// itself (SQLite when the connection is next used or closed, PostgreSQL when it is closed).
    fn roll_back(&self) {
        if self.in_transaction() {
            let _ = self.exec("ROLLBACK");
        }
    }

    /// Runs one statement of transaction control (cached: parsing them on every write is
    /// measurable).
    fn exec(&self, sql: &str) -> Result<()> {
        self.conn().batch(sql)
    }

    /// Runs statements of transaction control in order: on SQLite now, one by one (each
    /// cached); on PostgreSQL as `together`, the same statements in one string, sent with the
    /// next statement (no round trip of their own). A failure there fails that next statement
    /// with [`Error::GroupFailed`].
    fn exec_all(&self, statements: &[&str], together: &str) -> Result<()> {
        match &self.backend {
            Backend::Sqlite(_) => statements.iter().try_for_each(|sql| self.exec(sql)),
            Backend::Postgres(_) => self.conn().defer(together),
        }
    }

    /// How many write transactions this handle has committed: each one a sync to disk.
    pub fn commits(&self) -> u64 {
        self.commits
    }

    /// How many questions the transactions this handle committed resolved.
    pub fn resolutions(&self) -> u64 {
        self.resolutions
    }

    /// The underlying SQLite connection, for tests and benchmarks that need raw SQL.
    ///
    /// # Panics
    /// On a store on PostgreSQL, which has none.
    #[allow(clippy::panic)]
    pub fn connection(&self) -> &Connection {
        match &self.backend {
            Backend::Sqlite(conn) => conn,
            Backend::Postgres(_) => panic!("a store on PostgreSQL has no SQLite connection"),
        }
    }

    /// Whether this store is on PostgreSQL.
    pub fn is_postgres(&self) -> bool {
        matches!(self.backend, Backend::Postgres(_))
    }
}
