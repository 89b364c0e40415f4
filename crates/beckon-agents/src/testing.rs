//! What the hooks' tests share: a question's view as the gateway would send it.

use beckon_api::views::QuestionView;
use beckon_core::{Approval, QuestionRequest};
use serde_json::{Value, json};

/// A question's view with `fields` over a pending question's: read from JSON, as a hook reads
/// the gateway's answer.
pub fn view(fields: Value) -> QuestionView {
    let id = "0190f1d2-0000-7000-8000-00000000beef";
    let mut view = json!({"request_id": id, "session_id": "0190f1d2-0000-7000-8000-00000000cafe",
        "agent": "claude-code", "origin": "claude-code", "status": "pending",
        "input": {"questions": [{"question": "Deploy?", "options": [{"label": "Yes"}, {"label": "No"}]}]},
        "created_at": 1_000, "answer_url": format!("http://127.0.0.1:7393/v1/questions/{id}/answer"),
        "deep_link": format!("beckon://question/{id}")});
    for (key, value) in fields.as_object().expect("the fields are an object") {
        view[key] = value.clone();
    }
    serde_json::from_value(view).expect("a question's view")
}

/// A pending approval's view: `agent` asks for the call in `approval` (as a hook's body holds
/// it), stored as the gateway stores it, with the question it puts.
pub fn approval(agent: &str, approval: &Value) -> QuestionView {
    let approval = Approval::parse(approval, "approval").expect("an approval");
    view(json!({"agent": agent, "input": QuestionRequest::for_approval(approval)}))
}
