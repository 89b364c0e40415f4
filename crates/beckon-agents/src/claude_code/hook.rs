//! Claude Code's hook events as Beckon questions, and the person's answers as the JSON Claude
//! Code reads back. Pure: the caller reads stdin, talks to Beckon and prints.
//!
//! - `PermissionRequest` for a tool → an approval; its decision goes back as
//!   `hookSpecificOutput.decision`.
//! - `PermissionRequest` or `PreToolUse` for Claude Code's own AskUserQuestion → a normal
//!   question; the answers go back as the allowed call's `updatedInput` (its `questions` with
//!   `answers` keyed by question text, and `annotations`), which Claude Code's tool returns to
//!   the model as if its terminal dialog had been answered.
//!
//! - `Elicitation` (an MCP server's form) → free-form questions, one per field; the answers go
//!   back as the form's content (`accept`), a decline as `decline`.
//! - `PostToolUse`, `PostToolUseFailure`, `PermissionDenied` and `ElicitationResult` say the call went on (or was
//!   refused) without Beckon: the person answered in the terminal. Claude Code does not end
//!   the waiting hook then, so these withdraw the matching pending question
//!   ([`is_settled_elsewhere`]), and the waiting hook, seeing it withdrawn, exits silently.
//!
//! Anything else — an event this does not handle, a question Beckon refuses, an outcome other
//! than an answer — yields no output, and Claude Code's own dialog decides.

use beckon_api::QuestionStatus;
use beckon_api::views::QuestionView;
use beckon_core::{AnsweredVia, Outcome};
use serde_json::{Map, Value, json};

use super::elicitation;

/// Who asks, as Beckon's inbox shows it.
pub const AGENT: &str = "claude-code";
/// Claude Code's own question tool.
const ASK_TOOL: &str = "AskUserQuestion";
/// Longest session id used in a grouping key.
const SESSION_KEY_MAX: usize = 150;

/// Which hook event is being answered, and so how the answer is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Pending {
    /// A tool call waiting for permission.
    Approval,
    /// Claude Code's AskUserQuestion, in the event named (`PermissionRequest`, `PreToolUse`),
    /// with the tool's input as given.
    Question { event: &'static str, input: Map<String, Value> },
    /// An MCP server's form, with its field names in the questions' order.
    Form { names: Vec<String> },
}

/// What to put to the person for `event`: the body of `POST /v1/questions` and how to write
/// the answer, or `None` when this event is not one Beckon answers.
pub fn ask(event: &Value) -> Option<(Value, Pending)> {
    let name = event.get("hook_event_name")?.as_str()?;
    let tool = event.get("tool_name").and_then(Value::as_str);
    let input = event.get("tool_input").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut body = json!({"agent": AGENT});
    if let Some(key) = session_key(event) {
        body["session_key"] = Value::String(key);
    }
    if let Some(project) = event.get("cwd").and_then(Value::as_str) {
        body["metadata"] = json!({"project": project});
    }
    if name == "Elicitation" {
        let (request, names) = elicitation::questions(event)?;
        body["questions"] = request;
        body["person_only"] = Value::Bool(true);
        return Some((body, Pending::Form { names }));
    }
    let pending = match (name, tool) {
        ("PermissionRequest", Some(ASK_TOOL)) => Pending::Question { event: "PermissionRequest", input },
        // In the default mode the question also comes as a PermissionRequest, which Claude
        // Code runs beside its own dialog; a PreToolUse hook would hold that dialog back.
        ("PreToolUse", Some(ASK_TOOL)) if event.get("permission_mode").and_then(Value::as_str) != Some("default") => {
            Pending::Question { event: "PreToolUse", input }
        }
        ("PermissionRequest", Some(tool)) => {
            let mut approval = json!({"tool_name": tool, "input": input});
            if let Some(suggestions) = event.get("permission_suggestions").filter(|s| s.is_array()) {
                approval["suggestions"] = suggestions.clone();
            }
            for (from, to) in [("cwd", "project"), ("session_id", "session")] {
                if let Some(text) = event.get(from).filter(|v| v.is_string()) {
                    approval[to] = text.clone();
                }
            }
            body["approval"] = approval;
            return Some((body, Pending::Approval));
        }
        _ => return None,
    };
    if let Pending::Question { input, .. } = &pending {
        // The whole input: its metadata is kept; answers Claude Code may have filled in are
        // accepted and replaced by the person's.
        body["questions"] = Value::Object(input.clone());
        // Claude Code asked the person: the agent waiting on it must not answer it itself.
        body["person_only"] = Value::Bool(true);
    }
    Some((body, pending))
}

