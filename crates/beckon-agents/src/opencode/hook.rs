//! OpenCode's prompt events as Beckon questions, and the person's answers as the bodies the
//! plugin posts back to OpenCode. Pure: `beckon hook opencode` reads the event, talks to Beckon
//! and prints.
//!
//! The event is OpenCode's bus event as its plugins see it (`{type, properties}`), with the
//! plugin's `directory` added:
//!
//! - `permission.asked` (`permission`, `patterns`, `metadata`, `always`) → an approval; allowing
//!   replies `{"reply": "once"}` (`"always"` for "Allow always", offered when OpenCode names
//!   patterns to remember), denying `{"reply": "reject"}` with the person's comment as the
//!   `message` the model reads (without one, OpenCode stops the turn, as its own reject does).
//! - `question.asked` (OpenCode's question tool; Claude Code's AskUserQuestion shape) → a
//!   question only the person answers; the answer replies `{"answers": [["label"], …]}`, one
//!   list of labels (or the person's own text) per question.
//!
//! Anything else, a question Beckon refuses, or an outcome other than an answer yields no
//! output, and OpenCode's own prompt decides.

use beckon_api::QuestionStatus;
use beckon_api::views::QuestionView;
use beckon_core::{Answer, Outcome, PermissionDecision};
use serde_json::{Map, Value, json};

/// Who asks, as Beckon's inbox shows it.
pub const AGENT: &str = "opencode";
/// Who the approval names as asking.
const BY: &str = "OpenCode";
/// Longest session id used in a grouping key.
const SESSION_KEY_MAX: usize = 150;
/// Longest header Beckon takes, in characters (OpenCode allows 30).
const HEADER_MAX_CHARS: usize = 12;

/// Which prompt is being answered, and so how the answer is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pending {
    /// A permission request.
    Permission,
    /// OpenCode's own question tool.
    Question,
}

/// What to put to the person for `event`: the body of `POST /v1/questions` and how to write
/// the answer, or `None` when this event is not one Beckon answers.
pub fn ask(event: &Value) -> Option<(Value, Pending)> {
    let kind = event.get("type")?.as_str()?;
    let properties = event.get("properties")?.as_object()?;
    let session = properties.get("sessionID").and_then(Value::as_str);
    let project = event.get("directory").and_then(Value::as_str).filter(|d| !d.is_empty());
    let mut body = json!({"agent": AGENT});
    if let Some(key) = session.and_then(session_key) {
        body["session_key"] = Value::String(key);
    }
    if let Some(project) = project {
        body["metadata"] = json!({"project": project});
    }
    match kind {
        "permission.asked" => {
            body["approval"] = approval(properties, project, session)?;
            Some((body, Pending::Permission))
        }
        "question.asked" => {
            let questions: Vec<Value> =
                properties.get("questions")?.as_array()?.iter().map(question).collect::<Option<_>>()?;
            body["questions"] = Value::Array(questions);
            // OpenCode asked the person: the agent waiting on it must not answer it itself.
            body["person_only"] = Value::Bool(true);
            Some((body, Pending::Question))
        }
        _ => None,
    }
}

/// The approval for a `permission.asked` event's properties: the permission as the tool, its
/// metadata (the command, a file) and patterns as the input.
fn approval(properties: &Map<String, Value>, project: Option<&str>, session: Option<&str>) -> Option<Value> {
    let tool = properties.get("permission")?.as_str()?;
    let mut input = properties.get("metadata").and_then(Value::as_object).cloned().unwrap_or_default();
    if let Some(patterns) = properties.get("patterns").filter(|p| p.is_array()) {
        input.insert("patterns".into(), patterns.clone());
    }
    let mut approval = json!({"tool_name": tool, "input": input, "by": BY});
    let always: Vec<&str> =
        properties.get("always").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    if !always.is_empty() {
        let rules: Vec<Value> =
            always.iter().map(|pattern| json!({"toolName": tool, "ruleContent": pattern})).collect();
        approval["suggestions"] = json!([{"type": "addRules", "rules": rules, "behavior": "allow"}]);
    }
    if let Some(project) = project {
        approval["project"] = json!(project);
    }
    if let Some(session) = session {
        approval["session"] = json!(session);
    }
    Some(approval)
}

/// One of OpenCode's questions as Beckon takes it: the same fields, `multiple` as
/// `multiSelect`, and the header cut to Beckon's length.
fn question(item: &Value) -> Option<Value> {
    let text = item.get("question")?.as_str()?;
    let options: Vec<Value> = item
        .get("options")?
        .as_array()?
        .iter()
        .map(|option| {
            let label = option.get("label")?.as_str()?;
            Some(match option.get("description").and_then(Value::as_str).filter(|d| !d.trim().is_empty()) {
                Some(description) => json!({"label": label, "description": description}),
                None => json!({"label": label}),
            })
        })
        .collect::<Option<_>>()?;
    let mut question = json!({"question": text, "options": options,
        "multiSelect": item.get("multiple").and_then(Value::as_bool).unwrap_or(false)});
    if let Some(header) = item.get("header").and_then(Value::as_str).filter(|h| !h.trim().is_empty()) {
        question["header"] = Value::String(short(header, HEADER_MAX_CHARS));
    }
    Some(question)
}

