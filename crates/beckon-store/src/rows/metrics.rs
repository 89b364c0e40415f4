//! Figures about how people answer.

use serde::{Deserialize, Serialize};

/// Answer latency percentiles (nearest rank), in ms.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Latency {
    /// How many answers were measured.
    pub count: u64,
    /// Median.
    pub p50_ms: Option<i64>,
    /// 90th percentile.
    pub p90_ms: Option<i64>,
    /// 99th percentile.
    pub p99_ms: Option<i64>,
}

/// Figures for one agent.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentMetrics {
    /// The agent.
    pub agent: String,
    /// Questions it asked.
    pub asked: u64,
    /// Still waiting.
    pub pending: u64,
    /// Answered.
    pub answered: u64,
    /// Declined.
    pub declined: u64,
    /// Expired.
    pub expired: u64,
    /// Cancelled.
    pub cancelled: u64,
    /// Total time its questions spent waiting (ongoing waits count up to now), in ms.
    pub waiting_ms: i64,
}

/// Figures across all agents.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Questions waiting now.
    pub pending: u64,
    /// How long the oldest waiting question has waited, in ms.
    pub longest_wait_ms: Option<i64>,
    /// Questions resolved in the period.
    pub resolved: u64,
    /// Of those, the share declined (0–1).
    pub decline_rate: f64,
    /// Of those, the share expired (0–1).
    pub expire_rate: f64,
    /// Of those, the share cancelled (0–1).
    pub cancel_rate: f64,
    /// Time from asking to answering.
    pub answer_latency: Latency,
    /// Per agent, by name.
    pub agents: Vec<AgentMetrics>,
}
