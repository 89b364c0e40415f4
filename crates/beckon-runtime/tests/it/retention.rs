//! Retention removes finished sessions past their age and never touches waiting ones.

use std::sync::Arc;
use std::time::Duration;

use beckon_core::AnsweredVia;
use beckon_core::conversation::SessionStatus;
use beckon_runtime::{Decision, Error, ManualClock, RuntimeConfig};

use crate::support::*;

/// Where the test's clock starts (Unix ms).
const START_MS: i64 = 1_795_500_000_000;
const DAY: Duration = Duration::from_secs(24 * 60 * 60);

#[tokio::test]
async fn finished_sessions_go_and_waiting_ones_stay() {
    let dir = tempfile::tempdir().unwrap();
    let (done, waiting) = {
        let (beckon, notifier) = start_on(RuntimeConfig::new(dir.path()), Arc::new(ManualClock::new(START_MS))).await;
        let done = beckon.start_session("poet", "a poem about fog").await.unwrap();
        let notice = pending_in(&notifier, done).await;
        beckon.resolve(notice.request_id, AnsweredVia::Window, Decision::Decline(None)).await.unwrap();
        wait_status(&beckon, done, SessionStatus::Completed).await;
        let waiting = beckon.start_session("poet", "a poem about frost").await.unwrap();
        pending_in(&notifier, waiting).await;
        beckon.shutdown().await;
        (done, waiting)
    };
    // Each session's files, as its tools would have left them.
    let workspace = |session: beckon_core::SessionId| dir.path().join("workspaces").join(session.to_string());
    for session in [done, waiting] {
        std::fs::create_dir_all(workspace(session).join("drafts")).unwrap();
        std::fs::write(workspace(session).join("drafts/poem.md"), "fog").unwrap();
    }
    // A day and a minute on, with finished sessions kept a day.
    let later = ManualClock::new(START_MS);
    later.advance(DAY + Duration::from_secs(60));
    let mut config = RuntimeConfig::new(dir.path());
    config.retention_days = Some(1);
    let (beckon, _) = start_on(config, Arc::new(later)).await;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while beckon.inbox().session(done).await.is_ok() {
        assert!(tokio::time::Instant::now() < deadline, "the finished session was not pruned");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(matches!(beckon.inbox().session(done).await, Err(Error::SessionNotFound(_))));
    assert_eq!(beckon.inbox().session(waiting).await.unwrap().session.status, SessionStatus::WaitingForInput);
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while workspace(done).exists() {
        assert!(tokio::time::Instant::now() < deadline, "the removed session's workspace stayed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(workspace(waiting).join("drafts/poem.md").exists(), "a waiting session keeps its files");
    assert_eq!(beckon.inbox().pending().await.unwrap().len(), 1);
}
