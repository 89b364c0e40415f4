//! What the provider's handlers share, behind one lock.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use crate::codes::Codes;
use crate::keys::KeyRing;
use crate::misbehaviour::Misbehaviour;
use crate::parties::{Client, Person};

/// What the handlers share.
pub(crate) struct Shared {
    pub(crate) issuer: String,
    pub(crate) clients: Vec<Client>,
    pub(crate) people: Vec<Person>,
    pub(crate) keys: KeyRing,
    pub(crate) codes: Codes,
    /// Applied to the next ID tokens the token endpoint issues, first first.
    pub(crate) misbehaviours: VecDeque<Misbehaviour>,
}

/// The handlers' shared part, as axum hands it to each.
pub(crate) type State = Arc<Mutex<Shared>>;

/// The shared part, locked; a handler that panicked holding it leaves it usable.
pub(crate) fn lock(state: &State) -> std::sync::MutexGuard<'_, Shared> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").field("issuer", &self.issuer).finish_non_exhaustive()
    }
}
