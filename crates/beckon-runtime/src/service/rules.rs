//! Rules the person made: each allows, on their behalf, the approvals it covers (never a
//! destructive call), and Beckon offers one after the person allowed the same kind of call
//! [`OFFER_AFTER`] times. Applying them is in `external.rs`, where approvals arrive.

use beckon_core::Problems;
use beckon_core::rules::{OFFER_AFTER, RuleSpec};
use beckon_store::{RuleOffer, RuleRecord, RuleSource};

use super::handle::Beckon;
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::runtime::{Approvals, Records};

/// Longest rule key a caller may name, in bytes.
const KEY_MAX_BYTES: usize = 8 * 1024;

/// The person's rules: listing, making and revoking them, and the offers Beckon makes.
#[derive(Debug, Clone, Copy)]
pub struct Rules<'a> {
    records: &'a Records,
    clock: &'a dyn Clock,
    /// Where the rules in force are held for approvals as they arrive.
    approvals: &'a Approvals,
}

impl Beckon {
    /// The person's rules.
    pub fn rules(&self) -> Rules<'_> {
        Rules { records: &self.rt.records, clock: &*self.rt.clock, approvals: &self.rt.approvals }
    }
}

impl Rules<'_> {
    /// Every rule, newest first, with how often each allowed; revoked ones too when
    /// `include_revoked` is set.
    pub async fn list(self, include_revoked: bool) -> Result<Vec<RuleRecord>> {
        self.records.call(move |store| store.read().rules(include_revoked)).await
    }

    /// Makes a rule; it allows the approvals it covers from the moment this returns. When a
    /// live rule already has the same key, that rule is returned and nothing changes.
    pub async fn create(self, spec: RuleSpec, source: RuleSource) -> Result<RuleRecord> {
        let at_ms = self.clock.now_ms();
        let record = self.records.write(move |tx| tx.create_rule(&spec, source, at_ms)).await?;
        self.approvals.rule_made(&record);
        tracing::info!(rule = record.id, source = source.as_str(), "rule made");
        Ok(record)
    }

    /// Revokes rule `id`: from the moment this returns it allows nothing. Revoking a revoked
    /// rule returns it unchanged.
    pub async fn revoke(self, id: i64) -> Result<RuleRecord> {
        let at_ms = self.clock.now_ms();
        let record = self.records.write(move |tx| tx.revoke_rule(id, at_ms)).await?;
        let record =
            record.ok_or_else(|| Error::InvalidInput(Problems::one("id", format!("there is no rule {id}"))))?;
        self.approvals.rule_revoked(id);
        tracing::info!(rule = id, "rule revoked");
        Ok(record)
    }

    /// The rules Beckon offers now: calls the person allowed at least [`OFFER_AFTER`] times
    /// that one rule would cover, with no live rule and not turned down; most allowed first.
    pub async fn offers(self) -> Result<Vec<RuleOffer>> {
        self.records.call(|store| store.read().rule_offers(OFFER_AFTER)).await
    }

    /// Turns down the offer of the rule with `key`: it is not offered again.
    pub async fn dismiss_offer(self, key: String) -> Result<()> {
        if key.is_empty() || key.len() > KEY_MAX_BYTES {
            return Err(Error::InvalidInput(Problems::one(
                "key",
                format!("must be a rule offer's key, 1 to {KEY_MAX_BYTES} bytes"),
            )));
        }
        let at_ms = self.clock.now_ms();
        self.records.write(move |tx| tx.dismiss_rule_offer(&key, at_ms)).await
    }
}
