//! Retention (off by default): finished sessions older than N days go, with their timelines,
//! questions and workspace folders. Anything waiting or running stays.

use std::sync::Weak;
use std::time::Duration;

use crate::runtime::Runtime;

const EVERY: Duration = Duration::from_secs(3600);

/// Prunes at start and then hourly, until the runtime is gone.
pub(crate) async fn run(rt: Weak<Runtime>, days: u32) {
    loop {
        let Some(runtime) = rt.upgrade() else { return };
        let now = runtime.clock.now_ms();
        let before = now - i64::from(days) * 86_400_000;
        match runtime.db.write(move |tx| tx.prune_finished(before, now)).await {
            Ok(pruned) if pruned.is_empty() => {}
            Ok(pruned) => {
                // After the commit: a crash before this leaves a folder behind, never a
                // session without its files.
                let workspaces = runtime.config.workspaces_dir();
                let removed = tokio::task::spawn_blocking(move || remove_workspaces(&workspaces, &pruned)).await;
                if let Ok(count) = removed {
                    tracing::info!(pruned = count, days, "finished sessions and their workspaces removed by retention");
                }
            }
            Err(err) => tracing::warn!(%err, "retention failed"),
        }
        let stopping = runtime.stopping();
        let next = runtime.clock.sleep_until(now + EVERY.as_millis() as i64);
        drop(runtime);
        tokio::select! {
            () = next => {}
            () = stopping => return,
        }
    }
}

/// Removes the workspace folder of each of `sessions`; returns how many sessions there were.
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
