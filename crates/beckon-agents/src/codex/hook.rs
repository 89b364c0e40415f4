//! Codex's `PermissionRequest` hook event as a Beckon approval, and the person's decision as
//! the JSON Codex reads back. Pure: the caller reads stdin, talks to Beckon and prints.
//!
//! Codex asks its hooks before it shows its own approval prompt and shows the prompt only when
//! no hook decided, so nothing can answer in the terminal while the hook waits. A decision
//! other than allow or deny (declined, expired, withdrawn) yields no output, and Codex's own
//! approval (its reviewer, or its prompt) decides.
//!
//! The person can still interrupt the turn in the terminal; Codex then kills the waiting hook
//! outright, before it can withdraw its question. The next prompt they submit in that session
//! ([`went_on`]) withdraws the session's approvals still pending ([`settles`]).
//!
//! Beckon's own MCP tools are allowed at once: they put their question to the person
//! themselves.

use beckon_api::QuestionStatus;
use beckon_api::views::QuestionView;
use beckon_core::PermissionDecision;
use serde_json::{Value, json};

/// Who asks, as Beckon's inbox shows it.
pub const AGENT: &str = "codex";
/// The event the hook answers.
const EVENT: &str = "PermissionRequest";
/// Beckon's own tools, as Codex names them in hook events.
const OWN_TOOLS: &str = "mcp__beckon__";
/// Longest session id used in a grouping key.
const SESSION_KEY_MAX: usize = 150;
/// What the model reads when the person denied without saying why.
pub(crate) const DENIED: &str = "Denied in Beckon.";

/// What to do with a permission request.
#[derive(Debug, Clone, PartialEq)]
pub enum Asked {
    /// Put this approval (the body of `POST /v1/questions`) to the person.
    Approval(Value),
    /// One of Beckon's own tools: allow it at once.
    OwnTool,
}

/// What to do with `event`, or `None` when it is not a permission request Beckon answers.
pub fn ask(event: &Value) -> Option<Asked> {
    if event.get("hook_event_name")?.as_str()? != EVENT {
        return None;
    }
    let tool = event.get("tool_name")?.as_str()?;
    if tool.starts_with(OWN_TOOLS) {
        return Some(Asked::OwnTool);
    }
    let text = |key: &str| event.get(key).and_then(Value::as_str);
    Some(Asked::Approval(approval_body(
        AGENT,
        "Codex",
        text("session_id"),
        text("cwd"),
        tool,
        event.get("tool_input").cloned().unwrap_or_else(|| json!({})),
    )))
}

/// The session whose person went on at Codex's prompt (submitted a prompt), when `event` says
/// so: its approvals still pending were given up.
pub fn went_on(event: &Value) -> Option<&str> {
    if event.get("hook_event_name")?.as_str()? != "UserPromptSubmit" {
        return None;
    }
    event.get("session_id")?.as_str()
}

/// Whether the pending question `view` (as `GET /v1/questions` lists it) is an approval Codex
/// asked for in `session`.
pub fn settles(session: &str, view: &QuestionView) -> bool {
    asked_in(AGENT, session, view)
}

/// Whether the pending question `view` is an approval `agent` asked for in `session`.
pub(crate) fn asked_in(agent: &str, session: &str, view: &QuestionView) -> bool {
    view.agent == agent && view.input.approval().and_then(|approval| approval.session.as_deref()) == Some(session)
}

/// The hook's output that allows the call.
pub fn allow() -> Value {
    output(json!({"behavior": "allow"}))
}

/// The hook's output for a resolved approval `view` (as `GET /v1/questions/{id}` returns it),
/// or `None` when Codex should decide itself.
pub fn reply(view: &QuestionView) -> Option<Value> {
    decision(view).map(output)
}

fn output(decision: Value) -> Value {
    json!({"hookSpecificOutput": {"hookEventName": EVENT, "decision": decision}})
}

/// The person's decision as `{"behavior": "allow"}` or `{"behavior": "deny", "message"}`, when
/// the approval was answered. A decision Beckon keeps for later ("always") allows this call.
pub(crate) fn decision(view: &QuestionView) -> Option<Value> {
    if view.status != QuestionStatus::Answered {
        return None;
    }
    match view.decision.as_ref()? {
        PermissionDecision::Allow { .. } => Some(json!({"behavior": "allow"})),
        PermissionDecision::Deny { message } => {
            let message = Some(message.as_str()).filter(|m| !m.trim().is_empty()).unwrap_or(DENIED);
            Some(json!({"behavior": "deny", "message": message}))
        }
    }
}

