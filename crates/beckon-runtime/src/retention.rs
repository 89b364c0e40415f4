//! Retention (off by default): finished sessions older than N days go, with their timelines,
//! questions and workspace folders. Anything waiting or running stays.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::Clock;
use crate::db::Db;
use crate::stop::Stop;

const EVERY: Duration = Duration::from_secs(3600);

/// What retention works with.
pub(crate) struct Retention {
    pub(crate) db: Db,
    pub(crate) clock: Arc<dyn Clock>,
    /// Where sessions' workspace folders live.
    pub(crate) workspaces: PathBuf,
    /// How long a finished session is kept.
    pub(crate) days: u32,
    pub(crate) stop: Stop,
}

pub(crate) async fn run(retention: Retention) {
    let Retention { db, clock, workspaces, days, stop } = retention;
    loop {
        let now = clock.now_ms();
        let before = now - i64::from(days) * 86_400_000;
        match db.write(move |tx| tx.prune_finished(before, now)).await {
            Ok(pruned) if pruned.is_empty() => {}
            Ok(pruned) => {
                let workspaces = workspaces.clone();
                let removed = tokio::task::spawn_blocking(move || remove_workspaces(&workspaces, &pruned)).await;
                if let Ok(count) = removed {
                    tracing::info!(pruned = count, days, "finished sessions and their workspaces removed by retention");
                }
            }
            Err(err) => tracing::warn!(%err, "retention failed"),
        }
        tokio::select! {
            () = clock.sleep_until(now + EVERY.as_millis() as i64) => {}
            () = stop.stopping() => return,
        }
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
