//! The store against real databases: SQLite files and a PostgreSQL cluster of the test's own,
//! with process kills, bad input and concurrent writers. One test binary; each suite is a
//! module.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

mod audiences;
mod audit;
mod bad_input;
mod batch;
mod channel_messages;
mod crash;
mod group_commit;
mod invariants;
mod open;
mod operations;
mod people;
mod postgres_events;
mod postgres_leases;
mod postgres_migrate;
mod postgres_tls;
mod push;
mod tokens;
