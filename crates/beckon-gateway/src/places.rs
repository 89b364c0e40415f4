//! Requests that stay open — long-polls, event streams, MCP sessions — each hold one of a
//! bounded number of places, so no caller can pile up waiting requests (each a task, a socket
//! and a waiter) without end. A request over the bound is refused with 429 at once.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;

/// The places for one kind of open request.
#[derive(Debug, Clone)]
pub struct Places {
    /// What holds them, as a refusal names it ("long-polls").
    what: &'static str,
    max: usize,
    free: Arc<Semaphore>,
}

/// A held place; freed when dropped.
#[derive(Debug)]
pub struct Place(#[allow(dead_code, reason = "held for its drop")] OwnedSemaphorePermit);

impl Places {
    /// `max` places for `what`.
    pub fn new(what: &'static str, max: usize) -> Places {
        Places { what, max, free: Arc::new(Semaphore::new(max)) }
    }

    /// Takes a place, or says that all are taken.
    pub fn take(&self) -> Result<Place, ApiError> {
        self.free.clone().try_acquire_owned().map(Place).map_err(|_| self.refusal())
    }

    /// The refusal when every place is taken.
    pub fn refusal(&self) -> ApiError {
        ApiError::busy(format!(
            "{} {} are open at once, the most the gateway allows; retry when one has ended",
            self.max, self.what
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_taken_refused_and_given_back() {
        let places = Places::new("long-polls", 2);
        let first = places.take().unwrap();
        let _second = places.take().unwrap();
        let refused = places.take().unwrap_err();
        assert_eq!(refused.status(), axum::http::StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(
            refused.body().message,
            "2 long-polls are open at once, the most the gateway allows; retry when one has ended"
        );
        drop(first);
        let _third = places.take().unwrap();
        assert!(places.take().is_err());
    }
}
