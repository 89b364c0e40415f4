//! The built-in demo agent runs the whole loop offline: ask, stop, answer, resume, finish.

use beckon_core::GivenAnswers;
use beckon_core::conversation::{ASK_USER_QUESTION, Message, SessionStatus};
use beckon_core::{Answer, AnsweredVia, Answers};
use beckon_runtime::Decision;
use serde_json::Value;

use crate::support::*;

#[tokio::test]
async fn the_poet_asks_waits_and_writes_the_poem_with_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, notifier) = start(dir.path()).await;
    assert_eq!(beckon.agents().default(), "poet");
    let session = beckon.start_session("poet", "Write a poem about the sea").await.unwrap();

    let notice = pending_in(&notifier, session).await;
    assert_eq!(notice.agent, "poet");
    assert_eq!(notice.request.items().len(), 2);
    assert_eq!(notice.request.items()[0].question(), "Which style should the poem about the sea take?");
    wait_status(&beckon, session, SessionStatus::WaitingForInput).await;
    let pending = beckon.inbox().pending().await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].id, notice.request_id);

    let answers =
        Answers::new(vec![Answer::select(["Haiku"]), Answer::select(["Warm", "Hopeful"])], &notice.request).unwrap();
    let receipt = beckon
        .resolve(notice.request_id, AnsweredVia::Window, Decision::Answer(GivenAnswers::Typed(answers)))
        .await
        .unwrap();
    assert!(!receipt.repeat);
    wait_status(&beckon, session, SessionStatus::Completed).await;

    let view = beckon.inbox().session(session).await.unwrap();
    let messages: Vec<&Message> = view.timeline.iter().map(|e| &e.message).collect();
    let ask_id = messages
        .iter()
        .find_map(|m| match m {
            Message::ToolUse { call } if call.name == ASK_USER_QUESTION => Some(call.id.clone()),
            _ => None,
        })
        .unwrap();
    let result = messages
        .iter()
        .find_map(|m| match m {
            Message::ToolResult { result } if result.tool_use_id == ask_id => Some(result),
            _ => None,
        })
        .unwrap();
    let value: Value = serde_json::from_str(&result.content).unwrap();
    assert_eq!(value["outcome"], "answered");
    assert_eq!(value["answers"]["Which style should the poem about the sea take?"], "Haiku");
    assert_eq!(value["answers"]["Which tones should it have?"], "Warm, Hopeful");
    let last = messages.iter().rev().find_map(|m| match m {
        Message::Assistant { text } => Some(text.clone()),
        _ => None,
    });
    assert_eq!(
        last.unwrap(),
        "Done: a haiku poem about the sea, warm, hopeful in tone. It is in your workspace at poems/the-sea.md."
    );
    let poem =
        std::fs::read_to_string(dir.path().join("workspaces").join(session.to_string()).join("poems/the-sea.md"))
            .unwrap();
    assert!(poem.starts_with("# the sea\n\nthe sea at first light,\na warm, hopeful hush"), "{poem}");
    assert!(view.pending.is_none());
    assert_eq!(beckon.inbox().pending().await.unwrap(), vec![]);
}

#[tokio::test]
async fn declining_the_poet_still_gets_a_poem() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, notifier) = start(dir.path()).await;
    let session = beckon.start_session("poet", "a poem about autumn").await.unwrap();
    let notice = pending_in(&notifier, session).await;
    beckon
        .resolve(notice.request_id, AnsweredVia::Window, Decision::Decline(Some("surprise me".into())))
        .await
        .unwrap();
    wait_status(&beckon, session, SessionStatus::Completed).await;
    let view = beckon.inbox().session(session).await.unwrap();
    let last = view.timeline.iter().rev().find_map(|e| match &e.message {
        Message::Assistant { text } => Some(text.clone()),
        _ => None,
    });
    assert_eq!(
        last.unwrap(),
        "You didn't pick a style (declined), so I went with free verse. The poem is in your workspace at poems/autumn.md."
    );
}
