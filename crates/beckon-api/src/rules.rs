//! Rules the person made: each allows, on their behalf, the approvals it covers; and the rules
//! Beckon offers after the person allowed the same kind of call a few times.

use beckon_core::rules::RuleSpec;
use serde::{Deserialize, Serialize};

/// How a rule came to be.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleSource {
    /// The person accepted a rule Beckon offered after repeated allows.
    Offered,
    /// The person wrote it.
    Hand,
}

impl RuleSource {
    const ALL: [RuleSource; 2] = [RuleSource::Offered, RuleSource::Hand];

    /// The snake_case name, as stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleSource::Offered => "offered",
            RuleSource::Hand => "hand",
        }
    }

    /// Reads the snake_case name.
    pub fn parse(text: &str) -> Option<RuleSource> {
        Self::ALL.into_iter().find(|source| source.as_str() == text)
    }
}

/// A rule as stored.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleRecord {
    /// Its id: "rule 3" in the audit trail.
    pub id: i64,
    /// What it allows.
    pub spec: RuleSpec,
    /// Its key: one live rule per key.
    pub key: String,
    /// What it allows, in words.
    pub description: String,
    /// How it came to be.
    pub source: RuleSource,
    /// Made (Unix ms).
    pub created_at_ms: i64,
    /// How many approvals it allowed.
    pub fired: i64,
    /// When it last allowed one (Unix ms).
    pub last_fired_at_ms: Option<i64>,
    /// When it was revoked (Unix ms); a revoked rule allows nothing.
    pub revoked_at_ms: Option<i64>,
}

impl RuleRecord {
    /// How the rule is named where it acted ("rule 3").
    pub fn answerer_name(&self) -> String {
        rule_name(self.id)
    }
}

/// How rule `id` is named where it acted ("rule 3").
pub fn rule_name(id: i64) -> String {
    format!("rule {id}")
}

/// A rule Beckon offers: the person allowed calls it would cover at least
/// [`OFFER_AFTER`](beckon_core::rules::OFFER_AFTER) times, no live rule has its key, and the
/// person has not turned it down.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleOffer {
    /// The rule's key (what dismissing names).
    pub key: String,
    /// The rule.
    pub spec: RuleSpec,
    /// What it would allow, in words.
    pub description: String,
    /// How often the person allowed such calls.
    pub allowed: u32,
    /// When they last did (Unix ms).
    pub last_allowed_at_ms: i64,
}
