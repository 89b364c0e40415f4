//! What the agents' hook targets share: the input read as a hook's event and the view Beckon
//! sends back, and the bodies a hook sends Beckon read back as Beckon reads them. Each target
//! uses some of these.
#![allow(dead_code)]

use beckon_agents::notice::NoticeChange;
use beckon_api::views::QuestionView;
use beckon_core::{Approval, Notice, QuestionRequest};
use beckon_gateway::bodies;
use serde_json::{Value, json};

/// The longest agent session id a grouping key is made from.
const SESSION_ID_MAX_BYTES: usize = 150;

/// The hook's event, read from the bytes before the first NUL as the hook reads its stdin, and
/// the bytes after that NUL; `None` when the event is not JSON (the hook stops there).
pub fn split(bytes: &[u8]) -> Option<(Value, Option<&[u8]>)> {
    let (event, rest) = match bytes.iter().position(|&b| b == 0) {
        Some(nul) => (&bytes[..nul], Some(&bytes[nul + 1..])),
        None => (bytes, None),
    };
    Some((serde_json::from_slice(event).ok()?, rest))
}

/// A question's view as Beckon's client reads it from `GET /v1/questions/{id}`, from the bytes
/// after the NUL: their fields over a pending question's, and an approval in their `input` as
/// the gateway stores it (with the question it puts). Given as JSON, for the checks, and typed,
/// as the hooks take it; `None` when it is not a view (the client refuses such a reply as
/// unreadable, so no hook sees it).
pub fn view(rest: Option<&[u8]>) -> Option<(Value, QuestionView)> {
    let given: Value = serde_json::from_slice(rest?).ok()?;
    let id = "0190f1d2-0000-7000-8000-00000000beef";
    let mut json = json!({"request_id": id, "session_id": "0190f1d2-0000-7000-8000-00000000cafe",
        "agent": "claude-code", "origin": "claude-code", "status": "pending",
        "input": {"questions": [{"question": "Deploy?", "options": [{"label": "Yes"}, {"label": "No"}]}]},
        "created_at": 1_000, "answer_url": format!("http://127.0.0.1:7393/v1/questions/{id}/answer"),
        "deep_link": format!("beckon://question/{id}")});
    for (key, value) in given.as_object()? {
        json[key] = value.clone();
    }
    if let Some(approval) = given["input"].get("approval") {
        let approval = Approval::parse(approval, "approval").ok()?;
        json["input"] = serde_json::to_value(QuestionRequest::for_approval(approval)).ok()?;
    }
    let typed = serde_json::from_value(json.clone()).ok()?;
    Some((json, typed))
}

/// Checks `key` groups one session of `agent`: `<agent>:<id>`, the id 1 to 150 letters,
/// digits, `-`, `_` or `.` (it goes into a URL path).
pub fn check_key(key: &str, agent: &str) {
    let id = key.strip_prefix(agent).and_then(|rest| rest.strip_prefix(':'));
    let Some(id) = id else { panic!("key {key:?} is not {agent}'s") };
    assert!(!id.is_empty() && id.len() <= SESSION_ID_MAX_BYTES, "key {key:?}");
    assert!(id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')), "key {key:?}");
}

/// Checks a body a hook posts to `POST /v1/questions` for `agent`: asked by `agent`, grouped
/// by a fit key, and read by the HTTP API as the question or approval it carries. It may break
/// a rule only in what the agent sent (a question Beckon refuses: a 422, and the agent's own
/// prompt decides), never be unreadable.
pub fn check_asked(body: &Value, agent: &str) {
    assert_eq!(body["agent"], agent, "{body}");
    if let Some(key) = body.get("session_key") {
        check_key(key.as_str().expect("a session key is a string"), agent);
    }
    let bytes = serde_json::to_vec(body).expect("a body serialises");
    match bodies::ask(&bytes) {
        Ok(ask) => {
            assert_eq!(ask.agent, agent);
            assert!(ask.request.is_some(), "accepted without a question: {body}");
            assert_eq!(ask.external_key.as_deref(), body.get("session_key").and_then(Value::as_str));
        }
        Err(err) => {
            let status = err.status().as_u16();
            assert_eq!(status, 422, "{}: {body}", err.body().message);
            assert!(!err.body().problems.is_empty(), "a 422 without problems");
        }
    }
}

/// Checks a notice change a hook sends for `agent`: its key groups one session, and a notice it
/// posts is one the HTTP API reads and Beckon takes (`PUT /v1/notices/{key}`), so the person is
/// told.
pub fn check_notice(change: &NoticeChange, agent: &str) {
    match change {
        NoticeChange::Clear { key } => check_key(key, agent),
        NoticeChange::Post { key, body } => {
            check_key(key, agent);
            let bytes = serde_json::to_vec(body).expect("a body serialises");
            let read = match bodies::notice(&bytes) {
                Ok(read) => read,
                Err(err) => panic!("the API refuses the notice {body}: {}", err.body().message),
            };
            assert_eq!(read.agent, agent);
            if let Err(problems) = Notice::new(key, read.agent, read.message, read.project, 0) {
                panic!("Beckon refuses the notice {body}: {problems}");
            }
        }
    }
}
