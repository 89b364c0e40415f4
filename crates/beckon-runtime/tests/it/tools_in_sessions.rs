//! Tools inside a running session: the workspace confines them, and tool errors go back to
//! the model as error results instead of breaking the session.

use beckon_core::conversation::SessionStatus;
use serde_json::json;

use crate::support::*;

#[tokio::test]
async fn escape_attempts_come_back_as_error_results_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("outside.txt");
    std::fs::write(&secret, "do not read").unwrap();
    scripted_agent(
        dir.path(),
        "nosy",
        "tools: [read_file, write_file, list_files]",
        json!([
            {"text": "", "tool_calls": [
                {"name": "read_file", "input": {"path": secret.display().to_string()}},
                {"name": "read_file", "input": {"path": "../../outside.txt"}},
                {"name": "write_file", "input": {"path": "../escape.txt", "content": "x"}},
                {"name": "list_files", "input": {"path": "/"}},
                {"name": "shell", "input": {"command": "cat /etc/passwd"}},
                {"name": "write_file", "input": {"path": "ok.txt", "content": "fine"}}
            ]},
            {"text": "finished"}
        ]),
    );
    let (beckon, _) = start(dir.path()).await;
    let session = beckon.start_session("nosy", "look around").await.unwrap();
    wait_status(&beckon, session, SessionStatus::Completed).await;
    assert_every_tool_use_answered_once(&beckon, session).await;
    let results = tool_results(&beckon, session).await;
    assert_eq!(results.len(), 6);
    for (is_error, content) in &results[..5] {
        assert!(is_error, "{content}");
        assert!(!content.contains("do not read"), "{content}");
    }
    assert!(results[4].1.contains("no tool named \"shell\""), "{}", results[4].1);
    assert!(!results[5].0, "{}", results[5].1);
    assert!(!dir.path().join("escape.txt").exists());
    assert!(!dir.path().join("workspaces").join("escape.txt").exists());
    assert_eq!(last_words(&beckon, session).await, "finished");
}
