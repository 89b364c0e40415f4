//! Copilot CLI's `permissionRequest` hook event as a Beckon approval, and the person's decision
//! as the JSON Copilot reads back. Pure: the caller reads stdin, talks to Beckon and prints.
//!
//! Copilot asks its hooks before it asks the person, so nothing answers in the terminal while
//! the hook waits. A decision other than allow or deny (declined, expired, withdrawn) yields no
//! output, and Copilot's own prompt decides. Beckon's own MCP tools are allowed at once: they
//! put their question to the person themselves.
//!
//! The person can still interrupt the turn in the terminal; Copilot then kills the waiting hook
//! outright, before it can withdraw its question. The next prompt they submit in that session,
//! or its end ([`went_on`]), withdraws the session's approvals still pending ([`settles`]).

use beckon_api::views::QuestionView;
use serde_json::{Value, json};

use crate::codex::hook::{approval_body, asked_in, decision};

/// Who asks, as Beckon's inbox shows it.
pub const AGENT: &str = "copilot";
/// The event the hook answers (Copilot sends its name as `hookName`).
const EVENT: &str = "permissionRequest";
/// Beckon's own tools, as Copilot names them in hook events.
const OWN_TOOLS: &str = "beckon/";

/// What to do with a permission request.
pub use crate::codex::hook::Asked;

/// What to do with `event`, or `None` when it is not a permission request Beckon answers.
pub fn ask(event: &Value) -> Option<Asked> {
    if event.get("hookName").and_then(Value::as_str).is_some_and(|name| name != EVENT) {
        return None;
    }
    let tool = event.get("toolName")?.as_str()?;
    if tool.starts_with(OWN_TOOLS) {
        return Some(Asked::OwnTool);
    }
    let text = |key: &str| event.get(key).and_then(Value::as_str);
    Some(Asked::Approval(approval_body(
        AGENT,
        "Copilot",
        text("sessionId"),
        text("cwd"),
        tool,
        event.get("toolInput").cloned().unwrap_or_else(|| json!({})),
    )))
}

/// The session whose person went on at Copilot's prompt (`userPromptSubmitted`, which carries
/// the `prompt`) or which ended (`sessionEnd`, with its `reason`), when `event` says so: its
/// approvals still pending were given up. (These events carry no `hookName`.)
pub fn went_on(event: &Value) -> Option<&str> {
    if event.get("toolName").is_some() || (event.get("prompt").is_none() && event.get("reason").is_none()) {
        return None;
    }
    event.get("sessionId")?.as_str()
}

/// Whether the pending question `view` (as `GET /v1/questions` lists it) is an approval
/// Copilot asked for in `session`.
pub fn settles(session: &str, view: &QuestionView) -> bool {
    asked_in(AGENT, session, view)
}

/// The hook's output that allows the call.
pub fn allow() -> Value {
    json!({"behavior": "allow"})
}

/// The hook's output for a resolved approval `view` (as `GET /v1/questions/{id}` returns it),
/// or `None` when Copilot should decide itself.
pub fn reply(view: &QuestionView) -> Option<Value> {
    decision(view)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::view;

    /// As Copilot CLI 1.0.102 sends it (`copilot -p`, a shell command).
    fn captured(tool: &str, input: Value) -> Value {
        json!({"hookName": "permissionRequest", "sessionId": "fc53f7cb-0da6-4267-a770-c8d9e2f63f5e",
            "timestamp": 1795637159835u64, "cwd": "/home/ada/shop", "toolName": tool, "toolInput": input,
            "permissionSuggestions": []})
    }

    #[test]
    fn a_permission_request_becomes_an_approval_with_its_place() {
        let input = json!({"command": "echo hi > made.txt"});
        let Some(Asked::Approval(body)) = ask(&captured("bash", input.clone())) else { panic!("no approval") };
        assert_eq!(
            body,
            json!({"agent": "copilot", "metadata": {"project": "/home/ada/shop"},
                "session_key": "copilot:fc53f7cb-0da6-4267-a770-c8d9e2f63f5e",
                "approval": {"tool_name": "bash", "input": input, "by": "Copilot", "project": "/home/ada/shop",
                    "session": "fc53f7cb-0da6-4267-a770-c8d9e2f63f5e"}})
        );
    }

    #[test]
    fn beckons_own_tools_are_allowed_at_once_and_other_events_left_alone() {
        assert_eq!(ask(&captured("beckon/ask_user_question", json!({}))), Some(Asked::OwnTool));
        let mut other = captured("bash", json!({}));
        other["hookName"] = json!("preToolUse");
        assert_eq!(ask(&other), None);
        assert_eq!(ask(&json!({"sessionId": "s"})), None);
    }

    #[test]
    fn a_prompt_submitted_or_the_session_ending_settles_only_its_own_sessions_approvals() {
        // As Copilot CLI 1.0.102 sends them.
        let submitted = json!({"sessionId": "s1", "timestamp": 1795659695881u64, "cwd": "/home/ada/shop",
            "prompt": "never mind"});
        let ended = json!({"sessionId": "s1", "timestamp": 1795659696386u64, "cwd": "/home/ada/shop",
            "reason": "complete"});
        assert_eq!(went_on(&submitted), Some("s1"));
        assert_eq!(went_on(&ended), Some("s1"));
        assert_eq!(ask(&submitted), None);
        assert_eq!(went_on(&captured("bash", json!({}))), None);
        let Some(Asked::Approval(body)) = ask(&captured("bash", json!({"command": "ls"}))) else { panic!() };
        let view = crate::testing::approval(AGENT, &body["approval"]);
        let session = body["approval"]["session"].as_str().unwrap();
        assert!(settles(session, &view));
        assert!(!settles("s1", &view));
        assert!(!settles(session, &QuestionView { agent: "codex".into(), ..view }));
    }

    #[test]
    fn only_an_answer_speaks_and_a_denial_carries_its_message() {
        let allowed = view(json!({"status": "answered", "decision": {"behavior": "allow", "updatedInput": {}}}));
        assert_eq!(reply(&allowed), Some(json!({"behavior": "allow"})));
        let denied = view(json!({"status": "answered", "decision": {"behavior": "deny", "message": "Use /tmp"}}));
        assert_eq!(reply(&denied), Some(json!({"behavior": "deny", "message": "Use /tmp"})));
        assert_eq!(reply(&view(json!({"status": "expired"}))), None);
    }
}
