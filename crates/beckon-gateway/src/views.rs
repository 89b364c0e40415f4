//! What the HTTP API returns for questions and sessions, in the shape the client asked for.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use beckon_api::views::{QuestionView, SessionReport};
use beckon_client::VERSION_HEADER;
use beckon_core::conversation::Message;
use beckon_core::{Outcome, render_tool_result};
use beckon_runtime::SessionView;
use beckon_store::{QuestionRecord, QuestionStatus};
use serde_json::Value;

use crate::error::ApiError;

/// The shape a question is read in. A question's input — the AskUserQuestion input as the
/// agent gave it: `questions` (the items), and `metadata`, `approval` or `person_only` when
/// given — is `input`. Clients written before it read the same object as `questions`, so a
/// request without `Beckon-Api-Version: 2` gets that name too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadShape {
    /// Version 1, for a request that names none: `input`, and the same object as `questions`.
    #[default]
    V1,
    /// Version 2: `input` only.
    V2,
}

impl<S: Send + Sync> FromRequestParts<S> for ReadShape {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        match parts.headers.get(VERSION_HEADER).map(|value| value.as_bytes()) {
            None | Some(b"1") => Ok(ReadShape::V1),
            Some(b"2") => Ok(ReadShape::V2),
            Some(_) => Err(ApiError::bad_request("the Beckon-Api-Version header must be 1 or 2")),
        }
    }
}

/// A question, with links and (once resolved) the result an agent would receive; an
/// answered approval also carries its `decision` (`{"behavior": "allow", "updatedInput"}` or
/// `{"behavior": "deny", "message"}`).
pub fn question(base_url: &str, record: &QuestionRecord, shape: ReadShape) -> QuestionView {
    let result = record.outcome.as_ref().map(|outcome| {
        serde_json::from_str::<Value>(&render_tool_result(&record.request, outcome).content).unwrap_or(Value::Null)
    });
    let decision = match (record.request.approval(), &record.outcome) {
        (Some(approval), Some(Outcome::Answered { answers })) => {
            answers.items().first().map(|answer| approval.decision(answer))
        }
        _ => None,
    };
    QuestionView {
        request_id: record.id,
        session_id: record.session_id,
        agent: record.agent.clone(),
        origin: record.origin.to_string(),
        status: record.status,
        input: record.request.clone(),
        outcome: record.outcome.clone(),
        answered_via: record.answered_via,
        answered_by: record.answered_by.clone(),
        asked_by: record.asked_by.clone(),
        result,
        decision,
        created_at: record.created_at_ms,
        resolved_at: record.resolved_at_ms,
        expires_at: record.expires_at_ms,
        answer_url: format!("{base_url}/v1/questions/{}/answer", record.id),
        deep_link: format!("beckon://question/{}", record.id),
        questions: (shape == ReadShape::V1).then(|| record.request.clone()),
        repeat: None,
    }
}

/// A session's status, its result so far, and the question it waits on.
pub fn session(base_url: &str, view: &SessionView, shape: ReadShape) -> SessionReport {
    let result = view.timeline.iter().rev().find_map(|entry| match &entry.message {
        Message::Assistant { text } if !text.trim().is_empty() => Some(text.clone()),
        _ => None,
    });
    let failure = match &view.session.state {
        beckon_core::conversation::State::Failed { reason } => Some(reason.clone()),
        _ => None,
    };
    SessionReport {
        id: view.session.id,
        agent: view.session.agent.clone(),
        origin: view.session.origin,
        title: view.session.title.clone(),
        status: view.session.status,
        failure,
        result,
        questions_asked: view.questions.len(),
        questions_answered: view.questions.iter().filter(|q| q.status == QuestionStatus::Answered).count(),
        pending_question: view.pending.as_ref().map(|q| question(base_url, q, shape)),
        created_at: view.session.created_at_ms,
        updated_at: view.session.updated_at_ms,
    }
}
