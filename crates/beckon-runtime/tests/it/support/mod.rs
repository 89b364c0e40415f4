//! Helpers shared by the runtime's tests.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use beckon_core::SessionId;
use beckon_core::conversation::SessionStatus;
use beckon_runtime::api::LiveEvent;
use beckon_runtime::{
    Beckon, Clock, PendingNotice, Recorded, RecordingNotifier, RuntimeConfig, StartOptions, SystemClock,
};

pub mod provider_scenarios;

pub const PATIENCE: Duration = Duration::from_secs(20);

/// A runtime on `dir` with a recording notifier and fast callback retries.
pub async fn start_with(config: RuntimeConfig) -> (Beckon, Arc<RecordingNotifier>) {
    start_on(config, Arc::new(SystemClock)).await
}

/// As [`start_with`], on `clock`.
pub async fn start_on(config: RuntimeConfig, clock: Arc<dyn Clock>) -> (Beckon, Arc<RecordingNotifier>) {
    let notifier = Arc::new(RecordingNotifier::default());
    let options = StartOptions { notifier: notifier.clone(), callback_backoff: Duration::from_millis(50), clock };
    (Beckon::start(config, options).await.unwrap(), notifier)
}

pub async fn start(dir: &Path) -> (Beckon, Arc<RecordingNotifier>) {
    start_with(RuntimeConfig::new(dir)).await
}

/// Waits for the pending notice of a question in `session`.
pub async fn pending_in(notifier: &RecordingNotifier, session: SessionId) -> PendingNotice {
    let found = notifier
        .wait_for(PATIENCE, |call| matches!(call, Recorded::Pending(n) if n.session_id == session))
        .await
        .unwrap_or_else(|| panic!("no question from session {session} within {PATIENCE:?}"));
    let Recorded::Pending(notice) = found else { unreachable!() };
    notice
}

/// Waits until `session` reaches `status` (from its events), returning how it got there.
pub async fn wait_status(beckon: &Beckon, session: SessionId, status: SessionStatus) {
    let mut events = beckon.events().subscribe(0).await.unwrap();
    let current = beckon.inbox().session(session).await.unwrap().session.status;
    if current == status {
        return;
    }
    tokio::time::timeout(PATIENCE, async {
        loop {
            let event = events.next().await.unwrap();
            if let LiveEvent::SessionStatus { session_id, status: now, .. } = event
                && session_id == session
                && now == status
            {
                return;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("session {session} did not become {status} within {PATIENCE:?}"));
    assert_eq!(beckon.inbox().session(session).await.unwrap().session.status, status);
}

/// Writes an agent on the scripted provider into `dir/agents`: `{name}.md` with `front` lines
/// added to its front matter, and `{name}.json` playing `turns`.
pub fn scripted_agent(dir: &Path, name: &str, front: &str, turns: serde_json::Value) {
    let agents = dir.join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join(format!("{name}.md")),
        format!("---\nname: {name}\nprovider: scripted\nscript: {name}.json\n{front}\n---\nDo the task.\n"),
    )
    .unwrap();
    std::fs::write(agents.join(format!("{name}.json")), serde_json::json!({ "turns": turns }).to_string()).unwrap();
}

/// Writes a scripted agent into `dir/agents`: it asks "Proceed?" (Yes/No), then reports the
/// outcome and answer. `extra` lines go into its front matter.
pub fn asker_agent(dir: &Path, name: &str, extra: &str) {
    let turns = serde_json::json!([
        {"text": "Checking with you.", "tool_calls": [{"name": "ask_user_question", "input": {"questions": [
            {"question": "Proceed?", "header": "Go", "multiSelect": false, "options": [{"label": "Yes", "description": "Go on"}, {"label": "No", "description": "Stop"}]}
        ]}}]},
        {"text": "outcome={{outcome}} answer={{answer:0}}"}
    ]);
    scripted_agent(dir, name, &format!("description: Asks one thing\n{extra}"), turns);
}

/// The last thing the assistant said in a session.
pub async fn last_words(beckon: &Beckon, session: SessionId) -> String {
    let view = beckon.inbox().session(session).await.unwrap();
    view.timeline
        .iter()
        .rev()
        .find_map(|e| match &e.message {
            beckon_core::conversation::Message::Assistant { text } => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// A session's tool results, in order: whether each is an error, and its text.
pub async fn tool_results(beckon: &Beckon, session: SessionId) -> Vec<(bool, String)> {
    let view = beckon.inbox().session(session).await.unwrap();
    view.timeline
        .iter()
        .filter_map(|e| match &e.message {
            beckon_core::conversation::Message::ToolResult { result } => {
                Some((result.is_error, result.content.clone()))
            }
            _ => None,
        })
        .collect()
}

/// Every tool_use in a session has exactly one tool_result, in order.
pub async fn assert_every_tool_use_answered_once(beckon: &Beckon, session: SessionId) {
    use beckon_core::conversation::Message;
    let view = beckon.inbox().session(session).await.unwrap();
    let uses: Vec<String> = view
        .timeline
        .iter()
        .filter_map(|e| match &e.message {
            Message::ToolUse { call } => Some(call.id.clone()),
            _ => None,
        })
        .collect();
    let results: Vec<String> = view
        .timeline
        .iter()
        .filter_map(|e| match &e.message {
            Message::ToolResult { result } => Some(result.tool_use_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(results, uses, "every tool_use gets exactly one tool_result, in order");
}
