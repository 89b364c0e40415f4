//! The live rules, in memory: every approval that arrives is checked against them without
//! reading the database. The store is the record; this is kept in step with it by the service
//! (loaded at start, changed on create and revoke), and the store checks once more, in the
//! transaction that applies a rule, that the rule is still live.

use std::sync::RwLock;

use beckon_core::Approval;
use beckon_core::rules::RuleSpec;
use beckon_store::RuleRecord;

/// The live rules, oldest first.
#[derive(Debug, Default)]
pub(crate) struct LiveRules {
    rules: RwLock<Vec<(i64, RuleSpec)>>,
}

impl LiveRules {
    /// The live ones among `records`.
    pub(crate) fn load(records: Vec<RuleRecord>) -> LiveRules {
        let mut live: Vec<(i64, RuleSpec)> =
            records.into_iter().filter(|r| r.revoked_at_ms.is_none()).map(|r| (r.id, r.spec)).collect();
        live.sort_by_key(|(id, _)| *id);
        LiveRules { rules: RwLock::new(live) }
    }

    /// The oldest live rule that allows `approval`, if any.
    pub(crate) fn covering(&self, approval: &Approval) -> Option<i64> {
        let rules = self.rules.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        rules.iter().find(|(_, spec)| spec.covers(approval)).map(|(id, _)| *id)
    }

    /// Adds or keeps a live rule.
    pub(crate) fn insert(&self, record: &RuleRecord) {
        if record.revoked_at_ms.is_some() {
            return;
        }
        let mut rules = self.rules.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !rules.iter().any(|(id, _)| *id == record.id) {
            rules.push((record.id, record.spec.clone()));
            rules.sort_by_key(|(id, _)| *id);
        }
    }

    /// Drops a rule.
    pub(crate) fn remove(&self, id: i64) {
        self.rules.write().unwrap_or_else(std::sync::PoisonError::into_inner).retain(|(rule, _)| *rule != id);
    }
}
