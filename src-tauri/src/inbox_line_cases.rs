//! The inbox's line is made in two places: by the store for the window's start-up snapshot
//! (`QuestionRequest::inbox_line`) and by the window for questions it learns of whole
//! (`lineOf` in `ui/src/state/triage.ts`). This test writes what the Rust side makes of a set of
//! requests to `ui/src/state/inboxLineCases.json`, which the UI's own test checks `lineOf`
//! against. It fails when the committed cases are stale; run it with `BECKON_UPDATE_BINDINGS=1`
//! to write them.

use std::path::Path;

use beckon_core::{Approval, QuestionRequest};
use serde_json::{Value, json};

fn approval(value: Value) -> QuestionRequest {
    QuestionRequest::for_approval(Approval::parse(&value, "approval").unwrap())
}

fn request(value: Value) -> QuestionRequest {
    QuestionRequest::parse(&value).unwrap()
}

fn requests() -> Vec<QuestionRequest> {
    let options = json!([{"label": "Yes", "description": "Go"}, {"label": "No"}]);
    vec![
        approval(
            json!({"tool_name": "Bash", "input": {"command": "npm test", "description": "Run the tests"}, "project": "/home/ada/shop"}),
        ),
        approval(
            json!({"tool_name": "Edit", "input": {"file_path": "/home/ada/shop/src/a.rs", "old_string": "a", "new_string": "b"}}),
        ),
        approval(json!({"tool_name": "Write", "input": {"file_path": "notes.md", "content": "# Notes\n".repeat(40)}})),
        approval(
            json!({"tool_name": "Grep", "input": {"command": "   ", "path": "", "pattern": "TODO"}, "by": "Codex"}),
        ),
        approval(
            json!({"tool_name": "WebFetch", "input": {"url": "https://example.com/a?b=c", "prompt": "Summarise"}}),
        ),
        approval(
            json!({"tool_name": "mcp__github__create_issue", "input": {"title": "Crash", "body": "…"}, "session": "abc"}),
        ),
        request(json!({"questions": [{"question": "Deploy now?", "header": "Deploy", "options": options}]})),
        request(json!({"questions": [{"question": "Which sources?", "options": options, "multiSelect": true}],
            "metadata": {"project": "  ", "cwd": "/srv/api/"}})),
        request(json!({"questions": [{"question": "Severity?", "header": "Bug", "schema": {"type": "integer"}}],
            "metadata": {"project": "/srv/docs"}})),
        request(json!({"questions": [
            {"question": "Which colour?", "header": "Colour", "options": options},
            {"question": "How many?", "schema": {"type": "number"}}
        ]})),
        request(
            json!({"questions": [{"question": "Ship **release** `v2`?\nIt has *three* fixes.", "options": options}],
            "metadata": {"cwd": 7}}),
        ),
    ]
}

#[test]
fn the_window_makes_the_same_inbox_lines_as_the_store() {
    let cases: Vec<Value> = requests()
        .into_iter()
        .map(|request| json!({"request": request.to_value(), "line": request.inbox_line()}))
        .collect();
    let text = serde_json::to_string_pretty(&cases).unwrap() + "\n";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/state/inboxLineCases.json");
    if std::env::var_os("BECKON_UPDATE_BINDINGS").is_some() {
        std::fs::write(&path, text).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "ui/src/state/inboxLineCases.json is stale: run this test with BECKON_UPDATE_BINDINGS=1"
    );
}
