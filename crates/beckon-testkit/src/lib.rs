//! What Beckon's tests share, written once instead of copied into each crate's tests: fakes of
//! the services Beckon talks to, each on loopback and speaking the real wire format, and the
//! reader of the hostile-input corpus.
//!
//! Test code: a fake that cannot bind a port or parse its own fixtures fails the test at once.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod corpus;
pub mod fake_llm;
pub mod fake_slack;
pub mod fake_telegram;
