//! The store handle and its transactions. Reading them is in `read.rs`, which needs every
//! table's file; this one needs none.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::error::{Error, Result};
use crate::rows::StoredEvent;

/// Beckon's database: one connection, used from one thread (the runtime owns it).
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: Option<PathBuf>,
    commits: u64,
    resolutions: u64,
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

/// One write transaction. Every operation on it commits together or not at all.
#[derive(Debug)]
pub struct Tx<'c> {
    pub(crate) tx: &'c Connection,
    pub(crate) events: Vec<StoredEvent>,
    pub(crate) callbacks_queued: bool,
    /// Questions this transaction resolved.
    pub(crate) resolutions: u64,
}

impl Store {
    pub(crate) fn from_connection(conn: Connection, path: Option<PathBuf>) -> Store {
        Store { conn, path, commits: 0, resolutions: 0 }
    }

    /// The database file, or `None` in memory.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Runs `f` in one write transaction (taken immediately, so concurrent writers wait rather
    /// than fail half-way) and commits it if `f` succeeds. Nothing is written if it fails.
    pub fn write<T>(&mut self, f: impl FnOnce(&mut Tx<'_>) -> Result<T>) -> Result<Committed<T>> {
        self.exec("BEGIN IMMEDIATE")?;
        let mut tx = Tx { tx: &self.conn, events: Vec::new(), callbacks_queued: false, resolutions: 0 };
        let outcome = f(&mut tx).and_then(|value| {
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
                if !self.conn.is_autocommit() {
                    // The original error matters more than a failed rollback, which SQLite
                    // completes itself when the connection is next used or closed.
                    let _ = self.exec("ROLLBACK");
                }
                Err(err)
            }
        }
    }

    /// Runs every one of `jobs` with `run`, each in its own savepoint inside one transaction,
    /// and commits once: one sync to disk for all of them. A job that fails rolls back only its
    /// savepoint and gets its own error; the others still commit. Returns each job's outcome
    /// in order, only after the commit is durable; when the transaction cannot begin or
    /// commit, or a failure takes the whole transaction down, no job's writes remain and every
    /// job that had not failed by itself gets [`Error::GroupFailed`].
    pub fn write_group<J>(
        &mut self,
        jobs: &mut [J],
        mut run: impl FnMut(&mut J, &mut Tx<'_>) -> Result<()>,
    ) -> Vec<Result<Written>> {
        if let Err(err) = self.exec("BEGIN IMMEDIATE") {
            let detail = err.to_string();
            return jobs.iter().map(|_| Err(Error::GroupFailed(detail.clone()))).collect();
        }
        let mut tx = Tx { tx: &self.conn, events: Vec::new(), callbacks_queued: false, resolutions: 0 };
        let mut outcomes: Vec<Result<Written>> = Vec::with_capacity(jobs.len());
        let mut broken: Option<String> = None;
        for job in jobs.iter_mut() {
            if broken.is_some() {
                outcomes.push(Ok(Written::default()));
                continue;
            }
            if let Err(err) = self.exec("SAVEPOINT job") {
                broken = Some(err.to_string());
                outcomes.push(Ok(Written::default()));
                continue;
            }
            let resolutions_before = tx.resolutions;
            match run(job, &mut tx) {
                Ok(()) => {
                    let released = self.exec("RELEASE job");
                    if let Err(err) = released {
                        broken = Some(err.to_string());
                    }
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
                    if self.conn.is_autocommit() {
                        broken = Some(format!("SQLite ended the transaction after a failed write: {err}"));
                    } else {
                        let undone = self.exec("ROLLBACK TO job").and_then(|()| self.exec("RELEASE job"));
                        if let Err(undo) = undone {
                            broken = Some(undo.to_string());
                        }
                    }
                    outcomes.push(Err(err));
                }
            }
        }
        let committed = match &broken {
            Some(detail) => Err(detail.clone()),
            None => self.exec("COMMIT").map_err(|err| err.to_string()),
        };
        match committed {
            Ok(_) => {
                self.commits += 1;
                self.resolutions += tx.resolutions;
                outcomes
            }
            Err(detail) => {
                if !self.conn.is_autocommit() {
                    // As in `write`: SQLite completes a failed rollback itself.
                    let _ = self.exec("ROLLBACK");
                }
                outcomes
                    .into_iter()
                    .map(|outcome| outcome.and_then(|_| Err(Error::GroupFailed(detail.clone()))))
                    .collect()
            }
        }
    }

    /// Runs one statement of transaction control (cached: parsing them on every write is
    /// measurable).
    fn exec(&self, sql: &str) -> rusqlite::Result<()> {
        self.conn.prepare_cached(sql)?.execute([]).map(|_| ())
    }

    /// How many write transactions this handle has committed: each one a sync to disk.
    pub fn commits(&self) -> u64 {
        self.commits
    }

    /// How many questions the transactions this handle committed resolved.
    pub fn resolutions(&self) -> u64 {
        self.resolutions
    }

    /// The underlying connection, for tests and benchmarks that need raw SQL.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}
