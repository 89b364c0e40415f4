//! Retention: finished sessions older than N days go (off by default), with their timelines,
//! questions and workspace folders; anything waiting or running stays. The audit trail is kept
//! for its own period (a year by default), whether or not sessions are kept: an hourly pass
//! drops the decisions older than that, and sign-ins and browser sessions that expired.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::Clock;
use crate::db::Db;
use crate::leases::Leases;
use crate::stop::Stop;

const EVERY: Duration = Duration::from_secs(3600);
const DAY_MS: i64 = 86_400_000;

/// What retention works with.
pub(crate) struct Retention {
    pub(crate) db: Db,
    pub(crate) clock: Arc<dyn Clock>,
    /// Where sessions' workspace folders live.
    pub(crate) workspaces: PathBuf,
    /// How long a finished session is kept; for ever when `None`.
    pub(crate) days: Option<u32>,
    /// How long an audit row is kept.
    pub(crate) audit_days: u32,
    pub(crate) stop: Stop,
    /// On a team server, one replica prunes at a time: the one holding [`RETENTION_WORK`].
    pub(crate) leases: Leases,
}

/// The lease a team server's replica holds while it prunes.
const RETENTION_WORK: &str = "retention";

pub(crate) async fn run(retention: Retention) {
    let Retention { db, clock, workspaces, days, audit_days, stop, leases } = retention;
    loop {
        let now = clock.now_ms();
        if !leases.keep(RETENTION_WORK).await {
            // Another replica prunes; look again in case it dies.
            tokio::select! {
                () = clock.sleep_until(now + i64::try_from(leases.lease().as_millis()).unwrap_or(0)) => continue,
                () = stop.stopping() => return,
            }
        }
        if let Some(days) = days {
            prune_sessions(&db, &workspaces, days, now).await;
        }
        // A day at least: a period of zero would empty the trail on every pass.
        let before = now - i64::from(audit_days.max(1)) * DAY_MS;
        match db.write(move |tx| tx.prune_audit(before)).await {
            Ok(0) => {}
            Ok(pruned) => tracing::info!(pruned, audit_days, "audit rows removed by retention"),
            Err(err) => tracing::warn!(%err, "audit retention failed"),
        }
        match db.write(move |tx| tx.prune_sign_ins(now)).await {
            Ok(0) => {}
            Ok(pruned) => tracing::info!(pruned, "expired sign-ins and browser sessions removed"),
            Err(err) => tracing::warn!(%err, "pruning expired sign-ins failed"),
        }
        tokio::select! {
            () = clock.sleep_until(now + EVERY.as_millis() as i64) => {}
            () = stop.stopping() => return,
        }
    }
}

async fn prune_sessions(db: &Db, workspaces: &std::path::Path, days: u32, now: i64) {
    let before = now - i64::from(days) * DAY_MS;
    match db.write(move |tx| tx.prune_finished(before, now)).await {
        Ok(pruned) if pruned.is_empty() => {}
        Ok(pruned) => {
            let workspaces = workspaces.to_path_buf();
            let removed = tokio::task::spawn_blocking(move || remove_workspaces(&workspaces, &pruned)).await;
            if let Ok(count) = removed {
                tracing::info!(pruned = count, days, "finished sessions and their workspaces removed by retention");
            }
        }
        Err(err) => tracing::warn!(%err, "retention failed"),
    }
}

fn remove_workspaces(workspaces: &std::path::Path, sessions: &[beckon_core::SessionId]) -> usize {
    for id in sessions {
        let folder = workspaces.join(id.to_string());
        match std::fs::remove_dir_all(&folder) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => tracing::warn!(session = %id, %err, "retention could not remove a workspace folder"),
        }
    }
    sessions.len()
}