/// The hook's output for a resolved question `view` (as `GET /v1/questions/{id}` returns it),
/// or `None` when Claude Code should decide itself (an approval declined, anything expired or
/// withdrawn). Claude Code's own question declined in Beckon goes back as unanswered.
pub fn reply(pending: &Pending, view: &QuestionView) -> Option<Value> {
    match (pending, view.status) {
        (Pending::Form { .. }, QuestionStatus::Declined) => {
            return Some(json!({"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "decline"}}));
        }
        (Pending::Question { event, input }, QuestionStatus::Declined) => {
            return Some(allow_question(event, unanswered(input, view)));
        }
        (_, QuestionStatus::Answered) => {}
        (Pending::Approval, QuestionStatus::Declined)
        | (_, QuestionStatus::Pending | QuestionStatus::Expired | QuestionStatus::Cancelled) => return None,
    }
    match pending {
        Pending::Form { names } => {
            let content = elicitation::content(view.outcome.as_ref()?, names)?;
            Some(
                json!({"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept", "content": content}}),
            )
        }
        Pending::Approval => {
            let decision = view.decision.as_ref()?;
            Some(json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}))
        }
        Pending::Question { event, input } => {
            // The result the agent receives, as Claude Code's AskUserQuestion returns it.
            let result = view.result.as_ref()?;
            let mut updated = input.clone();
            updated.insert("answers".into(), result.get("answers")?.clone());
            match result.get("annotations") {
                Some(annotations) if annotations.is_object() => {
                    updated.insert("annotations".into(), annotations.clone());
                }
                _ => {
                    updated.remove("annotations");
                }
            }
            Some(allow_question(event, Value::Object(updated)))
        }
    }
}

/// The output that lets Claude Code's AskUserQuestion return `updated` as if its own dialog
/// had been answered.
fn allow_question(event: &str, updated: Value) -> Value {
    match event {
        "PreToolUse" => json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "allow", "permissionDecisionReason": "Answered in Beckon",
            "updatedInput": updated}}),
        _ => json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow", "updatedInput": updated}}}),
    }
}

/// Claude Code's question input with every question left unanswered, as the person left it in
/// Beckon: `skipped` when they pressed Skip in the window, `dismissed` when they declined it
/// anywhere else (a notification, Slack, Telegram, a script). Claude Code keeps the mark for
/// its own records; the model reads the text in `answers`, which says so, with their reason.
fn unanswered(input: &Map<String, Value>, view: &QuestionView) -> Value {
    let how = if view.answered_via == Some(AnsweredVia::Window) { "skipped" } else { "dismissed" };
    let reason = match &view.outcome {
        Some(Outcome::Declined { reason } | Outcome::Cancelled { reason }) => reason.as_deref(),
        Some(Outcome::Answered { .. } | Outcome::Expired { .. }) | None => None,
    };
    let reason = reason.map(str::trim).filter(|r| !r.is_empty());
    let mut text = match how {
        "skipped" => "The user skipped this question in Beckon without answering.".to_owned(),
        _ => "The user dismissed this question in Beckon without answering.".to_owned(),
    };
    if let Some(reason) = reason {
        text.push_str(&format!(" Their reason: {reason}"));
    }
    let mut answers = Map::new();
    let mut annotations = Map::new();
    let questions = input.get("questions").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for question in questions.iter().filter_map(|q| q.get("question").and_then(Value::as_str)) {
        answers.insert(question.to_owned(), Value::String(text.clone()));
        annotations.insert(question.to_owned(), json!({"unanswered": how}));
    }
    let mut updated = input.clone();
    updated.insert("answers".into(), Value::Object(answers));
    updated.insert("annotations".into(), Value::Object(annotations));
    Value::Object(updated)
}

/// Whether `event` says a call went on without Beckon (it ran, failed, or was refused), so a
/// pending question about it was answered in the terminal.
pub fn is_settled_elsewhere(event: &Value) -> bool {
    matches!(
        event.get("hook_event_name").and_then(Value::as_str),
        Some("PostToolUse" | "PostToolUseFailure" | "PermissionDenied" | "ElicitationResult")
    )
}

