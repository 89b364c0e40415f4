//! The shared core behind the `Beckon` handle.

use std::sync::{Arc, Mutex};

use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::callbacks::CallbackSecret;
use crate::clock::Clock;
use crate::config::RuntimeConfig;
use crate::db::Db;
use crate::deadlines::Deadlines;
use crate::events::{Hub, Waiters};
use crate::executor::Executor;
use crate::leases::Leases;
use crate::live_rules::LiveRules;
use crate::lock::DataDirLock;
use crate::public_url::PublicUrl;
use crate::stop::StopSignal;

/// Everything the service, the executors and the workers share.
pub(crate) struct Runtime {
    pub(crate) config: RuntimeConfig,
    pub(crate) db: Db,
    pub(crate) hub: Hub,
    pub(crate) waiters: Arc<Waiters>,
    pub(crate) outbox: Arc<Notify>,
    /// Runs the sessions Beckon's own agents work in.
    pub(crate) executor: Arc<Executor>,
    pub(crate) deadlines: Deadlines,
    /// The live rules, checked on every approval that arrives without the database.
    pub(crate) rules: LiveRules,
    pub(crate) http: reqwest::Client,
    pub(crate) callback_secret: Arc<CallbackSecret>,
    /// The gateway's base URL once it listens, for answer links in callbacks.
    pub(crate) public_url: PublicUrl,
    /// Whether HTTP, MCP and the CLI may allow tool calls (see `RuntimeConfig`).
    pub(crate) scripts_may_approve: std::sync::atomic::AtomicBool,
    /// Where time is read and waited for.
    pub(crate) clock: Arc<dyn Clock>,
    /// Stops every part.
    pub(crate) signal: StopSignal,
    /// The work this replica holds on a team server.
    pub(crate) leases: Leases,
    /// The parts that run on their own, awaited at shutdown.
    pub(crate) workers: Mutex<Vec<JoinHandle<()>>>,
    /// The data folder's lock, shared with the executor: released once both are gone.
    pub(crate) _lock: Arc<DataDirLock>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").field("data_dir", &self.config.data_dir).finish_non_exhaustive()
    }
}
