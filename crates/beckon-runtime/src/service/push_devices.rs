use std::sync::Arc;

use beckon_api::{PushOffer, PushSubscription};

use super::Beckon;
use crate::clock::Clock;
use crate::db::Db;
use crate::error::Result;
use crate::push::{Vapid, device};

/// People's devices that take pushes (see [`crate::push`]): what a signed-in person's browser
/// adds and removes. Cheap to clone.
#[derive(Clone)]
pub struct PushDevices {
    db: Db,
    clock: Arc<dyn Clock>,
    vapid: Arc<Vapid>,
}

impl std::fmt::Debug for PushDevices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PushDevices").finish_non_exhaustive()
    }
}

impl Beckon {
    /// People's devices that take pushes.
    pub fn push_devices(&self) -> PushDevices {
        PushDevices { db: self.rt.records.db().clone(), clock: self.rt.clock.clone(), vapid: self.rt.vapid.clone() }
    }
}

impl PushDevices {
    /// What a browser subscribes to this server's pushes with.
    pub fn offer(&self) -> PushOffer {
        PushOffer { application_server_key: self.vapid.public_key().to_owned() }
    }

    /// Pushes `subject`'s questions to the browser `subscription` names, for as long as the
    /// sign-in whose secret hashes to `session_hash` lasts. A subscription that cannot be pushed
    /// to (not a push service's URL, keys that are not a browser's) is refused, naming the field.
    pub async fn add(&self, session_hash: [u8; 32], subject: &str, subscription: PushSubscription) -> Result<()> {
        let device = device(subscription, session_hash, subject, self.clock.now_ms())?;
        self.db.write(move |tx| tx.add_push_device(&device)).await
    }

    /// Stops pushing to `subject`'s browser at `endpoint`; whether it was theirs.
    pub async fn remove(&self, endpoint: &str, subject: &str) -> Result<bool> {
        let (endpoint, subject) = (endpoint.to_owned(), subject.to_owned());
        self.db.write(move |tx| tx.remove_push_device(&endpoint, &subject)).await
    }
}
