//! The gateway's base URL once it listens, shared by whoever puts answer links in callbacks.

use std::sync::{Arc, PoisonError, RwLock};

/// The gateway's base URL, if it listens; cheap to clone.
#[derive(Debug, Clone, Default)]
pub(crate) struct PublicUrl(Arc<RwLock<Option<String>>>);

impl PublicUrl {
    pub(crate) fn get(&self) -> Option<String> {
        self.0.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    pub(crate) fn set(&self, url: Option<String>) {
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = url;
    }
}