/// Whether the pending question `view` (as `GET /v1/questions` lists it) is the one `event`
/// settled: an approval of the same call in the same Claude Code session, or Claude Code's
/// own question with the same texts.
pub fn settles(event: &Value, view: &QuestionView) -> bool {
    if view.agent != AGENT {
        return false;
    }
    if event.get("hook_event_name").and_then(Value::as_str) == Some("ElicitationResult") {
        return elicitation::settled_by(event, view);
    }
    let tool = event.get("tool_name").and_then(Value::as_str);
    let input = event.get("tool_input");
    match view.input.approval() {
        Some(approval) => {
            Some(approval.tool_name.as_str()) == tool
                && input.and_then(Value::as_object) == Some(&approval.input)
                && approval.session.as_deref() == event.get("session_id").and_then(Value::as_str)
        }
        None if tool == Some(ASK_TOOL) => {
            let ours: Vec<&str> = view.input.items().iter().map(|item| item.question()).collect();
            let theirs: Vec<&str> = input
                .and_then(|i| i.get("questions"))
                .and_then(Value::as_array)
                .map(|items| items.iter().filter_map(|q| q["question"].as_str()).collect())
                .unwrap_or_default();
            !ours.is_empty() && ours == theirs
        }
        None => false,
    }
}

/// Groups one Claude Code session's prompts into one Beckon session.
pub(crate) fn session_key(event: &Value) -> Option<String> {
    let id = event.get("session_id")?.as_str()?;
    let fits = !id.is_empty()
        && id.len() <= SESSION_KEY_MAX
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    fits.then(|| format!("claude-code:{id}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::view;

    fn permission(tool: &str, input: Value) -> Value {
        json!({"session_id": "5b0c-11", "transcript_path": "/t.jsonl", "cwd": "/home/ada/shop",
            "permission_mode": "default", "hook_event_name": "PermissionRequest", "tool_name": tool,
            "tool_input": input,
            "permission_suggestions": [{"type": "addDirectories", "directories": ["/tmp"], "destination": "session"}]})
    }

    #[test]
    fn a_permission_request_becomes_an_approval_with_its_place() {
        let (body, pending) = ask(&permission("Bash", json!({"command": "ls"}))).unwrap();
        assert_eq!(pending, Pending::Approval);
        assert_eq!(
            body,
            json!({"agent": "claude-code", "session_key": "claude-code:5b0c-11",
                "metadata": {"project": "/home/ada/shop"},
                "approval": {"tool_name": "Bash", "input": {"command": "ls"},
                    "suggestions": [{"type": "addDirectories", "directories": ["/tmp"], "destination": "session"}],
                    "project": "/home/ada/shop", "session": "5b0c-11"}})
        );
    }

    #[test]
    fn claude_codes_own_question_becomes_a_question_and_its_answer_the_updated_input() {
        let input = json!({"questions": [{"question": "Which color?", "header": "Color", "multiSelect": false,
            "options": [{"label": "Red", "description": "r"}, {"label": "Blue", "description": "b"}]}]});
        let (body, pending) = ask(&permission(ASK_TOOL, input.clone())).unwrap();
        assert_eq!(body["questions"], input);
        assert_eq!(body["person_only"], true, "Claude Code asked the person: only they answer");
        assert!(body.get("approval").is_none());
        let view = view(json!({"status": "answered", "result": {"outcome": "answered", "questions": [],
            "answers": {"Which color?": "Blue"}, "annotations": {"Which color?": {"notes": "darker"}}}}));
        let out = reply(&pending, &view).unwrap();
        let decision = &out["hookSpecificOutput"]["decision"];
        assert_eq!(decision["behavior"], "allow");
        assert_eq!(decision["updatedInput"]["questions"], input["questions"]);
        assert_eq!(decision["updatedInput"]["answers"], json!({"Which color?": "Blue"}));
        assert_eq!(decision["updatedInput"]["annotations"]["Which color?"]["notes"], "darker");

        let mut pre = permission(ASK_TOOL, input);
        pre["hook_event_name"] = json!("PreToolUse");
        pre["permission_mode"] = json!("acceptEdits");
        let (_, pending) = ask(&pre).unwrap();
        let out = reply(&pending, &view).unwrap();
        assert_eq!(out["hookSpecificOutput"]["hookEventName"], "PreToolUse");
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "allow");
        assert_eq!(out["hookSpecificOutput"]["updatedInput"]["answers"]["Which color?"], "Blue");
    }

    #[test]
    fn its_own_question_declined_in_beckon_goes_back_unanswered_skipped_or_dismissed() {
        let input = json!({"questions": [{"question": "Which color?", "options": [{"label": "Red"}, {"label": "Blue"}]},
            {"question": "Which size?", "options": [{"label": "S"}, {"label": "L"}]}]});
        let (_, pending) = ask(&permission(ASK_TOOL, input.clone())).unwrap();
        let skipped = view(json!({"status": "declined", "answered_via": "window", "outcome": {"outcome": "declined"}}));
        let out = reply(&pending, &skipped).unwrap();
        let updated = &out["hookSpecificOutput"]["decision"]["updatedInput"];
        assert_eq!(out["hookSpecificOutput"]["decision"]["behavior"], "allow");
        assert_eq!(updated["questions"], input["questions"]);
        assert_eq!(
            updated["annotations"],
            json!({"Which color?": {"unanswered": "skipped"}, "Which size?": {"unanswered": "skipped"}})
        );
        assert!(updated["answers"]["Which size?"].as_str().unwrap().contains("skipped"), "{updated}");

        let dismissed = view(json!({"status": "declined", "answered_via": "slack",
            "outcome": {"outcome": "declined", "reason": " ask Bob "}}));
        let updated = reply(&pending, &dismissed).unwrap()["hookSpecificOutput"]["decision"]["updatedInput"].clone();
        assert_eq!(updated["annotations"]["Which color?"], json!({"unanswered": "dismissed"}));
        let text = updated["answers"]["Which color?"].as_str().unwrap();
        assert!(text.contains("dismissed") && text.ends_with("Their reason: ask Bob"), "{text}");

        for status in [QuestionStatus::Expired, QuestionStatus::Cancelled] {
            let view = view(json!({"status": status}));
            assert_eq!(reply(&pending, &view), None, "{status}: Claude Code's dialog decides");
        }
    }

    #[test]
    fn only_an_answer_speaks_and_other_events_are_left_to_claude_code() {
        let (_, pending) = ask(&permission("Bash", json!({"command": "ls"}))).unwrap();
        for status in
            [QuestionStatus::Declined, QuestionStatus::Expired, QuestionStatus::Cancelled, QuestionStatus::Pending]
        {
            assert_eq!(reply(&pending, &view(json!({"status": status}))), None, "{status}");
        }
        let allowed =
            view(json!({"status": "answered", "decision": {"behavior": "allow", "updatedInput": {"command": "ls"}}}));
        assert_eq!(
            reply(&pending, &allowed).unwrap(),
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow", "updatedInput": {"command": "ls"}}}})
        );
        let mut pre_default = permission(ASK_TOOL, json!({"questions": []}));
        pre_default["hook_event_name"] = json!("PreToolUse");
        assert_eq!(ask(&pre_default), None, "the PermissionRequest asks in the default mode");
        let mut pre_bash = permission("Bash", json!({}));
        pre_bash["hook_event_name"] = json!("PreToolUse");
        assert_eq!(ask(&pre_bash), None);
        assert_eq!(ask(&json!({"hook_event_name": "Stop"})), None);
        assert_eq!(ask(&json!([])), None);
    }

    #[test]
    fn an_odd_session_id_does_not_group() {
        let mut event = permission("Bash", json!({}));
        event["session_id"] = json!("a b");
        let (body, _) = ask(&event).unwrap();
        assert!(body.get("session_key").is_none());
    }

    #[test]
    fn a_call_that_went_on_settles_only_its_own_pending_question() {
        let (body, _) = ask(&permission("Bash", json!({"command": "ls"}))).unwrap();
        let approval = crate::testing::approval(AGENT, &body["approval"]);
        let ran = json!({"session_id": "5b0c-11", "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"});
        assert!(is_settled_elsewhere(&ran) && settles(&ran, &approval));
        let other_call = json!({"session_id": "5b0c-11", "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": "pwd"}});
        assert!(!settles(&other_call, &approval));
        let other_session = json!({"session_id": "9", "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": "ls"}});
        assert!(!settles(&other_session, &approval));
        let asked = view(json!({"agent": "claude-code", "input": {"questions": [{"question": "Which color?",
            "options": [{"label": "Red"}, {"label": "Blue"}]}]}}));
        let answered = json!({"hook_event_name": "PostToolUse", "tool_name": "AskUserQuestion",
            "tool_input": {"questions": [{"question": "Which color?", "options": []}]}});
        assert!(settles(&answered, &asked));
        assert!(!settles(&answered, &QuestionView { agent: "cli".into(), ..asked }));
        assert!(!is_settled_elsewhere(&json!({"hook_event_name": "Stop"})));
    }
}
