//! Figures about how people answer: what waits, for how long, and how questions end.

use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};

use crate::error::Result;

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

fn count(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<u64> {
    Ok(row.get::<_, Option<i64>>(index)?.unwrap_or(0).max(0) as u64)
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[i64], p: f64) -> Option<i64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len()) - 1).copied()
}

/// Computes the figures for questions asked since `since_ms` (all with `None`), as of `now_ms`.
pub(crate) fn compute(conn: &Connection, now_ms: i64, since_ms: Option<i64>) -> Result<Metrics> {
    let mut stmt = conn.prepare_cached(
        "SELECT agent, count(*), sum(status = 'pending'), sum(status = 'answered'), sum(status = 'declined'),
                sum(status = 'expired'), sum(status = 'cancelled'), sum(coalesce(resolved_at, ?1) - created_at)
         FROM questions WHERE (?2 IS NULL OR created_at >= ?2) GROUP BY agent ORDER BY agent",
    )?;
    let agents = stmt
        .query_map(params![now_ms, since_ms], |row| {
            Ok(AgentMetrics {
                agent: row.get(0)?,
                asked: count(row, 1)?,
                pending: count(row, 2)?,
                answered: count(row, 3)?,
                declined: count(row, 4)?,
                expired: count(row, 5)?,
                cancelled: count(row, 6)?,
                waiting_ms: row.get(7)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let (pending, oldest): (u64, Option<i64>) = conn
        .prepare_cached("SELECT count(*), min(created_at) FROM questions WHERE status = 'pending'")?
        .query_row([], |row| Ok((count(row, 0)?, row.get(1)?)))?;
    let mut stmt = conn.prepare_cached(
        "SELECT resolved_at - created_at FROM questions
         WHERE status = 'answered' AND (?1 IS NULL OR created_at >= ?1) ORDER BY 1",
    )?;
    let latencies = stmt.query_map([since_ms], |row| row.get::<_, i64>(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
    let sum = |f: fn(&AgentMetrics) -> u64| agents.iter().map(f).sum::<u64>();
    let (declined, expired, cancelled) = (sum(|a| a.declined), sum(|a| a.expired), sum(|a| a.cancelled));
    let resolved = sum(|a| a.answered) + declined + expired + cancelled;
    let rate = |n: u64| if resolved == 0 { 0.0 } else { n as f64 / resolved as f64 };
    Ok(Metrics {
        pending,
        longest_wait_ms: oldest.map(|t| (now_ms - t).max(0)),
        resolved,
        decline_rate: rate(declined),
        expire_rate: rate(expired),
        cancel_rate: rate(cancelled),
        answer_latency: Latency {
            count: latencies.len() as u64,
            p50_ms: percentile(&latencies, 50.0),
            p90_ms: percentile(&latencies, 90.0),
            p99_ms: percentile(&latencies, 99.0),
        },
        agents,
    })
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn nearest_rank_percentiles() {
        let values: Vec<i64> = (1..=100).collect();
        assert_eq!(percentile(&values, 50.0), Some(50));
        assert_eq!(percentile(&values, 99.0), Some(99));
        assert_eq!(percentile(&[7], 90.0), Some(7));
        assert_eq!(percentile(&[], 50.0), None);
    }
}
