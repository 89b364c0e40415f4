//! Claude Code's hook input as `beckon hook claude-code` reads it: the bytes before the first
//! NUL, read as the JSON event on the hook's stdin, go through `hook::ask`,
//! `hook::is_settled_elsewhere` and `waiting::notice_change`; the bytes after it, read as the
//! question's view Beckon sends back (`GET /v1/questions/{id}`), go through `hook::reply` for
//! what was asked, and through `hook::settles` as a pending question.
//!
//! Invariants: what is asked is a body the HTTP API reads, by `claude-code`, grouped only by a
//! fit session key; Claude Code's own question is asked whole, for the person only, from the
//! event that carried it; a form asks 1 to 4 questions, one per field, with short texts and
//! headers; a reply comes only for an answered or declined view and answers the event that
//! asked, keeping Claude Code's question input and marking each question it leaves
//! unanswered; only Claude Code's own pending questions are settled; a notice it posts is one
//! Beckon takes.

#![no_main]

mod hook_checks;

use beckon_agents::claude_code::hook::{self, AGENT, Pending};
use beckon_agents::claude_code::waiting;
use hook_checks::{check_asked, check_notice, split, view};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// The most fields of a form Beckon asks.
const FORM_MAX_FIELDS: usize = 4;
/// The longest question text made from a form, and the longest header, in characters.
const FORM_TEXT_MAX_CHARS: usize = 1000;
const HEADER_MAX_CHARS: usize = 12;

fuzz_target!(|bytes: &[u8]| {
    let Some((event, rest)) = split(bytes) else { return };
    let view = view(rest);
    if let Some(change) = waiting::notice_change(&event) {
        check_notice(&change, AGENT);
    }
    let settled = hook::is_settled_elsewhere(&event);
    if let Some((json, view)) = &view
        && hook::settles(&event, view)
    {
        assert_eq!(json["agent"], AGENT, "settles another agent's question");
    }
    let Some((body, pending)) = hook::ask(&event) else { return };
    assert!(!settled, "an event both asks and says the call went on");
    check_asked(&body, AGENT);
    check_pending(&event, &body, &pending);
    if let Some((json, view)) = &view
        && let Some(output) = hook::reply(&pending, view)
    {
        check_reply(&pending, json, &output);
    }
});

fn check_pending(event: &Value, body: &Value, pending: &Pending) {
    let name = event["hook_event_name"].as_str().expect("asked for an event without a name");
    match pending {
        Pending::Approval => {
            assert_eq!(name, "PermissionRequest");
            assert_eq!(body["approval"]["tool_name"], event["tool_name"]);
            assert!(body.get("questions").is_none(), "{body}");
        }
        Pending::Question { event: asked, input } => {
            assert_eq!(*asked, name, "answers another event than asked");
            assert_eq!(event["tool_name"], "AskUserQuestion");
            if *asked == "PreToolUse" {
                assert_ne!(event["permission_mode"], "default", "held Claude Code's own dialog back");
            }
            let given = event.get("tool_input").filter(|input| input.is_object());
            assert_eq!(given.cloned().unwrap_or_else(|| serde_json::json!({})), Value::Object(input.clone()));
            assert_eq!(body["questions"], Value::Object(input.clone()), "not asked whole");
            assert_eq!(body["person_only"], true);
        }
        Pending::Form { names } => {
            assert_eq!(name, "Elicitation");
            assert!((1..=FORM_MAX_FIELDS).contains(&names.len()), "{} fields", names.len());
            let questions = body["questions"]["questions"].as_array().expect("a form's questions");
            assert_eq!(questions.len(), names.len());
            for question in questions {
                let text = question["question"].as_str().expect("a question's text");
                assert!(text.chars().count() <= FORM_TEXT_MAX_CHARS, "{} characters", text.chars().count());
                let header = question["header"].as_str().expect("a question's header");
                assert!(header.chars().count() <= HEADER_MAX_CHARS, "header {header:?}");
            }
            assert_eq!(body["person_only"], true);
        }
    }
}

fn check_reply(pending: &Pending, view: &Value, output: &Value) {
    let status = view["status"].as_str().expect("a reply to a view without a status");
    assert!(matches!(status, "answered" | "declined"), "a reply to a {status} question");
    let said = &output["hookSpecificOutput"];
    match pending {
        Pending::Approval => {
            assert_eq!(status, "answered", "a declined approval is Claude Code's to decide");
            assert_eq!(said["hookEventName"], "PermissionRequest");
            assert_eq!(said["decision"], view["decision"]);
        }
        Pending::Form { names } => {
            assert_eq!(said["hookEventName"], "Elicitation");
            match status {
                "declined" => assert_eq!(said["action"], "decline"),
                _ => {
                    assert_eq!(said["action"], "accept");
                    let content = said["content"].as_object().expect("a form's content");
                    assert_eq!(content.len(), names.len(), "{content:?}");
                    assert!(names.iter().all(|name| content.contains_key(name)), "{content:?}");
                }
            }
        }
        Pending::Question { event, input } => {
            assert_eq!(said["hookEventName"], *event);
            let updated = match *event {
                "PreToolUse" => &said["updatedInput"],
                _ => &said["decision"]["updatedInput"],
            };
            let updated = updated.as_object().expect("the updated input");
            for (key, value) in input {
                if key != "answers" && key != "annotations" {
                    assert_eq!(updated.get(key), Some(value), "the input's {key:?} changed");
                }
            }
            if status == "declined" {
                let answers = updated["answers"].as_object().expect("answers");
                let annotations = updated["annotations"].as_object().expect("annotations");
                assert_eq!(answers.len(), annotations.len());
                for (question, mark) in annotations {
                    assert!(answers[question].is_string(), "no text for {question:?}");
                    assert!(matches!(mark["unanswered"].as_str(), Some("skipped" | "dismissed")), "{mark}");
                }
            } else {
                assert_eq!(updated.get("answers"), view["result"].get("answers"));
            }
        }
    }
}
