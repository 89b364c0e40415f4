//! What every session's task holds: the executor's store, clock, agents, providers and its
//! other neighbours.

use std::sync::Arc;

use super::registry::Registry;
use crate::agents::Agents;
use crate::clock::Clock;
use crate::db::Db;
use crate::deadlines::Deadlines;
use crate::events::TextDelta;
use crate::leases::Leases;
use crate::lock::DataDirLock;
use crate::providers::ProviderSet;
use crate::public_url::PublicUrl;
use crate::stop::Stop;

/// What the executor works with, and nothing else: its sessions' tasks hold it.
pub(crate) struct Executor {
    pub(crate) db: Db,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) agents: Agents,
    pub(crate) providers: std::sync::RwLock<ProviderSet>,
    /// The client the providers send with, kept to build them anew when the settings change.
    pub(crate) http: reqwest::Client,
    /// The mailbox of every session whose task is alive.
    pub(crate) tasks: Registry,
    pub(crate) deadlines: Deadlines,
    /// Where the model's text goes as it streams.
    pub(crate) text: tokio::sync::broadcast::Sender<TextDelta>,
    /// Where sessions' workspace folders live.
    pub(crate) workspaces: std::path::PathBuf,
    /// For the answer links in callbacks.
    pub(crate) public_url: PublicUrl,
    pub(crate) stop: Stop,
    /// On a team server, a session's task holds `session:<id>` while it runs.
    pub(crate) leases: Leases,
    /// The data folder's lock: held while any session task still runs, so that no other
    /// runtime opens the folder under a task that is finishing its commit.
    pub(crate) _lock: Arc<DataDirLock>,
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor").field("workspaces", &self.workspaces).finish_non_exhaustive()
    }
}

impl Executor {
    /// The providers as configured now.
    pub(crate) fn providers(&self) -> std::sync::RwLockReadGuard<'_, ProviderSet> {
        self.providers.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
