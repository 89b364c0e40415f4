//! What decides approvals beside the person: the live rules that allow on their behalf, and
//! whether scripts may allow tool calls.

use std::sync::atomic::{AtomicBool, Ordering};

use beckon_core::Approval;
use beckon_store::RuleRecord;

use crate::live_rules::LiveRules;

/// The live rules, and whether HTTP, MCP and the CLI may allow tool calls.
pub(crate) struct Approvals {
    /// Checked on every approval that arrives, without the database.
    rules: LiveRules,
    /// See `RuntimeConfig::scripts_may_approve`; changed by the settings while Beckon runs.
    scripts_may_approve: AtomicBool,
}

impl std::fmt::Debug for Approvals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approvals").finish_non_exhaustive()
    }
}

impl Approvals {
    pub(crate) fn new(rules: LiveRules, scripts_may_approve: bool) -> Approvals {
        Approvals { rules, scripts_may_approve: AtomicBool::new(scripts_may_approve) }
    }

    /// The oldest live rule that allows `approval`, if any.
    pub(crate) fn rule_covering(&self, approval: &Approval) -> Option<i64> {
        self.rules.covering(approval)
    }

    /// A rule now in the store: live from now on unless it is revoked.
    pub(crate) fn rule_made(&self, record: &RuleRecord) {
        self.rules.insert(record);
    }

    /// A rule revoked in the store: it allows nothing more.
    pub(crate) fn rule_revoked(&self, id: i64) {
        self.rules.remove(id);
    }

    /// Whether scripts may allow tool calls now.
    pub(crate) fn scripts_may_approve(&self) -> bool {
        self.scripts_may_approve.load(Ordering::Relaxed)
    }

    /// Lets scripts allow tool calls from now on, or stops them.
    pub(crate) fn let_scripts_approve(&self, allowed: bool) {
        self.scripts_may_approve.store(allowed, Ordering::Relaxed);
    }
}
