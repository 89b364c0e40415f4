//! Retention (off by default): finished sessions older than N days go, with their timelines
//! and questions. Anything waiting or running stays.

use std::sync::Weak;
use std::time::Duration;

use crate::clock::now_ms;
use crate::runtime::Runtime;

const EVERY: Duration = Duration::from_secs(3600);

/// Prunes at start and then hourly, until the runtime is gone.
pub(crate) async fn run(rt: Weak<Runtime>, days: u32) {
    loop {
        let Some(runtime) = rt.upgrade() else { return };
        let now = now_ms();
        let before = now - i64::from(days) * 86_400_000;
        match runtime.db.write(move |tx| tx.prune_finished(before, now)).await {
            Ok(0) => {}
            Ok(pruned) => tracing::info!(pruned, days, "finished sessions removed by retention"),
            Err(err) => tracing::warn!(%err, "retention failed"),
        }
        let stopping = runtime.stopping();
        drop(runtime);
        tokio::select! {
            () = tokio::time::sleep(EVERY) => {}
            () = stopping => return,
        }
    }
}
