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

/// The condition that question `questions` is seen by whoever the audiences in parameter `n`
/// (a JSON array of `person:<subject>` and `group:<name>`) name — everyone's questions and
/// those addressed to one of them — or any question when that parameter is NULL.
fn seen_by(conn: Conn<'_>, n: u8) -> String {
    let audiences =
        conn.pick("SELECT value FROM json_each(?{n})", "SELECT json_array_elements_text(CAST(?{n} AS TEXT)::json)");
    let null = conn.pick("?{n} IS NULL", "CAST(?{n} AS TEXT) IS NULL");
    format!(
        "({null} OR NOT EXISTS (SELECT 1 FROM session_audiences a WHERE a.session_id = questions.session_id)
          OR EXISTS (SELECT 1 FROM session_audiences a WHERE a.session_id = questions.session_id AND a.audience IN ({audiences})))"
    )
    .replace("{n}", &n.to_string())
}

/// Computes the figures for questions asked since `since_ms` (all with `None`), as of `now_ms`:
/// of every question, or with `audiences` only of those a person among them sees.
pub(crate) fn compute(
    conn: Conn<'_>,
    now_ms: i64,
    since_ms: Option<i64>,
    audiences: Option<&[String]>,
) -> Result<Metrics> {
    let audiences = audiences.map(|audiences| serde_json::Value::from(audiences.to_vec()).to_string());
    let agents = conn.query(
        &format!(
            "SELECT agent, count(*), count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'answered'),
                count(*) FILTER (WHERE status = 'declined'), count(*) FILTER (WHERE status = 'expired'),
                count(*) FILTER (WHERE status = 'cancelled'), CAST(sum(coalesce(resolved_at, ?1) - created_at) AS BIGINT)
             FROM questions WHERE (CAST(?2 AS BIGINT) IS NULL OR created_at >= ?2) AND {seen} GROUP BY agent ORDER BY agent",
            seen = seen_by(conn, 3)
        ),
        &args![now_ms, since_ms, audiences],
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
    let (pending, oldest): (u64, Option<i64>) = conn.query_one(
        &format!("SELECT count(*), min(created_at) FROM questions WHERE status = 'pending' AND {}", seen_by(conn, 1)),
        &args![audiences],
        |row| Ok((count(row, 0)?, row.get(1)?)),
    )?;
    let latencies: Vec<i64> = conn.query(
        &format!(
            "SELECT resolved_at - created_at FROM questions
             WHERE status = 'answered' AND (CAST(?1 AS BIGINT) IS NULL OR created_at >= ?1) AND {seen} ORDER BY 1",
            seen = seen_by(conn, 2)
        ),
        &args![since_ms, audiences],
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
