//! The crate's one error type.

/// What can go wrong in the PostgreSQL store.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The database refused or failed a statement, or the connection broke.
    #[error("PostgreSQL: {0}")]
    Database(#[from] postgres::Error),
    /// A stored value could not be read back.
    #[error("{table}.{column}: {detail}")]
    InvalidData {
        /// The table.
        table: &'static str,
        /// The column.
        column: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// The database was made by a newer Beckon; nothing was changed.
    #[error("the database's schema is version {found}, newer than this Beckon's {supported}: upgrade Beckon")]
    NewerSchema {
        /// The version found.
        found: i64,
        /// The newest this build knows.
        supported: i64,
    },
}

/// The crate's result.
pub type Result<T> = std::result::Result<T, Error>;
