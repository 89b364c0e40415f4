//! What callbacks carry from the runtime: the secret they are signed with, and the gateway's
//! address for their answer links.

use std::sync::Arc;

use crate::callbacks::CallbackSecret;
use crate::db::Db;
use crate::error::Result;
use crate::public_url::PublicUrl;

/// The callback secret and the gateway's base URL; the callback worker and the executor hold
/// the same ones.
pub(crate) struct CallbackLinks {
    secret: Arc<CallbackSecret>,
    /// Unknown until the gateway listens.
    public_url: PublicUrl,
}

impl std::fmt::Debug for CallbackLinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the secret.
        f.debug_struct("CallbackLinks").finish_non_exhaustive()
    }
}

impl CallbackLinks {
    pub(crate) fn new(secret: Arc<CallbackSecret>, public_url: PublicUrl) -> CallbackLinks {
        CallbackLinks { secret, public_url }
    }

    /// The secret callbacks are signed with now.
    pub(crate) fn secret(&self) -> String {
        self.secret.current()
    }

    /// Replaces the secret with a new random one, stored in `db` before it is returned.
    pub(crate) async fn rotate_secret(&self, db: &Db) -> Result<String> {
        self.secret.rotate(db).await
    }

    /// The gateway's base URL, once it listens.
    pub(crate) fn public_url(&self) -> Option<String> {
        self.public_url.get()
    }

    /// Where the gateway listens, or that it does not.
    pub(crate) fn set_public_url(&self, url: Option<String>) {
        self.public_url.set(url);
    }
}
