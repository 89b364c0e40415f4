//! What Beckon's tests share, written once instead of copied into each crate's tests: fakes of
//! the services Beckon talks to, each on loopback and speaking the real wire format, the reader
//! of the hostile-input corpus, the check of a reference page written from the code
//! ([`reference_page`]), and [`eventually`].
//!
//! Test code: a fake that cannot bind a port or parse its own fixtures fails the test at once.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod corpus;
pub mod fake_llm;
pub mod fake_slack;
pub mod fake_telegram;
pub mod reference_page;
pub mod scripted_model;

use std::future::Future;
use std::time::{Duration, Instant};

/// How long [`eventually`] waits between two asks.
const POLL: Duration = Duration::from_millis(20);

/// Asks `probe` until it gives something, and returns that; fails the test, naming `what`, when
/// nothing came within `within` (real time, so a test on tokio's paused clock still ends).
pub async fn eventually<T, F>(what: &str, within: Duration, mut probe: impl FnMut() -> F) -> T
where
    F: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + within;
    loop {
        if let Some(found) = probe().await {
            return found;
        }
        assert!(Instant::now() < deadline, "{what} did not happen within {within:?}");
        tokio::time::sleep(POLL).await;
    }
}
