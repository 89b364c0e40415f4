//! `/v1/sessions/{id}`: status and result, answering its latest question, cancelling.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use beckon_core::SessionId;
use serde_json::{Value, json};

use crate::body::{self, Fields};
use crate::error::{ApiError, ApiResult};
use crate::questions::{answer_with, parse_id};
use crate::state::Shared;
use crate::views;

fn parse_session(text: &str) -> ApiResult<SessionId> {
    SessionId::parse(text).map_err(|err| ApiError::new(StatusCode::NOT_FOUND, "not_found", err.to_string()))
}

/// `GET /v1/sessions/{id}`.
pub async fn get(State(shared): State<Arc<Shared>>, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    let view = shared.beckon.session(parse_session(&id)?).await?;
    Ok(Json(views::session(&shared.url, &view)))
}

/// `POST /v1/sessions/{id}/answer` with `question_id` (an id, or `"latest"`, the default) and
/// `answer` or `answers`.
pub async fn answer(State(shared): State<Arc<Shared>>, Path(id): Path<String>, bytes: Bytes) -> ApiResult<Json<Value>> {
    let session = parse_session(&id)?;
    let mut fields = Fields::new(body::object(&bytes)?, &["question_id", "answer", "answers"]);
    let question = fields.string("question_id");
    let request_id = match question.as_deref() {
        None | Some("latest") => {
            let view = shared.beckon.session(session).await?;
            match view.pending.or_else(|| view.questions.last().cloned()) {
                Some(question) => question.id,
                None => {
                    return Err(ApiError::new(
                        StatusCode::NOT_FOUND,
                        "not_found",
                        "this session has asked no question",
                    ));
                }
            }
        }
        Some(id) => {
            let id = parse_id(id)?;
            let question = shared.beckon.question(id).await?;
            if question.session_id != session {
                return Err(ApiError::new(
                    StatusCode::NOT_FOUND,
                    "not_found",
                    format!("question {id} is not in session {session}"),
                ));
            }
            id
        }
    };
    answer_with(&shared, request_id, fields).await
}

/// `POST /v1/sessions/{id}/cancel`.
pub async fn cancel(State(shared): State<Arc<Shared>>, Path(id): Path<String>, bytes: Bytes) -> ApiResult<Json<Value>> {
    let session = parse_session(&id)?;
    let mut fields = Fields::new(body::object(&bytes)?, &["reason"]);
    let reason = fields.string("reason");
    fields.finish()?;
    shared.beckon.cancel(session, reason).await?;
    let view = shared.beckon.session(session).await?;
    Ok(Json(views::session(&shared.url, &view)))
}

/// `POST /v1/agents/{name}/trigger`: starts a session of a configured agent with the body as
/// its webhook payload. 202 with the session's id and status URL.
pub async fn trigger(
    State(shared): State<Arc<Shared>>,
    Path(agent): Path<String>,
    bytes: Bytes,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let payload: Value = if bytes.iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else {
        serde_json::from_slice(&bytes)
            .map_err(|err| ApiError::bad_request(format!("the payload is not valid JSON: {err}")))?
    };
    let session = shared.beckon.trigger(&agent, payload).await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({"session_id": session, "status_url": format!("{}/v1/sessions/{session}", shared.url)})),
    ))
}
