//! Figures about how people answer: what waits, for how long, and how questions end; and what a
//! server has on its hands, for its operators.

use crate::error::Result;
use crate::rows::{AgentMetrics, Latency, Metrics, Workload};
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

/// What the server has on its hands as of `now_ms`. Every statement here is answered from a
/// partial index (or the small table of signed-in sessions), never by reading the history, since
/// it runs at every scrape on the store's one connection.
pub(crate) fn workload(conn: Conn<'_>, now_ms: i64) -> Result<Workload> {
    let mut workload = Workload::default();
    (workload.pending_questions, workload.oldest_pending_at_ms) =
        conn.query_one("SELECT count(*), min(created_at) FROM questions WHERE status = 'pending'", &[], |row| {
            Ok((count(row, 0)?, row.get(1)?))
        })?;
    // The condition is `sessions_active`'s own, so the index answers it.
    let sessions = conn.query(
        "SELECT status, count(*) FROM sessions WHERE status IN ('running', 'waiting_for_input') GROUP BY status",
        &[],
        |row| Ok((row.get::<String>(0)?, count(row, 1)?)),
    )?;
    for (status, n) in sessions {
        match status.as_str() {
            "running" => workload.running_sessions = n,
            _ => workload.waiting_sessions = n,
        }
    }
    (workload.callbacks_pending, workload.earliest_callback_due_ms) =
        conn.query_one("SELECT count(*), min(next_attempt_at) FROM outbox WHERE state = 'pending'", &[], |row| {
            Ok((count(row, 0)?, row.get(1)?))
        })?;
    // `state != 'settled'` is `channel_messages_open`'s condition, written out so the index is used.
    workload.channel_posts_unsent = conn.query_one(
        "SELECT count(*) FROM channel_messages WHERE state != 'settled' AND state IN ('waiting', 'posting')",
        &[],
        |row| count(row, 0),
    )?;
    let people = conn.query(
        "SELECT kind, count(*) FROM person_sessions WHERE expires_at > ?1 GROUP BY kind",
        &args![now_ms],
        |row| Ok((row.get::<String>(0)?, count(row, 1)?)),
    )?;
    for (kind, n) in people {
        match kind.as_str() {
            "app" => workload.app_sessions = n,
            _ => workload.browser_sessions = n,
        }
    }
    Ok(workload)
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
