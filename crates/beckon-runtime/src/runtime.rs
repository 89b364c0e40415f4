//! The shared core behind the `Beckon` handle.

use std::sync::Arc;

use tokio::sync::{Notify, watch};

use crate::agents::Agents;
use crate::callbacks::CallbackSecret;
use crate::clock::Clock;
use crate::config::RuntimeConfig;
use crate::db::Db;
use crate::events::{Hub, Waiters};
use crate::executor::Registry;
use crate::lock::DataDirLock;
use crate::providers::ProviderSet;
use crate::timers::Timers;

/// Everything the service, the executors and the workers share.
pub(crate) struct Runtime {
    pub(crate) config: RuntimeConfig,
    pub(crate) db: Db,
    pub(crate) hub: Hub,
    pub(crate) waiters: Arc<Waiters>,
    pub(crate) outbox: Arc<Notify>,
    pub(crate) agents: Agents,
    pub(crate) providers: std::sync::RwLock<ProviderSet>,
    /// The mailbox of every session whose executor task is alive.
    pub(crate) tasks: Registry,
    pub(crate) timers: Timers,
    pub(crate) http: reqwest::Client,
    pub(crate) callback_secret: CallbackSecret,
    /// The gateway's base URL once it listens, for answer links in callbacks.
    pub(crate) public_url: std::sync::RwLock<Option<String>>,
    /// Whether HTTP, MCP and the CLI may allow tool calls (see `RuntimeConfig`).
    pub(crate) scripts_may_approve: std::sync::atomic::AtomicBool,
    /// Where time is read and waited for.
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) shutdown: watch::Sender<bool>,
    pub(crate) _lock: DataDirLock,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").field("data_dir", &self.config.data_dir).finish_non_exhaustive()
    }
}

impl Runtime {
    /// The gateway's base URL, if it listens.
    pub(crate) fn public_url(&self) -> Option<String> {
        self.public_url.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// The providers as configured now.
    pub(crate) fn providers(&self) -> std::sync::RwLockReadGuard<'_, ProviderSet> {
        self.providers.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A future that completes when the runtime shuts down.
    pub(crate) fn stopping(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut receiver = self.shutdown.subscribe();
        async move {
            // Either the value turns true or the sender is gone: both mean stop.
            let _ = receiver.wait_for(|stop| *stop).await;
        }
    }
}
