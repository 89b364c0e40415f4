//! Requests that stay open — long-polls, event streams, MCP sessions — each hold one of a
//! bounded number of places, so no caller can pile up waiting requests (each a task, a socket
//! and a waiter) without end. Each caller (the person's token, one agent token, one signed-in
//! person) may hold only its share of them, so that one person with many windows, or one
//! runaway script, cannot shut everyone else out. A request over either bound is refused with
//! 429 at once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;
use crate::principal::Principal;

/// Whose share a place is counted in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Caller {
    /// The person's token (on a team server, the admin token).
    Person,
    /// One ask-only token, by its id.
    Token(i64),
    /// One person signed in on a team server, by their subject (all their windows and apps).
    Member(String),
}

impl Caller {
    /// Whose share `principal`'s requests count in.
    pub fn of(principal: &Principal) -> Caller {
        match principal {
            Principal::Owner => Caller::Person,
            Principal::AskOnly { token } => Caller::Token(token.id.0),
            Principal::Member(member) => Caller::Member(member.person.subject.clone()),
        }
    }
}

/// The places for one kind of open request.
#[derive(Debug, Clone)]
pub struct Places {
    /// What holds them, as a refusal names it ("long-polls").
    what: &'static str,
    max: usize,
    share: usize,
    free: Arc<Semaphore>,
    held: Arc<Mutex<HashMap<Caller, usize>>>,
}

/// A held place; freed when dropped.
#[derive(Debug)]
pub struct Place {
    _permit: OwnedSemaphorePermit,
    caller: Caller,
    held: Arc<Mutex<HashMap<Caller, usize>>>,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = held.get_mut(&self.caller) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                held.remove(&self.caller);
            }
        }
    }
}

impl Places {
    /// `max` places for `what`, at most `share` of them for one caller.
    pub fn new(what: &'static str, max: usize, share: usize) -> Places {
        Places {
            what,
            max,
            share: share.min(max),
            free: Arc::new(Semaphore::new(max)),
            held: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Takes a place for `caller`, or says that its share, or every place, is taken.
    pub fn take(&self, caller: Caller) -> Result<Place, ApiError> {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let permit = self.free.clone().try_acquire_owned().map_err(|_| self.refusal())?;
        let own = held.get(&caller).copied().unwrap_or(0);
        if own >= self.share {
            return Err(ApiError::busy(format!(
                "you hold {own} {} at once, your share of the gateway's; retry when one has ended",
                self.what
            )));
        }
        *held.entry(caller.clone()).or_insert(0) += 1;
        Ok(Place { _permit: permit, caller, held: self.held.clone() })
    }

    /// How many places are held now.
    pub fn held(&self) -> usize {
        self.max.saturating_sub(self.free.available_permits())
    }

    /// How many places there are.
    pub fn max(&self) -> usize {
        self.max
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
        let places = Places::new("long-polls", 2, 2);
        let first = places.take(Caller::Person).unwrap();
        let _second = places.take(Caller::Token(1)).unwrap();
        let refused = places.take(Caller::Token(2)).unwrap_err();
        assert_eq!(refused.status(), axum::http::StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(
            refused.body().message,
            "2 long-polls are open at once, the most the gateway allows; retry when one has ended"
        );
        assert_eq!((places.held(), places.max()), (2, 2));
        drop(first);
        assert_eq!(places.held(), 1, "a refusal holds nothing");
        let _third = places.take(Caller::Person).unwrap();
        assert!(places.take(Caller::Person).is_err());
    }

    #[test]
    fn one_caller_holds_only_its_share() {
        let places = Places::new("event streams", 5, 2);
        let ada = || Caller::Member("ada".into());
        let (first, _second) = (places.take(ada()).unwrap(), places.take(ada()).unwrap());
        let refused = places.take(ada()).unwrap_err();
        assert_eq!(
            refused.body().message,
            "you hold 2 event streams at once, your share of the gateway's; retry when one has ended"
        );
        let _bo = places.take(Caller::Member("bo".into())).unwrap();
        drop(first);
        let _again = places.take(ada()).unwrap();
    }
}
