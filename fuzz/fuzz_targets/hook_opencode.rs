//! OpenCode's prompt events as `beckon hook opencode` reads them (the plugin's bus event with
//! its `directory`): the bytes before the first NUL, read as the JSON event on the hook's
//! stdin, go through `hook::ask`; the bytes after it, read as the question's view Beckon sends
//! back (`GET /v1/questions/{id}`), go through `hook::reply` for what was asked.
//!
//! Invariants: what is asked is a body the HTTP API reads, by `opencode`, grouped only by a fit
//! session key; a permission is an approval of the permission the event names, offering "Allow
//! always" only when OpenCode names patterns to remember; OpenCode's own question is asked for
//! the person only, one question per question it asked, with short headers; a reply comes only
//! for an answered view and is a reply OpenCode takes: `once`, `always` or `reject` for a
//! permission, one list of texts per answer for a question.

#![no_main]

mod hook_checks;

use beckon_agents::opencode::hook::{self, AGENT, Pending};
use hook_checks::{check_asked, split, view};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// The longest header Beckon takes, in characters.
const HEADER_MAX_CHARS: usize = 12;

fuzz_target!(|bytes: &[u8]| {
    let Some((event, rest)) = split(bytes) else { return };
    let Some((body, pending)) = hook::ask(&event) else { return };
    check_asked(&body, AGENT);
    let properties = &event["properties"];
    match pending {
        Pending::Permission => {
            assert_eq!(event["type"], "permission.asked");
            let approval = &body["approval"];
            assert_eq!(approval["tool_name"], properties["permission"]);
            assert_eq!(approval["by"], "OpenCode");
            let remembers = properties["always"].as_array().is_some_and(|always| always.iter().any(Value::is_string));
            assert_eq!(approval.get("suggestions").is_some(), remembers, "{approval}");
        }
        Pending::Question => {
            assert_eq!(event["type"], "question.asked");
            let asked = body["questions"].as_array().expect("questions");
            assert_eq!(Some(asked.len()), properties["questions"].as_array().map(Vec::len));
            for question in asked {
                if let Some(header) = question.get("header") {
                    let header = header.as_str().expect("a header is text");
                    assert!(header.chars().count() <= HEADER_MAX_CHARS, "header {header:?}");
                }
            }
            assert_eq!(body["person_only"], true);
        }
    }
    if let Some((json, view)) = view(rest)
        && let Some(reply) = hook::reply(pending, &view)
    {
        check_reply(pending, &json, &reply);
    }
});

fn check_reply(pending: Pending, view: &Value, reply: &Value) {
    assert_eq!(view["status"], "answered", "a reply to a view that is not answered");
    match pending {
        Pending::Permission => {
            let said = reply["reply"].as_str().expect("a permission's reply");
            assert!(matches!(said, "once" | "always" | "reject"), "reply {said:?}");
            if let Some(message) = reply.get("message") {
                assert_eq!(said, "reject", "a message with {said:?}");
                assert!(message.is_string());
            }
        }
        Pending::Question => {
            let answers = reply["answers"].as_array().expect("a question's answers");
            assert_eq!(Some(answers.len()), view["outcome"]["answers"].as_array().map(Vec::len));
            for texts in answers {
                let texts = texts.as_array().expect("one list per answer");
                assert!(texts.iter().all(Value::is_string), "{texts:?}");
            }
        }
    }
}
