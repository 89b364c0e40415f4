//! Beckon's store on PostgreSQL, for a team server run as several replicas on one database.
//!
//! This crate grows into the second implementation of the store's typed operations, on the row
//! types of `beckon-store` (plain values, no SQLite: the seam both backends share). So far it
//! holds what every other part stands on: the schema's migrations, applied under a lock so
//! replicas starting together migrate once, refusing a schema from a newer Beckon; and the
//! event log, whose `seq` is gap-free in commit order so a reader following it never skips an
//! event (see [`events`]); and leases, so work that must happen once is done by one replica at a
//! time and moves to another when its owner dies (see [`leases`]).
//!
//! The synchronous `postgres` client is used (tokio-postgres underneath, the most used and
//! maintained PostgreSQL client in Rust): like SQLite's, the store runs on a thread of its own
//! where a transaction is a plain closure, with no async in the store's code.

mod error;
pub mod events;
pub mod leases;
mod migrate;
#[cfg(feature = "testing")]
pub mod testing;

pub use error::{Error, Result};
pub use events::EVENTS_CHANNEL;
pub use leases::Lease;
pub use migrate::{SCHEMA_VERSION, migrate};
