//! Following events: a subscriber gets every event after its seq exactly once, in order, live
//! or after falling behind.

use beckon_core::GivenAnswers;
use std::time::Duration;

use beckon_core::QuestionRequest;
use beckon_runtime::{Decision, ExternalAsk};
use serde_json::json;

use crate::support::*;

fn ask() -> ExternalAsk {
    let request = QuestionRequest::parse(
        &json!({"questions": [{"question": "Ok?", "options": [{"label": "Yes"}, {"label": "No"}]}]}),
    )
    .unwrap();
    ExternalAsk { agent: "bot".into(), request: Some(request), ..ExternalAsk::default() }
}

#[tokio::test]
async fn a_subscriber_sees_the_backlog_then_live_events_without_gaps() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start(dir.path()).await;
    for _ in 0..3 {
        beckon.ask_external(ask()).await.unwrap();
    }
    let snapshot = beckon.events().last_seq().await.unwrap();
    assert!(snapshot >= 9);
    let mut from_start = beckon.events().subscribe(0).await.unwrap();
    let mut from_snapshot = beckon.events().subscribe(snapshot).await.unwrap();
    for _ in 0..3 {
        beckon.ask_external(ask()).await.unwrap();
    }
    let last = beckon.events().last_seq().await.unwrap();
    for seq in 1..=last {
        let event = tokio::time::timeout(Duration::from_secs(5), from_start.next()).await.unwrap().unwrap();
        assert_eq!(event.seq(), seq);
    }
    for seq in snapshot + 1..=last {
        let event = tokio::time::timeout(Duration::from_secs(5), from_snapshot.next()).await.unwrap().unwrap();
        assert_eq!(event.seq(), seq);
    }
    assert!(tokio::time::timeout(Duration::from_millis(100), from_start.next()).await.is_err(), "nothing more");
}

#[tokio::test]
async fn a_subscriber_that_falls_far_behind_catches_up_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start(dir.path()).await;
    let mut slow = beckon.events().subscribe(0).await.unwrap();
    // More events than the live buffer holds, while the subscriber reads nothing.
    while beckon.events().last_seq().await.unwrap() < 4_500 {
        beckon.ask_external(ask()).await.unwrap();
    }
    let last = beckon.events().last_seq().await.unwrap();
    let mut expected = 1;
    while expected <= last {
        let event = tokio::time::timeout(Duration::from_secs(10), slow.next()).await.unwrap().unwrap();
        assert_eq!(event.seq(), expected);
        expected += 1;
    }
}

#[tokio::test]
async fn a_resolution_event_carries_the_whole_question_as_stored() {
    let dir = tempfile::tempdir().unwrap();
    asker_agent(dir.path(), "asker", "");
    let (beckon, notifier) = start(dir.path()).await;
    let external = beckon.ask_external(ask()).await.unwrap();
    beckon
        .resolve(
            external.request_id,
            beckon_core::AnsweredVia::Cli,
            Decision::Answer(GivenAnswers::Texts(vec!["No".to_owned()])),
        )
        .await
        .unwrap();
    let session = beckon.start_session("asker", "go").await.unwrap();
    let in_app = pending_in(&notifier, session).await.request_id;
    beckon.resolve(in_app, beckon_core::AnsweredVia::Window, Decision::Decline(Some("not now".into()))).await.unwrap();
    let mut events = beckon.events().subscribe(0).await.unwrap();
    for asked in [external.request_id, in_app] {
        let carried = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                if let beckon_runtime::api::LiveEvent::QuestionResolved { request_id, question, .. } =
                    events.next().await.unwrap()
                    && request_id == asked
                {
                    return question;
                }
            }
        })
        .await
        .unwrap();
        let stored = beckon.inbox().question(asked).await.unwrap();
        assert_eq!(carried.as_deref(), Some(&stored), "the event's question is the stored record");
        assert!(stored.outcome.is_some() && stored.resolved_at_ms.is_some() && !stored.tool_use_id.is_empty());
    }
}
