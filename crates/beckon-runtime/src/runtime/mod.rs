//! The shared core behind the `Beckon` handle, in parts by job: the records and who hears of
//! their changes, what decides approvals, what callbacks carry, the sessions Beckon runs, and
//! the work that runs on its own — with the configuration and the clock every part reads.

mod approvals;
mod callback_links;
mod records;
mod work;

use std::sync::Arc;

pub(crate) use approvals::Approvals;
pub(crate) use callback_links::CallbackLinks;
pub(crate) use records::Records;
pub(crate) use work::Work;

use crate::clock::Clock;
use crate::config::RuntimeConfig;
use crate::executor::Executor;
use crate::push::Vapid;

/// Everything the service, the executors and the workers share.
pub(crate) struct Runtime {
    pub(crate) config: RuntimeConfig,
    /// Where time is read and waited for.
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) records: Records,
    pub(crate) approvals: Approvals,
    pub(crate) callbacks: CallbackLinks,
    /// Runs the sessions Beckon's own agents work in.
    pub(crate) executor: Arc<Executor>,
    pub(crate) work: Work,
    /// The key Web Push messages are signed with.
    pub(crate) vapid: Arc<Vapid>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").field("data_dir", &self.config.data_dir).finish_non_exhaustive()
    }
}
