//! A sub-agent's question goes to the same inbox, labelled with its origin; the parent shows
//! waiting while it waits, and gets the sub-agent's final words as its tool result.

use beckon_core::GivenAnswers;
use beckon_core::conversation::{Message, SessionStatus};
use beckon_core::{Answer, AnsweredVia, Answers};
use beckon_runtime::Decision;
use serde_json::json;

use crate::support::*;

fn agents(dir: &std::path::Path) {
    scripted_agent(
        dir,
        "research",
        "tools: [spawn_agent]",
        json!([
            {"text": "Delegating.", "tool_calls": [{"name": "spawn_agent", "input": {"agent": "summariser", "task": "Summarise {{message}}"}}]},
            {"text": "Research done."}
        ]),
    );
    asker_agent(dir, "summariser", "");
}

#[tokio::test]
async fn a_sub_agent_asks_through_the_same_inbox_and_reports_back() {
    let dir = tempfile::tempdir().unwrap();
    agents(dir.path());
    let (beckon, notifier) = start(dir.path()).await;
    let parent = beckon.start_session("research", "the tides").await.unwrap();
    let notice = notifier
        .wait_for(PATIENCE, |c| matches!(c, beckon_runtime::Recorded::Pending(n) if n.agent == "summariser"))
        .await
        .unwrap();
    let beckon_runtime::Recorded::Pending(notice) = notice else { unreachable!() };
    assert_eq!(notice.origin.to_string(), "research › summariser");
    assert_ne!(notice.session_id, parent);
    wait_status(&beckon, parent, SessionStatus::WaitingForInput).await;
    let child = beckon.inbox().session(notice.session_id).await.unwrap();
    assert_eq!(child.session.parent, Some(parent));
    assert_eq!(child.session.title, "Summarise the tides");

    let answers = Answers::new(vec![Answer::select(["Yes"])], &notice.request).unwrap();
    beckon
        .resolve(notice.request_id, AnsweredVia::Window, Decision::Answer(GivenAnswers::Typed(answers)))
        .await
        .unwrap();
    wait_status(&beckon, notice.session_id, SessionStatus::Completed).await;
    wait_status(&beckon, parent, SessionStatus::Completed).await;
    assert_eq!(last_words(&beckon, parent).await, "Research done.");
    let view = beckon.inbox().session(parent).await.unwrap();
    let result = view.timeline.iter().find_map(|e| match &e.message {
        Message::ToolResult { result } => Some(result.clone()),
        _ => None,
    });
    let result = result.unwrap();
    assert!(!result.is_error);
    assert_eq!(result.content, "outcome=answered answer=Yes", "the parent gets the sub-agent's final words");
    assert_every_tool_use_answered_once(&beckon, parent).await;
}

#[tokio::test]
async fn cancelling_the_parent_cancels_the_waiting_sub_agent() {
    let dir = tempfile::tempdir().unwrap();
    agents(dir.path());
    let (beckon, notifier) = start(dir.path()).await;
    let parent = beckon.start_session("research", "the moon").await.unwrap();
    let notice = notifier
        .wait_for(PATIENCE, |c| matches!(c, beckon_runtime::Recorded::Pending(n) if n.agent == "summariser"))
        .await
        .unwrap();
    let beckon_runtime::Recorded::Pending(notice) = notice else { unreachable!() };
    wait_status(&beckon, parent, SessionStatus::WaitingForInput).await;
    beckon.cancel(parent, None).await.unwrap();
    wait_status(&beckon, parent, SessionStatus::Cancelled).await;
    wait_status(&beckon, notice.session_id, SessionStatus::Cancelled).await;
    assert_eq!(
        beckon.inbox().question(notice.request_id).await.unwrap().status,
        beckon_store::QuestionStatus::Cancelled
    );
    assert_every_tool_use_answered_once(&beckon, parent).await;
}

#[tokio::test]
async fn a_sub_agent_waiting_across_a_restart_still_reports_to_its_parent() {
    let dir = tempfile::tempdir().unwrap();
    agents(dir.path());
    let (parent, request_id) = {
        let (beckon, notifier) = start(dir.path()).await;
        let parent = beckon.start_session("research", "stars").await.unwrap();
        let notice = notifier
            .wait_for(PATIENCE, |c| matches!(c, beckon_runtime::Recorded::Pending(n) if n.agent == "summariser"))
            .await
            .unwrap();
        let beckon_runtime::Recorded::Pending(notice) = notice else { unreachable!() };
        wait_status(&beckon, parent, SessionStatus::WaitingForInput).await;
        beckon.shutdown().await;
        (parent, notice.request_id)
    };
    let (beckon, _) = start(dir.path()).await;
    beckon
        .resolve(request_id, AnsweredVia::Window, Decision::Answer(GivenAnswers::Texts(vec!["No".into()])))
        .await
        .unwrap();
    wait_status(&beckon, parent, SessionStatus::Completed).await;
    assert_every_tool_use_answered_once(&beckon, parent).await;
}

#[tokio::test]
async fn a_sub_agent_has_no_tool_and_no_question_its_parent_lacks() {
    let dir = tempfile::tempdir().unwrap();
    scripted_agent(
        dir.path(),
        "reader",
        "tools: [read_file, spawn_agent]\nquestions: false",
        json!([
            {"tool_calls": [{"name": "spawn_agent", "input": {"agent": "writer", "task": "Write it"}}]},
            {"text": "Reader done."}
        ]),
    );
    scripted_agent(
        dir.path(),
        "writer",
        "tools: [read_file, write_file]",
        json!([
            {"tool_calls": [
                {"name": "write_file", "input": {"path": "loot.txt", "content": "taken"}},
                {"name": "ask_user_question", "input": {"questions": [{"question": "Allow?", "header": "Allow",
                    "options": [{"label": "Yes"}, {"label": "No"}]}]}}
            ]},
            {"text": "Writer done."}
        ]),
    );
    let (beckon, notifier) = start(dir.path()).await;
    let parent = beckon.start_session("reader", "go").await.unwrap();
    wait_status(&beckon, parent, SessionStatus::Completed).await;
    assert_eq!(last_words(&beckon, parent).await, "Reader done.");
    assert!(
        !notifier.calls().iter().any(|call| matches!(call, beckon_runtime::Recorded::Pending(_))),
        "the sub-agent asked the person though its parent may not"
    );
    let filter = beckon_store::SessionFilter { limit: 100, ..Default::default() };
    let child =
        beckon.inbox().sessions(filter).await.unwrap().sessions.into_iter().find(|s| s.agent == "writer").unwrap();
    let view = beckon.inbox().session(child.id).await.unwrap();
    let refusals: Vec<String> = view
        .timeline
        .iter()
        .filter_map(|e| match &e.message {
            Message::ToolResult { result } if result.is_error => Some(result.content.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(refusals.len(), 2, "{refusals:?}");
    assert!(refusals.iter().all(|r| r.contains("Available tools: read_file.")), "{refusals:?}");
    let workspace = dir.path().join("workspaces").join(parent.to_string());
    assert!(!workspace.join("loot.txt").exists(), "the sub-agent wrote a file its parent could not");
}
