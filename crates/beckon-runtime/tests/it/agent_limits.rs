//! An agent's budget holds in a running session: a model that loops stops at `max_turns`, a
//! reply with too many tool calls runs none of them, and writes stop at `max_workspace`.

use beckon_core::SessionId;
use beckon_core::conversation::{Message, SessionStatus, State};
use beckon_runtime::Beckon;
use serde_json::{Value, json};

use crate::support::*;

fn write(path: &str, content: &str) -> Value {
    json!({"name": "write_file", "input": {"path": path, "content": content}})
}

async fn failure(beckon: &Beckon, session: SessionId) -> String {
    wait_status(beckon, session, SessionStatus::Failed).await;
    match beckon.inbox().session(session).await.unwrap().session.state {
        State::Failed { reason } => reason,
        other => panic!("not failed: {other:?}"),
    }
}

async fn tool_uses(beckon: &Beckon, session: SessionId) -> usize {
    let view = beckon.inbox().session(session).await.unwrap();
    view.timeline.iter().filter(|e| matches!(e.message, Message::ToolUse { .. })).count()
}

#[tokio::test]
async fn a_looping_model_stops_at_max_turns_and_a_message_gives_it_a_new_budget() {
    let dir = tempfile::tempdir().unwrap();
    let looping: Vec<Value> =
        (0..6).map(|n| json!({"text": "", "tool_calls": [write(&format!("loop-{n}.txt"), "again")]})).collect();
    scripted_agent(dir.path(), "looper", "tools: [write_file]\nmax_turns: 3", Value::Array(looping));
    let (beckon, _) = start(dir.path()).await;
    let session = beckon.start_session("looper", "go").await.unwrap();

    let reason = failure(&beckon, session).await;
    assert!(reason.contains("stopped after 3 model turns") && reason.contains("max_turns"), "{reason}");
    assert_eq!(tool_uses(&beckon, session).await, 3, "three replies, then no fourth request");
    assert_every_tool_use_answered_once(&beckon, session).await;

    beckon.send_message(session, "carry on").await.unwrap();
    // The first failure's events are still there to see: wait for the second one's work.
    tokio::time::timeout(PATIENCE, async {
        while tool_uses(&beckon, session).await < 6
            || beckon.inbox().session(session).await.unwrap().session.status != SessionStatus::Failed
        {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the person's message allowed three more replies, then the limit again");
    let reason = failure(&beckon, session).await;
    assert!(reason.contains("max_turns"), "{reason}");
}

#[tokio::test]
async fn a_reply_with_more_tool_calls_than_allowed_runs_none_of_them() {
    let dir = tempfile::tempdir().unwrap();
    let calls: Vec<Value> = (0..5).map(|n| write(&format!("many-{n}.txt"), "x")).collect();
    scripted_agent(
        dir.path(),
        "greedy",
        "tools: [write_file]\nmax_tool_calls_per_turn: 4",
        json!([{"text": "", "tool_calls": calls}]),
    );
    let (beckon, _) = start(dir.path()).await;
    let session = beckon.start_session("greedy", "go").await.unwrap();

    let reason = failure(&beckon, session).await;
    assert!(reason.contains("asked for 5 tool calls") && reason.contains("allows 4"), "{reason}");
    assert_eq!(tool_uses(&beckon, session).await, 0);
    let workspace = dir.path().join("workspaces").join(session.to_string());
    assert!(!workspace.join("many-0.txt").exists());
}

#[tokio::test]
async fn writes_past_max_workspace_are_refused_to_the_model_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let block = "x".repeat(5000);
    scripted_agent(
        dir.path(),
        "filler",
        "tools: [write_file]\nmax_workspace: 12KB",
        json!([
            {"text": "", "tool_calls": [write("a.txt", &block), write("b.txt", &block), write("deep/c.txt", &block)]},
            {"text": "", "tool_calls": [write("a.txt", "small"), write("deep/c.txt", &block)]},
            {"text": "done"}
        ]),
    );
    let (beckon, _) = start(dir.path()).await;
    let session = beckon.start_session("filler", "go").await.unwrap();
    wait_status(&beckon, session, SessionStatus::Completed).await;
    assert_every_tool_use_answered_once(&beckon, session).await;

    let results = tool_results(&beckon, session).await;
    assert!(!results[0].0 && !results[1].0, "{results:?}");
    assert!(results[2].0, "the third block does not fit: {results:?}");
    assert!(results[2].1.contains("holds 10000 bytes") && results[2].1.contains("max_workspace"), "{}", results[2].1);
    assert!(!results[3].0 && !results[4].0, "replacing a.txt with less makes room: {results:?}");

    let workspace = dir.path().join("workspaces").join(session.to_string());
    assert_eq!(std::fs::read_to_string(workspace.join("a.txt")).unwrap(), "small");
    assert_eq!(std::fs::read_to_string(workspace.join("deep/c.txt")).unwrap(), block);
}

#[tokio::test]
async fn a_refused_write_leaves_no_folder_behind() {
    let dir = tempfile::tempdir().unwrap();
    scripted_agent(
        dir.path(),
        "nester",
        "tools: [write_file]\nmax_workspace: 4KB",
        json!([
            {"text": "", "tool_calls": [write("a/b/c/big.txt", &"y".repeat(5000))]},
            {"text": "done"}
        ]),
    );
    let (beckon, _) = start(dir.path()).await;
    let session = beckon.start_session("nester", "go").await.unwrap();
    wait_status(&beckon, session, SessionStatus::Completed).await;
    let workspace = dir.path().join("workspaces").join(session.to_string());
    assert!(!workspace.join("a").exists());
}
