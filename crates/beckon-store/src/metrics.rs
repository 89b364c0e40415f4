//! Figures about how people answer: what waits, for how long, and how questions end.

use crate::error::Result;
use crate::rows::{AgentMetrics, Latency, Metrics};
use crate::sql::{Conn, Row, args};

fn count(row: &Row<'_>, index: usize) -> Result<u64> {
    Ok(row.get::<Option<i64>>(index)?.unwrap_or(0).max(0) as u64)
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
pub(crate) fn compute(conn: Conn<'_>, now_ms: i64, since_ms: Option<i64>) -> Result<Metrics> {
    let agents = conn.query(
        "SELECT agent, count(*), count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'answered'),
                count(*) FILTER (WHERE status = 'declined'), count(*) FILTER (WHERE status = 'expired'),
                count(*) FILTER (WHERE status = 'cancelled'), CAST(sum(coalesce(resolved_at, ?1) - created_at) AS BIGINT)
         FROM questions WHERE (CAST(?2 AS BIGINT) IS NULL OR created_at >= ?2) GROUP BY agent ORDER BY agent",
        &args![now_ms, since_ms],
        |row| {
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
        },
    )?;
    let (pending, oldest): (u64, Option<i64>) =
        conn.query_one("SELECT count(*), min(created_at) FROM questions WHERE status = 'pending'", &[], |row| {
            Ok((count(row, 0)?, row.get(1)?))
        })?;
    let latencies: Vec<i64> = conn.query(
        "SELECT resolved_at - created_at FROM questions
         WHERE status = 'answered' AND (CAST(?1 AS BIGINT) IS NULL OR created_at >= ?1) ORDER BY 1",
        &args![since_ms],
        |row| row.get(0),
    )?;
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
