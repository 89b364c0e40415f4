//! The store handle and its transactions.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::error::Result;
use crate::events::StoredEvent;
use crate::read::Reader;

/// Beckon's database: one connection, used from one thread (the runtime owns it).
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: Option<PathBuf>,
    commits: u64,
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

/// One write transaction. Every operation on it commits together or not at all.
#[derive(Debug)]
pub struct Tx<'c> {
    pub(crate) tx: &'c Connection,
    pub(crate) events: Vec<StoredEvent>,
    pub(crate) callbacks_queued: bool,
}

impl Store {
    pub(crate) fn from_connection(conn: Connection, path: Option<PathBuf>) -> Store {
        Store { conn, path, commits: 0 }
    }

    /// The database file, or `None` in memory.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Runs `f` in one write transaction (taken immediately, so concurrent writers wait rather
    /// than fail half-way) and commits it if `f` succeeds. Nothing is written if it fails.
    pub fn write<T>(&mut self, f: impl FnOnce(&mut Tx<'_>) -> Result<T>) -> Result<Committed<T>> {
        // Cached statements: parsing BEGIN and COMMIT on every write is measurable.
        self.conn.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
        let mut tx = Tx { tx: &self.conn, events: Vec::new(), callbacks_queued: false };
        let outcome = f(&mut tx).and_then(|value| {
            self.conn.prepare_cached("COMMIT")?.execute([])?;
            Ok(value)
        });
        match outcome {
            Ok(value) => {
                self.commits += 1;
                Ok(Committed { value, events: tx.events, callbacks_queued: tx.callbacks_queued })
            }
            Err(err) => {
                if !self.conn.is_autocommit() {
                    // The original error matters more than a failed rollback, which SQLite
                    // completes itself when the connection is next used or closed.
                    let _ = self.conn.prepare_cached("ROLLBACK").and_then(|mut s| s.execute([]));
                }
                Err(err)
            }
        }
    }

    /// How many write transactions this handle has committed: each one a sync to disk.
    pub fn commits(&self) -> u64 {
        self.commits
    }

    /// Read-only queries on the latest committed data.
    pub fn read(&self) -> Reader<'_> {
        Reader::new(&self.conn)
    }

    /// The underlying connection, for tests and benchmarks that need raw SQL.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}

impl Tx<'_> {
    /// Queries that see this transaction's own writes.
    pub fn read(&self) -> Reader<'_> {
        Reader::new(self.tx)
    }
}
