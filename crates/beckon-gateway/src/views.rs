//! What the HTTP API returns for questions and sessions.

use beckon_core::conversation::Message;
use beckon_core::{Outcome, render_tool_result};
use beckon_runtime::SessionView;
use beckon_store::{QuestionRecord, QuestionStatus};
use serde_json::{Value, json};

/// A question, with links and (once resolved) the result an agent would receive; an
/// answered approval also carries its `decision` (`{"behavior": "allow", "updatedInput"}` or
/// `{"behavior": "deny", "message"}`).
pub fn question(base_url: &str, record: &QuestionRecord) -> Value {
    let result = record.outcome.as_ref().map(|outcome| {
        serde_json::from_str::<Value>(&render_tool_result(&record.request, outcome).content).unwrap_or(Value::Null)
    });
    let decision = match (record.request.approval(), &record.outcome) {
        (Some(approval), Some(Outcome::Answered { answers })) => {
            answers.items().first().map(|answer| approval.decision(answer).to_value())
        }
        _ => None,
    };
    json!({
        "request_id": record.id,
        "session_id": record.session_id,
        "agent": record.agent,
        "origin": record.origin.to_string(),
        "status": record.status,
        "questions": record.request,
        "outcome": record.outcome,
        "answered_via": record.answered_via,
        "result": result,
        "decision": decision,
        "created_at": record.created_at_ms,
        "resolved_at": record.resolved_at_ms,
        "expires_at": record.expires_at_ms,
        "answer_url": format!("{base_url}/v1/questions/{}/answer", record.id),
        "deep_link": format!("beckon://question/{}", record.id),
    })
}

/// A session's status, its result so far, and the question it waits on.
pub fn session(base_url: &str, view: &SessionView) -> Value {
    let result = view.timeline.iter().rev().find_map(|entry| match &entry.message {
        Message::Assistant { text } if !text.trim().is_empty() => Some(text.clone()),
        _ => None,
    });
    let reason = match &view.session.state {
        beckon_core::conversation::State::Failed { reason } => Some(reason.clone()),
        _ => None,
    };
    json!({
        "id": view.session.id,
        "agent": view.session.agent,
        "origin": view.session.origin,
        "title": view.session.title,
        "status": view.session.status,
        "failure": reason,
        "result": result,
        "questions_asked": view.questions.len(),
        "questions_answered": view.questions.iter().filter(|q| q.status == QuestionStatus::Answered).count(),
        "pending_question": view.pending.as_ref().map(|q| question(base_url, q)),
        "created_at": view.session.created_at_ms,
        "updated_at": view.session.updated_at_ms,
    })
}
