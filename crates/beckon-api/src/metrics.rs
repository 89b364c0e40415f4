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

/// What a server has on its hands now, for its operators: counts and ages only, nothing of what
/// anyone asked or who they are. Each figure is read through an index, so reading them costs
/// little however long the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Workload {
    /// Questions waiting for a person.
    pub pending_questions: u64,
    /// When the oldest of them was asked.
    pub oldest_pending_at_ms: Option<i64>,
    /// Sessions running (a model or a tool at work).
    pub running_sessions: u64,
    /// Sessions waiting for a person.
    pub waiting_sessions: u64,
    /// Callbacks in the outbox still to be delivered (due now or waiting to be retried).
    pub callbacks_pending: u64,
    /// When the earliest of them falls due (in the past when deliveries are behind).
    pub earliest_callback_due_ms: Option<i64>,
    /// Slack and Telegram posts begun and not yet sent: being sent, or failed and waiting to be
    /// tried again.
    pub channel_posts_unsent: u64,
    /// Browsers signed in (unexpired sessions).
    pub browser_sessions: u64,
    /// Desktop apps connected as a person (unexpired sessions).
    pub app_sessions: u64,
}
