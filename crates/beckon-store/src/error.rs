//! The store's one error type.

use std::path::PathBuf;

use beckon_core::{RequestId, SessionId};

use crate::rows::ResolvedQuestion;

/// Anything the store can refuse or fail at.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file exists but is not an SQLite database. It was not modified.
    #[error("{}: this is not a Beckon database (not an SQLite file); it was left untouched", path.display())]
    NotADatabase {
        /// The file.
        path: PathBuf,
    },
    /// The file is an SQLite database but damaged. It was not modified.
    #[error("{}: the database is damaged ({detail}); it was left untouched — restore a backup or move it aside", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What SQLite reported.
        detail: String,
    },
    /// The database was written by a newer Beckon. It was not modified.
    #[error("{}: written by a newer Beckon (schema version {found}; this build knows up to {supported}); it was left untouched — update Beckon to open it", path.display())]
    NewerSchema {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// The newest this build knows.
        supported: i64,
    },
    /// The file or its folder could not be created or opened.
    #[error("{}: cannot open the database: {detail}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        detail: String,
    },
    /// A schema migration failed; the database keeps its previous version.
    #[error("{}: upgrading the database failed: {detail}", path.display())]
    Migration {
        /// The file.
        path: PathBuf,
        /// Why.
        detail: String,
    },
    /// No such session.
    #[error("session {0} not found")]
    SessionNotFound(SessionId),
    /// No such question.
    #[error("question {0} not found")]
    QuestionNotFound(RequestId),
    /// The question was already resolved differently; the winning resolution is attached.
    #[error("question {} was already resolved ({})", .0.id, .0.status)]
    AlreadyResolved(Box<ResolvedQuestion>),
    /// The session already waits on another question.
    #[error("session {session} already waits on question {pending}")]
    QuestionAlreadyPending {
        /// The session.
        session: SessionId,
        /// The question it waits on.
        pending: RequestId,
    },
    /// A live token already has this name.
    #[error("a live token is already named {0:?}")]
    TokenNameTaken(String),
    /// A value is larger than the store accepts.
    #[error("{what} is {size} bytes; the limit is {limit} bytes")]
    TooLarge {
        /// What was too large.
        what: &'static str,
        /// Its size.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// A stored value cannot be read back (a damaged or tampered file).
    #[error("stored {table}.{column} is unreadable: {detail}")]
    InvalidData {
        /// The table.
        table: &'static str,
        /// The column.
        column: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// The group commit this write was part of failed as a whole; nothing of it was written.
    #[error("the transaction this write was committed with failed: {0}")]
    GroupFailed(String),
    /// PostgreSQL could not be reached or refused the connection.
    #[error("{database}: cannot connect to PostgreSQL: {detail}")]
    Connect {
        /// The database, without its password.
        database: String,
        /// Why.
        detail: String,
    },
    /// The PostgreSQL database was migrated by a newer Beckon. It was not modified.
    #[error(
        "{database}: migrated by a newer Beckon (schema version {found}; this build knows up to {supported}); it was left untouched — upgrade Beckon on every replica"
    )]
    NewerDatabase {
        /// The database, without its password.
        database: String,
        /// Its schema version.
        found: i64,
        /// The newest this build knows.
        supported: i64,
    },
    /// A query that must return a row returned none.
    #[error("the database returned no row for {0:?}")]
    NoRow(String),
    /// Any other SQLite failure.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Any other PostgreSQL failure.
    #[error("database error: {0}")]
    Postgres(#[from] postgres::Error),
}

/// Results in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