/// The body the plugin posts to OpenCode for a resolved question `view` (as
/// `GET /v1/questions/{id}` returns it), or `None` when OpenCode should decide itself
/// (declined, expired, withdrawn).
pub fn reply(pending: Pending, view: &QuestionView) -> Option<Value> {
    if view.status != QuestionStatus::Answered {
        return None;
    }
    let answers = match view.outcome.as_ref()? {
        Outcome::Answered { answers } => answers.items(),
        Outcome::Declined { .. } | Outcome::Expired { .. } | Outcome::Cancelled { .. } => return None,
    };
    match pending {
        Pending::Permission => match view.decision.as_ref()? {
            PermissionDecision::Allow { updated_permissions, .. } => {
                let always = !updated_permissions.is_empty();
                Some(json!({"reply": if always { "always" } else { "once" }}))
            }
            PermissionDecision::Deny { message } => {
                // Only a comment the person wrote goes to the model; without one OpenCode
                // stops, as when its own prompt is rejected.
                match answers.first().and_then(|answer| answer.comment.as_ref()) {
                    Some(_) => Some(json!({"reply": "reject", "message": message})),
                    None => Some(json!({"reply": "reject"})),
                }
            }
        },
        Pending::Question => {
            let labels: Vec<Value> = answers.iter().map(labels).collect();
            Some(json!({"answers": labels}))
        }
    }
}

/// One answer as OpenCode takes it: the chosen labels, then the person's own text.
fn labels(answer: &Answer) -> Value {
    let mut labels: Vec<Value> = answer.selected.iter().cloned().map(Value::String).collect();
    let typed = answer.other.as_deref().or_else(|| answer.value.as_ref().and_then(Value::as_str));
    if let Some(text) = typed {
        labels.push(Value::String(text.to_owned()));
    }
    Value::Array(labels)
}

/// Groups one OpenCode session's prompts into one Beckon session.
fn session_key(id: &str) -> Option<String> {
    let fits = !id.is_empty()
        && id.len() <= SESSION_KEY_MAX
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    fits.then(|| format!("{AGENT}:{id}"))
}