/// The body of `POST /v1/questions` that puts one tool call to the person.
pub(crate) fn approval_body(
    agent: &str,
    by: &str,
    session: Option<&str>,
    project: Option<&str>,
    tool: &str,
    input: Value,
) -> Value {
    // `by` names the agent in the question, and says it takes no edited input back.
    let mut approval = json!({"tool_name": tool, "input": input, "by": by});
    let mut body = json!({"agent": agent});
    if let Some(project) = project {
        approval["project"] = json!(project);
        body["metadata"] = json!({"project": project});
    }
    if let Some(session) = session {
        approval["session"] = json!(session);
        if let Some(key) = session_key(agent, session) {
            body["session_key"] = json!(key);
        }
    }
    body["approval"] = approval;
    body
}

/// Groups one agent session's prompts into one Beckon session.
fn session_key(agent: &str, id: &str) -> Option<String> {
    let fits = !id.is_empty()
        && id.len() <= SESSION_KEY_MAX
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    fits.then(|| format!("{agent}:{id}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::view;

    /// As Codex 0.169.0 sends it (`codex exec --approve-for-me`, an escalated command).
    fn captured(tool: &str, input: Value) -> Value {
        json!({"session_id": "01a21450-8e1f-7131-b8e6-f2770be8ef01", "turn_id": "01a21450-8e76",
            "transcript_path": "/home/ada/.codex/sessions/rollout.jsonl", "cwd": "/home/ada/shop",
            "hook_event_name": "PermissionRequest", "model": "gpt-5", "permission_mode": "default",
            "tool_name": tool, "tool_input": input})
    }

    #[test]
    fn a_permission_request_becomes_an_approval_with_its_place() {
        let input = json!({"command": "echo hi > made.txt", "description": "write a file"});
        let Some(Asked::Approval(body)) = ask(&captured("Bash", input.clone())) else { panic!("no approval") };
        assert_eq!(
            body,
            json!({"agent": "codex", "metadata": {"project": "/home/ada/shop"},
                "session_key": "codex:01a21450-8e1f-7131-b8e6-f2770be8ef01",
                "approval": {"tool_name": "Bash", "input": input, "by": "Codex", "project": "/home/ada/shop",
                    "session": "01a21450-8e1f-7131-b8e6-f2770be8ef01"}})
        );
        let Some(Asked::Approval(mcp)) = ask(&captured("mcp__github__create_issue", json!({"title": "x"}))) else {
            panic!("no approval")
        };
        assert_eq!(mcp["approval"]["tool_name"], "mcp__github__create_issue");
    }

    #[test]
    fn beckons_own_tools_are_allowed_at_once_and_other_events_left_alone() {
        assert_eq!(ask(&captured("mcp__beckon__ask_user_question", json!({}))), Some(Asked::OwnTool));
        assert_eq!(
            allow(),
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}})
        );
        let mut post = captured("Bash", json!({}));
        post["hook_event_name"] = json!("PostToolUse");
        assert_eq!(ask(&post), None);
        assert_eq!(ask(&json!([])), None);
        let mut odd = captured("Bash", json!({}));
        odd["session_id"] = json!("a b");
        let Some(Asked::Approval(body)) = ask(&odd) else { panic!("no approval") };
        assert!(body.get("session_key").is_none());
    }

    #[test]
    fn a_prompt_submitted_settles_only_its_own_sessions_approvals() {
        let submitted = json!({"session_id": "s1", "turn_id": "t2", "cwd": "/home/ada/shop",
            "hook_event_name": "UserPromptSubmit", "prompt": "never mind"});
        assert_eq!(went_on(&submitted), Some("s1"));
        assert_eq!(ask(&submitted), None);
        assert_eq!(went_on(&captured("Bash", json!({}))), None);
        let Some(Asked::Approval(body)) = ask(&captured("Bash", json!({"command": "ls"}))) else { panic!() };
        let view = crate::testing::approval(AGENT, &body["approval"]);
        let session = body["approval"]["session"].as_str().unwrap();
        assert!(settles(session, &view));
        assert!(!settles("s1", &view), "another session");
        assert!(!settles(session, &QuestionView { agent: "claude-code".into(), ..view }));
    }

    #[test]
    fn only_an_answer_speaks_and_a_denial_carries_its_message() {
        let allowed = view(json!({"status": "answered", "decision": {"behavior": "allow", "updatedInput": {},
            "updatedPermissions": [{"type": "addRules"}]}}));
        assert_eq!(reply(&allowed), Some(allow()), "allowed always is allowed");
        let denied = view(json!({"status": "answered", "decision": {"behavior": "deny", "message": "Not on main"}}));
        assert_eq!(
            reply(&denied),
            Some(json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": "Not on main"}}}))
        );
        let bare = view(json!({"status": "answered", "decision": {"behavior": "deny", "message": " "}}));
        assert_eq!(reply(&bare).unwrap()["hookSpecificOutput"]["decision"]["message"], DENIED);
        for status in
            [QuestionStatus::Declined, QuestionStatus::Expired, QuestionStatus::Cancelled, QuestionStatus::Pending]
        {
            let view = view(json!({"status": status, "decision": {"behavior": "allow", "updatedInput": {}}}));
            assert_eq!(reply(&view), None, "{status}");
        }
    }
}
