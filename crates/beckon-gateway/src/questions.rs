//! `/v1/questions`: ask on behalf of an external agent, read (and long-poll), list, answer,
//! decline.

use beckon_core::GivenAnswers;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use beckon_api::views::{QuestionCreated, QuestionList, QuestionView};
use beckon_core::{AnsweredVia, Answerer, Problems, RequestId};
use beckon_runtime::api::ErrorKind;
use beckon_runtime::{AnswerReceipt, Asker, AskingPerson, Decision};
use beckon_store::QuestionStatus;
use serde::Deserialize;
use serde_json::Value;

use crate::addressed::Audiences;
use crate::bodies::{self, parse_id};
use crate::error::{ApiError, ApiResult};
use crate::places::Caller;
use crate::principal::Principal;
use crate::state::Shared;
use crate::views::{self, ReadShape};

/// The longest a `?wait=` long-poll holds a request.
pub const MAX_WAIT: Duration = Duration::from_secs(120);

/// `POST /v1/questions`: puts an external agent's question to the person. 201 with its id,
/// session, answer URL and deep link. A question asked with an ask-only token is recorded as
/// that token's (from the token, never from the body).
pub async fn create(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    bytes: Bytes,
) -> ApiResult<(StatusCode, Json<QuestionCreated>)> {
    let mut ask = bodies::ask(&bytes)?;
    match principal {
        Principal::Owner => {}
        Principal::AskOnly { token } => ask.asked_by = Some(token),
        // A person asking themselves is recorded and shown as the asker, and addresses only
        // themselves or their groups (the runtime's rule).
        Principal::Member(member) => {
            ask.asking_person = Some(AskingPerson { person: member.signed_in(), shown: member.person.answered_by() });
        }
    }
    let asked = shared.beckon.ask_external(ask).await?;
    Ok((
        StatusCode::CREATED,
        Json(QuestionCreated {
            request_id: asked.request_id,
            session_id: asked.session_id,
            status: QuestionStatus::Pending,
            expires_at: asked.expires_at_ms,
            answer_url: format!("{}/v1/questions/{}/answer", shared.url, asked.request_id),
            status_url: format!("{}/v1/questions/{}", shared.url, asked.request_id),
            deep_link: format!("beckon://question/{}", asked.request_id),
        }),
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
    Extension(principal): Extension<Principal>,
    Path(id): Path<String>,
    Query(query): Query<WaitQuery>,
    shape: ReadShape,
) -> ApiResult<Json<QuestionView>> {
    let id = parse_id(&id)?;
    let record = match query.wait {
        Some(wait) if wait.is_finite() && wait > 0.0 => {
            // Capped before converting: `from_secs_f64` panics on a number too large.
            let wait = Duration::from_secs_f64(wait.min(MAX_WAIT.as_secs_f64()));
            let _place = shared.long_polls.take(Caller::of(&principal))?;
            shared.beckon.inbox().wait_for_resolution(id, wait).await?
        }
        Some(wait) if !wait.is_finite() || wait < 0.0 => {
            return Err(ApiError::invalid(Problems::one("wait", "must be a number of seconds from 0 to 120")));
        }
        _ => shared.beckon.inbox().question(id).await?,
    };
    Ok(Json(views::question(&shared.url, &record, shape)))
}

/// `?status=&limit=`.
#[derive(Debug, Deserialize)]
pub struct ListQuery {
    status: Option<String>,
    limit: Option<usize>,
}

/// `GET /v1/questions?status=pending`: questions by status, pending ones oldest first; for a
/// signed-in person, only those addressed to them, their groups or everyone.
pub async fn list(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    Query(query): Query<ListQuery>,
    shape: ReadShape,
) -> ApiResult<Json<QuestionList>> {
    let status = match query.status.as_deref() {
        None => None,
        Some(text) => Some(QuestionStatus::parse(text).ok_or_else(|| {
            ApiError::invalid(Problems::one("status", "must be pending, answered, declined, expired or cancelled"))
        })?),
    };
    let limit = query.limit.unwrap_or(100).clamp(1, 500);
    let records = if status == Some(QuestionStatus::Pending) {
        let mut records = Vec::new();
        for item in shared.beckon.inbox().pending().await? {
            records.push(shared.beckon.inbox().question(item.id).await?);
        }
        records
    } else {
        // A signed-in person's share is found among more than `limit`.
        let wanted = if matches!(principal, Principal::Member(_)) { 500 } else { limit };
        shared.beckon.inbox().questions(status, wanted).await?
    };
    let mut audiences = Audiences::default();
    let mut questions = Vec::with_capacity(records.len().min(limit));
    for record in records {
        if questions.len() == limit {
            break;
        }
        if let Principal::Member(member) = &principal
            && !audiences.sees(&shared, member, record.session_id).await?
        {
            continue;
        }
        questions.push(views::question(&shared.url, &record, shape));
    }
    Ok(Json(QuestionList { questions }))
}

/// What answering returns: the resolution and the result the agent receives.
pub(crate) async fn receipt(
    shared: &Shared,
    receipt: AnswerReceipt,
    shape: ReadShape,
) -> ApiResult<Json<QuestionView>> {
    let record = shared.beckon.inbox().question(receipt.question.id).await?;
    let view = views::question(&shared.url, &record, shape);
    Ok(Json(QuestionView { repeat: Some(receipt.repeat), ..view }))
}

/// Answers a question with answers given as JSON (one per question: an object or a label /
/// text), as a body read them.
pub(crate) async fn answer_with(
    shared: &Shared,
    principal: &Principal,
    id: RequestId,
    given: Value,
    shape: ReadShape,
) -> ApiResult<Json<QuestionView>> {
    let done = settle(shared, principal, id, Decision::Answer(GivenAnswers::Json(given))).await?;
    receipt(shared, done, shape).await
}

/// Settles question `id` as `principal` decided.
pub(crate) async fn settle(
    shared: &Shared,
    principal: &Principal,
    id: RequestId,
    decision: Decision,
) -> ApiResult<AnswerReceipt> {
    settle_as(shared, principal, principal.answerer(), id, decision).await
}

/// Settles question `id` as `answerer` (who `principal` is, from the front end it names)
/// decided. An admin who can see a question addressed to someone else is told whose it is,
/// rather than that there is no such question.
pub(crate) async fn settle_as(
    shared: &Shared,
    principal: &Principal,
    answerer: Answerer,
    id: RequestId,
    decision: Decision,
) -> ApiResult<AnswerReceipt> {
    match shared.beckon.resolve(id, answerer, decision).await {
        Err(beckon_runtime::Error::QuestionNotFound(missing)) => {
            let audience = match principal {
                Principal::Member(member) if member.admin => shared.beckon.question_audience(missing).await?,
                _ => None,
            };
            Err(match audience {
                Some(audience) => ApiError::new(
                    ErrorKind::Forbidden,
                    format!("question {missing} is addressed to {audience}; only they may answer or decline it"),
                ),
                None => ApiError::from(beckon_runtime::Error::QuestionNotFound(missing)),
            })
        }
        other => Ok(other?),
    }
}

/// `POST /v1/questions/{id}/answer`.
pub async fn answer(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<String>,
    shape: ReadShape,
    bytes: Bytes,
) -> ApiResult<Json<QuestionView>> {
    let id = parse_id(&id)?;
    let given = bodies::answers(&bytes)?;
    answer_with(&shared, &principal, id, given, shape).await
}

/// `POST /v1/questions/{id}/decline`: the agent goes on without an answer.
pub async fn decline(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<String>,
    shape: ReadShape,
    bytes: Bytes,
) -> ApiResult<Json<QuestionView>> {
    let id = parse_id(&id)?;
    let reason = bodies::reason(&bytes)?;
    let done = settle(&shared, &principal, id, Decision::Decline(reason)).await?;
    receipt(&shared, done, shape).await
}

/// `POST /v1/questions/{id}/cancel`: the agent that asked withdraws its question (it got its
/// answer elsewhere, such as in its own terminal); it resolves as cancelled with the reason.
/// Only who asked withdraws — the token that asked, the signed-in person who asked, or the
/// person's own token for what neither asked — and who withdrew is recorded.
pub async fn cancel(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<String>,
    shape: ReadShape,
    bytes: Bytes,
) -> ApiResult<Json<QuestionView>> {
    let id = parse_id(&id)?;
    let asker = shared.beckon.tokens().asker(id).await?;
    let by = match (&principal, &asker) {
        (Principal::AskOnly { token }, Asker::Token(asking)) if token.id == *asking => {
            Some(format!("token {}", token.name))
        }
        (Principal::Member(member), Asker::Person(subject)) if member.person.subject == *subject => {
            Some(member.person.answered_by())
        }
        (Principal::Owner, Asker::Owner) => None,
        _ => {
            return Err(ApiError::new(
                ErrorKind::Forbidden,
                format!("only who asked question {id} withdraws it ({})", asker_named(&asker)),
            ));
        }
    };
    let reason = bodies::reason(&bytes)?;
    let withdrawer = Answerer { via: AnsweredVia::Http, by, signed_in: None };
    let done = shared.beckon.resolve(id, withdrawer, Decision::Withdraw(reason)).await?;
    receipt(&shared, done, shape).await
}

/// Who asked, as a refusal to withdraw names them.
fn asker_named(asker: &Asker) -> &'static str {
    match asker {
        Asker::Token(_) => "an agent's token asked it",
        Asker::Person(_) => "a person signed in asked it",
        Asker::Owner => "it was asked with the person's own token",
    }
}