/// The first `max` characters of `text`, with an ellipsis when cut.
fn short(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut head: String = text.chars().take(max.saturating_sub(1)).collect();
    head.push('…');
    head
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::view;

    /// OpenCode's `permission.asked`, as captured from the real server, as the plugin sends it.
    fn permission_asked() -> Value {
        json!({"id": "evt_2145fae91002V633NkOV7Xq3IC", "type": "permission.asked", "properties": {
            "id": "per_2145fae91001prNH1Xz9TRtHMp", "sessionID": "ses_deba056afffe7MH6nA3Iecgmgv",
            "permission": "bash", "patterns": ["echo OC_MARKER_14783 > marker.txt", "echo ran-ok"],
            "metadata": {"command": "echo OC_MARKER_14783 > marker.txt && echo ran-ok"},
            "always": ["echo *"],
            "tool": {"messageID": "msg_2145fabcb0014lmip2ZDXHZHjR", "callID": "call_000001_0"}},
            "directory": "/home/ada/shop"})
    }

    /// OpenCode's `question.asked`, as captured from the real server, as the plugin sends it.
    fn question_asked() -> Value {
        json!({"id": "evt_2145fe8e4002SROE827mSWThYq", "type": "question.asked", "properties": {
            "id": "que_2145fe8e4001qJ2c1jflPoJ27s", "sessionID": "ses_deba01c4fffehXiR9GKYTNxroi",
            "questions": [{"question": "Which color should I use?", "header": "Color",
                "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}],
            "tool": {"messageID": "msg_2145fe635001kT0hjKsoHI3ljk", "callID": "call_000001_0"}},
            "directory": "/home/ada/shop"})
    }

    fn answered_approval(behavior: Value, answer: Value) -> QuestionView {
        view(json!({"status": "answered", "outcome": {"outcome": "answered", "answers": [answer]},
            "decision": behavior}))
    }

    #[test]
    fn a_permission_becomes_an_approval_by_opencode_with_its_command_and_place() {
        let (body, pending) = ask(&permission_asked()).unwrap();
        assert_eq!(pending, Pending::Permission);
        assert_eq!(
            body,
            json!({"agent": "opencode", "session_key": "opencode:ses_deba056afffe7MH6nA3Iecgmgv",
                "metadata": {"project": "/home/ada/shop"},
                "approval": {"tool_name": "bash", "by": "OpenCode",
                    "input": {"command": "echo OC_MARKER_14783 > marker.txt && echo ran-ok",
                        "patterns": ["echo OC_MARKER_14783 > marker.txt", "echo ran-ok"]},
                    "suggestions": [{"type": "addRules", "rules": [{"toolName": "bash", "ruleContent": "echo *"}],
                        "behavior": "allow"}],
                    "project": "/home/ada/shop", "session": "ses_deba056afffe7MH6nA3Iecgmgv"}})
        );
        let mut nowhere = permission_asked();
        nowhere.as_object_mut().unwrap().remove("directory");
        nowhere["properties"]["always"] = json!([]);
        let (body, _) = ask(&nowhere).unwrap();
        assert!(body.get("metadata").is_none() && body["approval"].get("project").is_none());
        assert!(body["approval"].get("suggestions").is_none(), "nothing to remember: no Allow always");
    }

    #[test]
    fn allowing_replies_once_or_always_and_denying_rejects_with_the_persons_words() {
        let allow = json!({"behavior": "allow", "updatedInput": {}});
        assert_eq!(
            reply(Pending::Permission, &answered_approval(allow, json!({"selected": ["Allow"]}))),
            Some(json!({"reply": "once"}))
        );
        let always = json!({"behavior": "allow", "updatedInput": {}, "updatedPermissions": [{"type": "addRules"}]});
        assert_eq!(
            reply(Pending::Permission, &answered_approval(always, json!({"selected": ["Allow always"]}))),
            Some(json!({"reply": "always"}))
        );
        let deny = json!({"behavior": "deny", "message": "Use the test folder"});
        assert_eq!(
            reply(
                Pending::Permission,
                &answered_approval(deny, json!({"selected": ["Deny"], "comment": "Use the test folder"}))
            ),
            Some(json!({"reply": "reject", "message": "Use the test folder"}))
        );
        let plain_deny = json!({"behavior": "deny", "message": "The person denied this tool call."});
        assert_eq!(
            reply(Pending::Permission, &answered_approval(plain_deny, json!({"selected": ["Deny"]}))),
            Some(json!({"reply": "reject"}))
        );
    }

    #[test]
    fn opencodes_question_becomes_a_question_for_the_person_and_its_answer_the_labels() {
        let (body, pending) = ask(&question_asked()).unwrap();
        assert_eq!(pending, Pending::Question);
        assert_eq!(
            body,
            json!({"agent": "opencode", "session_key": "opencode:ses_deba01c4fffehXiR9GKYTNxroi",
                "metadata": {"project": "/home/ada/shop"}, "person_only": true,
                "questions": [{"question": "Which color should I use?", "header": "Color", "multiSelect": false,
                    "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}]})
        );
        let view = view(json!({"status": "answered", "outcome": {"outcome": "answered",
            "answers": [{"selected": ["Blue"]}, {"selected": ["A", "B"]}, {"other": "Teal, please"}]}}));
        assert_eq!(reply(pending, &view), Some(json!({"answers": [["Blue"], ["A", "B"], ["Teal, please"]]})));
    }

    #[test]
    fn a_long_header_is_cut_and_multiple_is_multi_select() {
        let mut event = question_asked();
        event["properties"]["questions"][0]["header"] = json!("Which colour scheme");
        event["properties"]["questions"][0]["multiple"] = json!(true);
        let (body, _) = ask(&event).unwrap();
        assert_eq!(body["questions"][0]["header"], "Which colou…");
        assert_eq!(body["questions"][0]["multiSelect"], true);
    }

    #[test]
    fn only_an_answer_speaks_and_other_events_are_left_to_opencode() {
        for status in
            [QuestionStatus::Declined, QuestionStatus::Expired, QuestionStatus::Cancelled, QuestionStatus::Pending]
        {
            let outcome = (!matches!(status, QuestionStatus::Pending)).then(|| json!({"outcome": status}));
            let view = view(json!({"status": status, "outcome": outcome}));
            assert_eq!(reply(Pending::Permission, &view), None, "{status}");
            assert_eq!(reply(Pending::Question, &view), None, "{status}");
        }
        for other in ["permission.replied", "question.replied", "session.idle"] {
            let mut event = permission_asked();
            event["type"] = json!(other);
            assert_eq!(ask(&event), None, "{other}");
        }
        assert_eq!(ask(&json!([])), None);
        let mut odd = permission_asked();
        odd["properties"]["sessionID"] = json!("a b");
        assert!(ask(&odd).unwrap().0.get("session_key").is_none(), "an odd session id does not group");
    }
}
