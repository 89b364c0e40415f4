//! Whose questions and sessions are on a team server, for front ends that show a signed-in
//! person only what is addressed to them or their groups.

use beckon_core::{Addressees, Audience, RequestId, SessionId};

use super::handle::Beckon;
use crate::error::Result;

impl Beckon {
    /// Whose question `request` is; `None` when it is everyone's (or there is none).
    pub async fn question_audience(&self, request: RequestId) -> Result<Option<Audience>> {
        self.rt.records.call(move |store| store.read().question_audience(request)).await
    }

    /// Whose session `session` is; `None` when it is everyone's (or there is none).
    pub async fn session_audience(&self, session: SessionId) -> Result<Option<Audience>> {
        self.rt.records.call(move |store| store.read().session_audience(session)).await
    }

    /// Who may see `session`: nobody (but an admin) when it does not exist, so that what
    /// outlives a session — an event read back after retention removed it — is no one's.
    pub async fn session_addressees(&self, session: SessionId) -> Result<Addressees> {
        self.rt.records.call(move |store| store.read().session_addressees(session)).await
    }
}
