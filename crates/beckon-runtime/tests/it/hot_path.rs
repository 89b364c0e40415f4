//! What a pause-and-resume cycle costs the store: a running session keeps its conversation in
//! memory, and an answer reads its question, session and conversation in one job.

use beckon_core::AnsweredVia;
use beckon_core::GivenAnswers;
use beckon_core::conversation::SessionStatus;
use beckon_runtime::{Beckon, Decision};

use crate::support::*;

/// Waits until the store has made `commits` commits, and says how many jobs the waiting took
/// (each look is one job).
async fn wait_for_commits(beckon: &Beckon, commits: u64) -> u64 {
    let mut looks = 0;
    tokio::time::timeout(PATIENCE, async {
        loop {
            looks += 1;
            if beckon.health().commits().await.unwrap() >= commits {
                return;
            }
            tokio::task::yield_now().await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("fewer than {commits} commits within {PATIENCE:?}"));
    looks
}

#[tokio::test]
async fn a_cycle_is_four_commits_and_one_read() {
    let dir = tempfile::tempdir().unwrap();
    asker_agent(dir.path(), "asker", "");
    let (beckon, notifier) = start(dir.path()).await;
    // The first round also counts the callback worker's first looks at its outbox.
    for round in 0..4 {
        let commits = beckon.health().commits().await.unwrap();
        let jobs = beckon.health().jobs();
        let session = beckon.start_session("asker", &format!("go {round}")).await.unwrap();
        let notice = pending_in(&notifier, session).await;
        beckon
            .resolve(
                notice.request_id,
                AnsweredVia::Window,
                Decision::Answer(GivenAnswers::Texts(vec!["Yes".to_owned()])),
            )
            .await
            .unwrap();
        let looks = wait_for_commits(&beckon, commits + 4).await;
        let cycle = beckon.health().jobs() - jobs - looks;
        // The session's start, the model's question, the answer, the model's last words; and
        // the answer's one read of its question, session and conversation.
        if round > 0 {
            assert_eq!(cycle, 5, "round {round}: store jobs for one cycle");
        }
        wait_status(&beckon, session, SessionStatus::Completed).await;
        assert_eq!(last_words(&beckon, session).await, "outcome=answered answer=Yes");
        assert_every_tool_use_answered_once(&beckon, session).await;
    }
}
