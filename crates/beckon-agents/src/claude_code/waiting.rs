//! Claude Code waiting at its own prompt, as a Beckon notice: its `Notification` hook says it
//! waits for the person (idle after a turn, a background agent that needs input, a worker
//! that needs permission), and the events that show the session going on take the notice
//! away. Prompts that reach Beckon as questions (permission dialogs, MCP forms) are not told
//! twice: Beckon already shows them.

use serde_json::{Value, json};

use super::hook::{AGENT, is_settled_elsewhere, session_key};
use crate::notice::{MESSAGE_MAX_BYTES, PROJECT_MAX_BYTES, shown};

/// The kinds of Claude Code notification that mean it waits for the person and that Beckon
/// does not already hold as a question.
const WAITING: [&str; 3] = ["idle_prompt", "agent_needs_input", "worker_permission_prompt"];
/// What Beckon says when Claude Code gives no message.
const DEFAULT_MESSAGE: &str = "Claude is waiting for your input";

pub use crate::notice::NoticeChange;

/// What `event` changes, if anything.
pub fn notice_change(event: &Value) -> Option<NoticeChange> {
    let key = session_key(event)?;
    match event.get("hook_event_name")?.as_str()? {
        "Notification" => {
            let kind = event.get("notification_type").and_then(Value::as_str)?;
            if !WAITING.contains(&kind) {
                return None;
            }
            let message = event
                .get("message")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .unwrap_or(DEFAULT_MESSAGE);
            // Claude Code's words are made to fit what a notice holds: Beckon refuses one with
            // a control character or past its length, and then the person is not told at all.
            let mut body = json!({"agent": AGENT, "message": shown(message, MESSAGE_MAX_BYTES)});
            if let Some(project) = event.get("cwd").and_then(Value::as_str).filter(|cwd| !cwd.trim().is_empty()) {
                body["project"] = json!(shown(project, PROJECT_MAX_BYTES));
            }
            Some(NoticeChange::Post { key, body })
        }
        "UserPromptSubmit" | "SessionEnd" => Some(NoticeChange::Clear { key }),
        _ if is_settled_elsewhere(event) => Some(NoticeChange::Clear { key }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: &str, extra: Value) -> Value {
        let mut event = json!({"hook_event_name": name, "session_id": "5f0c-9a", "cwd": "/home/ada/shop"});
        for (key, value) in extra.as_object().unwrap() {
            event[key] = value.clone();
        }
        event
    }

    #[test]
    fn waiting_at_the_prompt_posts_a_notice_naming_the_project() {
        let idle = event(
            "Notification",
            json!({"notification_type": "idle_prompt", "message": "Claude is waiting for your input"}),
        );
        assert_eq!(
            notice_change(&idle),
            Some(NoticeChange::Post {
                key: "claude-code:5f0c-9a".into(),
                body: json!({"agent": "claude-code", "message": "Claude is waiting for your input",
                    "project": "/home/ada/shop"}),
            })
        );
        let Some(NoticeChange::Post { body, .. }) =
            notice_change(&event("Notification", json!({"notification_type": "agent_needs_input", "message": " "})))
        else {
            panic!("a background agent waiting is a notice")
        };
        assert_eq!(body["message"], DEFAULT_MESSAGE);
    }

    #[test]
    fn a_message_or_project_beckon_would_refuse_is_made_to_fit() {
        let odd = event(
            "Notification",
            json!({"notification_type": "idle_prompt", "message": "Claude is waiting f\u{7f}r you", "cwd": " "}),
        );
        let Some(NoticeChange::Post { body, .. }) = notice_change(&odd) else { panic!("still a notice") };
        assert_eq!(body["message"], "Claude is waiting f\\u{7f}r you");
        assert!(body.get("project").is_none(), "a blank folder is no project: {body}");
        let long = event(
            "Notification",
            json!({"notification_type": "idle_prompt", "message": "é".repeat(600), "cwd": "/a".repeat(3000)}),
        );
        let Some(NoticeChange::Post { body, .. }) = notice_change(&long) else { panic!("still a notice") };
        assert!(body["message"].as_str().unwrap().len() <= MESSAGE_MAX_BYTES);
        assert!(body["project"].as_str().unwrap().len() <= PROJECT_MAX_BYTES);
    }

    #[test]
    fn prompts_beckon_already_holds_and_other_news_are_not_notices() {
        for kind in ["permission_prompt", "elicitation_dialog", "auth_success", "agent_completed"] {
            let news = event("Notification", json!({"notification_type": kind, "message": "m"}));
            assert_eq!(notice_change(&news), None, "{kind}");
        }
        assert_eq!(notice_change(&event("Notification", json!({"message": "m"}))), None);
    }

    #[test]
    fn the_session_going_on_clears_its_notice() {
        let clear = Some(NoticeChange::Clear { key: "claude-code:5f0c-9a".into() });
        assert_eq!(notice_change(&event("UserPromptSubmit", json!({"prompt": "go on"}))), clear);
        assert_eq!(notice_change(&event("SessionEnd", json!({"reason": "prompt_input_exit"}))), clear);
        assert_eq!(notice_change(&event("PostToolUse", json!({"tool_name": "Bash"}))), clear);
        assert_eq!(notice_change(&event("PermissionRequest", json!({"tool_name": "Bash"}))), None);
        let mut without_session = event("UserPromptSubmit", json!({}));
        without_session.as_object_mut().unwrap().remove("session_id");
        assert_eq!(notice_change(&without_session), None);
    }
}
