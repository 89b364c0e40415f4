//! Codex's hook input as `beckon hook codex` reads it: the bytes before the first NUL, read as
//! the JSON event on the hook's stdin, go through `hook::went_on` and `hook::ask`; the bytes
//! after it, read as the approval's view Beckon sends back (`GET /v1/questions/{id}`), go
//! through `hook::reply`, and through `hook::settles` as a pending approval of the session that
//! went on.
//!
//! Invariants: an event is either a permission request or a session going on, never both; an
//! approval asked is a body the HTTP API reads, by `codex`, of the tool the event names,
//! grouped only by a fit session key; only Beckon's own tools are allowed at once; a reply
//! comes only for an answered view and is Codex's allow or deny, a denial always with a
//! message; only Codex's approvals of that session are settled.

#![no_main]

mod hook_checks;

use beckon_agents::codex::hook::{self, AGENT, Asked};
use hook_checks::{check_asked, split, view};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|bytes: &[u8]| {
    let Some((event, rest)) = split(bytes) else { return };
    let view = view(rest);
    let went_on = hook::went_on(&event);
    if let (Some(session), Some((json, view))) = (went_on, &view)
        && hook::settles(session, view)
    {
        assert_eq!(json["agent"], AGENT, "settles another agent's approval");
        assert_eq!(json["input"]["approval"]["session"], session, "settles another session's approval");
    }
    let Some(asked) = hook::ask(&event) else { return };
    assert!(went_on.is_none(), "an event both asks and goes on");
    let tool = event["tool_name"].as_str().expect("asked without a tool");
    match asked {
        Asked::OwnTool => assert!(tool.starts_with("mcp__beckon__"), "{tool:?} allowed at once"),
        Asked::Approval(body) => {
            assert!(!tool.starts_with("mcp__beckon__"), "Beckon's own {tool:?} asked");
            assert_eq!(body["approval"]["tool_name"], tool);
            assert_eq!(body["approval"]["by"], "Codex");
            check_asked(&body, AGENT);
        }
    }
    if let Some((json, view)) = &view
        && let Some(output) = hook::reply(view)
    {
        check_reply(json, &output);
    }
});

fn check_reply(view: &Value, output: &Value) {
    assert_eq!(view["status"], "answered", "a reply to a view that is not answered");
    assert_eq!(output["hookSpecificOutput"]["hookEventName"], "PermissionRequest");
    let decision = &output["hookSpecificOutput"]["decision"];
    match decision["behavior"].as_str() {
        Some("allow") => assert_eq!(view["decision"]["behavior"], "allow"),
        Some("deny") => {
            assert_eq!(view["decision"]["behavior"], "deny");
            let message = decision["message"].as_str().expect("a denial's message");
            assert!(!message.trim().is_empty(), "a denial without a message");
        }
        other => panic!("a decision {other:?}"),
    }
}
