//! `/v1/questions`: ask on behalf of an external agent, read (and long-poll), list, answer,
//! decline.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use beckon_core::{AnsweredVia, Problems, QuestionRequest, RequestId};
use beckon_runtime::{AnswerReceipt, ExternalAsk, ExternalOnTimeout};
use beckon_store::QuestionStatus;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::body::{self, Fields};
use crate::error::{ApiError, ApiResult};
use crate::state::Shared;
use crate::views;

/// The longest a `?wait=` long-poll holds a request.
pub const MAX_WAIT: Duration = Duration::from_secs(120);

pub(crate) fn parse_id(text: &str) -> ApiResult<RequestId> {
    RequestId::parse(text).map_err(|err| ApiError::new(StatusCode::NOT_FOUND, "not_found", err.to_string()))
}

const CREATE_FIELDS: [&str; 8] =
    ["agent", "session_key", "questions", "timeout", "on_timeout", "default_answer", "callback_url", "metadata"];

/// `POST /v1/questions`: puts an external agent's question to the person. 201 with its id,
/// session, answer URL and deep link.
pub async fn create(State(shared): State<Arc<Shared>>, bytes: Bytes) -> ApiResult<(StatusCode, Json<Value>)> {
    let mut fields = Fields::new(body::object(&bytes)?, &CREATE_FIELDS);
    let agent = fields.required_string("agent");
    let session_key = fields.string("session_key");
    let request = match fields.get("questions") {
        None => {
            fields
                .problems
                .push("questions", "is required: 1 to 4 questions, as Claude Code's AskUserQuestion takes them");
            None
        }
        Some(questions) => match QuestionRequest::parse(&json!({ "questions": questions })) {
            Ok(request) => Some(request),
            Err(problems) => {
                for problem in &problems {
                    fields.problems.push(problem.path.clone(), problem.message.clone());
                }
                None
            }
        },
    };
    let timeout = match fields.get("timeout").map(body::duration) {
        None => None,
        Some(Ok(timeout)) => Some(timeout),
        Some(Err(message)) => {
            fields.problems.push("timeout", message);
            None
        }
    };
    let on_timeout = match fields.string("on_timeout").as_deref() {
        None | Some("decline") => ExternalOnTimeout::Decline,
        Some("fail") => ExternalOnTimeout::Fail,
        Some("default") => ExternalOnTimeout::Default,
        Some(_) => {
            fields.problems.push("on_timeout", "must be \"fail\", \"decline\" or \"default\"");
            ExternalOnTimeout::Decline
        }
    };
    let default_answer = fields.string("default_answer");
    let callback_url = fields.string("callback_url");
    let metadata = fields.get("metadata").cloned();
    fields.finish()?;
    let asked = shared
        .beckon
        .ask_external(ExternalAsk {
            agent: agent.unwrap_or_default(),
            external_key: session_key,
            request,
            timeout,
            on_timeout,
            default_answer,
            callback_url,
            metadata,
        })
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "request_id": asked.request_id,
            "session_id": asked.session_id,
            "status": "pending",
            "expires_at": asked.expires_at_ms,
            "answer_url": format!("{}/v1/questions/{}/answer", shared.url, asked.request_id),
            "status_url": format!("{}/v1/questions/{}", shared.url, asked.request_id),
            "deep_link": format!("beckon://question/{}", asked.request_id),
        })),
    ))
}

/// `?wait=<seconds>`.
#[derive(Debug, Deserialize)]
pub struct WaitQuery {
    wait: Option<f64>,
}

/// `GET /v1/questions/{id}`: the question; with `?wait=N`, held until it resolves or N seconds
/// (at most 120) pass.
pub async fn get(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(query): Query<WaitQuery>,
) -> ApiResult<Json<Value>> {
    let id = parse_id(&id)?;
    let record = match query.wait {
        Some(wait) if wait.is_finite() && wait > 0.0 => {
            let wait = Duration::from_secs_f64(wait).min(MAX_WAIT);
            shared.beckon.wait_for_resolution(id, wait).await?
        }
        Some(wait) if !wait.is_finite() || wait < 0.0 => {
            return Err(ApiError::invalid(Problems::one("wait", "must be a number of seconds from 0 to 120")));
        }
        _ => shared.beckon.question(id).await?,
    };
    Ok(Json(views::question(&shared.url, &record)))
}

/// `?status=&limit=`.
#[derive(Debug, Deserialize)]
pub struct ListQuery {
    status: Option<String>,
    limit: Option<usize>,
}

/// `GET /v1/questions?status=pending`: questions by status, pending ones oldest first.
pub async fn list(State(shared): State<Arc<Shared>>, Query(query): Query<ListQuery>) -> ApiResult<Json<Value>> {
    let status = match query.status.as_deref() {
        None => None,
        Some(text) => Some(QuestionStatus::parse(text).ok_or_else(|| {
            ApiError::invalid(Problems::one("status", "must be pending, answered, declined, expired or cancelled"))
        })?),
    };
    let limit = query.limit.unwrap_or(100).clamp(1, 500);
    let questions: Vec<Value> = if status == Some(QuestionStatus::Pending) {
        let pending = shared.beckon.pending().await?;
        let mut out = Vec::with_capacity(pending.len().min(limit));
        for item in pending.into_iter().take(limit) {
            out.push(views::question(&shared.url, &shared.beckon.question(item.id).await?));
        }
        out
    } else {
        shared.beckon.questions(status, limit).await?.iter().map(|q| views::question(&shared.url, q)).collect()
    };
    Ok(Json(json!({ "questions": questions })))
}

/// What answering returns: the resolution and the result the agent receives.
pub(crate) async fn receipt(shared: &Shared, receipt: AnswerReceipt) -> ApiResult<Json<Value>> {
    let record = shared.beckon.question(receipt.question.id).await?;
    let mut view = views::question(&shared.url, &record);
    view["repeat"] = json!(receipt.repeat);
    Ok(Json(view))
}

/// Answers a question from a body with `answers` (one per question: an object or a label /
/// text) or, for a one-question request, `answer` (a label or text).
pub(crate) async fn answer_with(shared: &Shared, id: RequestId, mut fields: Fields) -> ApiResult<Json<Value>> {
    let answers = fields.get("answers").cloned();
    let answer = fields.string("answer");
    fields.finish()?;
    let given = match (answers, answer) {
        (Some(answers), None) => answers,
        (None, Some(answer)) => json!([answer]),
        (Some(_), Some(_)) => {
            return Err(ApiError::invalid(Problems::one("answer", "give answers or answer, not both")));
        }
        (None, None) => {
            return Err(ApiError::invalid(Problems::one("answers", "is required: one answer per question, in order")));
        }
    };
    let done = shared.beckon.answer_json(id, &given, AnsweredVia::Http).await?;
    receipt(shared, done).await
}

/// `POST /v1/questions/{id}/answer`.
pub async fn answer(State(shared): State<Arc<Shared>>, Path(id): Path<String>, bytes: Bytes) -> ApiResult<Json<Value>> {
    let id = parse_id(&id)?;
    let fields = Fields::new(body::object(&bytes)?, &["answers", "answer"]);
    answer_with(&shared, id, fields).await
}

/// `POST /v1/questions/{id}/decline`: the agent goes on without an answer.
pub async fn decline(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> ApiResult<Json<Value>> {
    let id = parse_id(&id)?;
    let mut fields = Fields::new(body::object(&bytes)?, &["reason"]);
    let reason = fields.string("reason");
    fields.finish()?;
    let done = shared.beckon.decline(id, reason, AnsweredVia::Http).await?;
    receipt(&shared, done).await
}
