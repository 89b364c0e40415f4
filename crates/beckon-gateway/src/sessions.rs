//! `/v1/sessions/{id}`: status and result, answering its latest question, cancelling.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::{Extension, Json};
use beckon_api::views::{QuestionView, SessionReport, SessionTriggered};
use beckon_core::{Problems, SessionId};
use beckon_runtime::api::ErrorKind;

use crate::bodies::{self, SessionQuestion};
use crate::error::{ApiError, ApiResult};
use crate::principal::Principal;
use crate::questions::answer_with;
use crate::state::Shared;
use crate::views::{self, ReadShape};

fn parse_session(text: &str) -> ApiResult<SessionId> {
    SessionId::parse(text).map_err(|err| ApiError::new(ErrorKind::NotFound, err.to_string()))
}

/// `GET /v1/sessions/{id}`.
pub async fn get(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    shape: ReadShape,
) -> ApiResult<Json<SessionReport>> {
    let view = shared.beckon.inbox().session(parse_session(&id)?).await?;
    Ok(Json(views::session(&shared.url, &view, shape)))
}

/// `POST /v1/sessions/{id}/answer` with `question_id` (an id, or `"latest"`, the default) and
/// `answer` or `answers`.
pub async fn answer(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<String>,
    shape: ReadShape,
    bytes: Bytes,
) -> ApiResult<Json<QuestionView>> {
    let session = parse_session(&id)?;
    let body = bodies::session_answer(&bytes)?;
    let request_id = match body.question {
        SessionQuestion::Latest => {
            let view = shared.beckon.inbox().session(session).await?;
            match view.pending.or_else(|| view.questions.last().cloned()) {
                Some(question) => question.id,
                None => {
                    return Err(ApiError::new(ErrorKind::NotFound, "this session has asked no question"));
                }
            }
        }
        SessionQuestion::Id(id) => {
            let question = shared.beckon.inbox().question(id).await?;
            if question.session_id != session {
                return Err(ApiError::new(ErrorKind::NotFound, format!("question {id} is not in session {session}")));
            }
            id
        }
    };
    answer_with(&shared, &principal, request_id, body.answers, shape).await
}

/// `POST /v1/sessions/{id}/cancel`.
pub async fn cancel(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<String>,
    shape: ReadShape,
    bytes: Bytes,
) -> ApiResult<Json<SessionReport>> {
    let session = parse_session(&id)?;
    refuse_members_cancelling(&principal)?;
    let reason = bodies::reason(&bytes)?;
    shared.beckon.cancel(session, reason).await?;
    let view = shared.beckon.inbox().session(session).await?;
    Ok(Json(views::session(&shared.url, &view, shape)))
}

/// `POST /v1/agents/{name}/trigger`: starts a session of a configured agent with the body as
/// its webhook payload. 202 with the session's id and status URL. With an `Idempotency-Key`
/// header, a delivery sent again returns the session the first one started (`"repeat": true`).
pub async fn trigger(
    State(shared): State<Arc<Shared>>,
    Path(agent): Path<String>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult<(StatusCode, Json<SessionTriggered>)> {
    let payload = bodies::trigger_payload(&bytes)?;
    let key = match headers.get("idempotency-key") {
        None => None,
        Some(value) => Some(value.to_str().map_err(|_| {
            ApiError::invalid(Problems::one(
                "Idempotency-Key",
                "must be 1 to 200 letters, digits, '-', '_', '.', ':' or '/'",
            ))
        })?),
    };
    let begun = shared.beckon.trigger(&agent, payload, key).await?;
    let session = begun.session;
    Ok((
        StatusCode::ACCEPTED,
        Json(SessionTriggered {
            session_id: session,
            status_url: format!("{}/v1/sessions/{session}", shared.url),
            repeat: begun.repeat,
        }),
    ))
}

/// A signed-in person does not cancel a session on a team server: its questions are the agents'
/// that asked them (only the asker withdraws a question, `POST /v1/questions/{id}/cancel`).
pub(crate) fn refuse_members_cancelling(principal: &Principal) -> ApiResult<()> {
    match principal {
        Principal::Member(_) => Err(ApiError::new(
            ErrorKind::Forbidden,
            "a session on a team server is its agent's to cancel; withdraw a question you asked instead",
        )),
        Principal::Owner | Principal::AskOnly { .. } => Ok(()),
    }
}
