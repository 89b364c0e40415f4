//! `POST /v1/window/{command}`: the window's own calls when it runs in a browser on a team
//! server — the same commands, arguments and replies the desktop window sends over IPC, so one
//! window speaks to either. A signed-in person sees only what is addressed to them, their
//! groups or everyone, and answers as themselves. Not a public API: agents and scripts use the
//! routes in the OpenAPI document.

use std::sync::Arc;

use axum::Extension;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use beckon_core::{Answer, AnsweredVia, Answerer, Answers, Audience, RequestId, SessionId};
use beckon_runtime::api::ErrorKind;
use beckon_runtime::{BatchDecision, Decision, WindowSnapshot};
use beckon_store::{SessionCursor, SessionFilter, SessionPage};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::addressed::{self, Audiences};
use crate::bodies::parse_id;
use crate::error::{ApiError, ApiResult};
use crate::permissions::Addressed;
use crate::principal::{Member, Principal};
use crate::questions::settle_as;
use crate::state::Shared;

/// The commands that only read: posted (with the CSRF token) like the rest, but not counted
/// against the write limits.
const READS: [&str; 6] = ["bootstrap", "list_sessions", "get_session", "get_question", "metrics", "paired_channels"];

/// Whether window command `command` only reads.
pub(crate) fn reads(command: &str) -> bool {
    READS.contains(&command)
}

/// The most sessions one page holds.
const PAGE_MAX: usize = 500;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Nothing {}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ListSessions {
    after: Option<SessionCursor>,
    limit: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct OfSession {
    session_id: String,
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct OfQuestion {
    request_id: String,
    #[serde(default)]
    answers: Option<Vec<Answer>>,
    #[serde(default)]
    reason: Option<String>,
    /// Where the person acted, when not in the window itself: the desktop app answering a team
    /// inbox's question from its notification says so, for the record.
    #[serde(default)]
    via: Option<Place>,
}

/// Where a signed-in person acted on a window command.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Place {
    Window,
    Notification,
}

/// Who answers: the principal, from where they say they acted (a person only: tokens are what
/// they are).
fn answerer(principal: &Principal, via: Option<Place>) -> Answerer {
    let mut answerer = principal.answerer();
    if let (Principal::Member(_), Some(Place::Notification)) = (principal, via) {
        answerer.via = AnsweredVia::Notification;
    }
    answerer
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct OfChannel {
    channel: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct AnswerBatch {
    request_ids: Vec<String>,
    decision: BatchDecision,
}

/// Runs window command `command` with the JSON arguments in the body.
pub async fn call(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    Path(command): Path<String>,
    bytes: Bytes,
) -> ApiResult<Response> {
    let member = match &principal {
        Principal::Member(member) if !member.admin => Some(member),
        _ => None,
    };
    let shared = shared.as_ref();
    let reply = match command.as_str() {
        "bootstrap" => {
            let Nothing {} = args(&bytes)?;
            json(snapshot(shared, member).await?)
        }
        "list_sessions" => {
            let ListSessions { after, limit } = args(&bytes)?;
            let limit = limit.unwrap_or(100).clamp(1, PAGE_MAX);
            let filter = SessionFilter { top_level_only: true, after, limit, ..SessionFilter::default() };
            let page = shared.beckon.sessions(filter).await?;
            json(visible_sessions(shared, member, page).await?)
        }
        "get_session" => {
            let OfSession { session_id, .. } = args(&bytes)?;
            let id = session(shared, member, &session_id).await?;
            let mut view = shared.beckon.session(id).await?;
            if let Some(only_for) = not_theirs(&principal, shared.beckon.session_audience(id).await?) {
                for record in view.pending.iter_mut().chain(view.questions.iter_mut()) {
                    record.only_for = Some(only_for.clone());
                }
            }
            json(view)
        }
        "get_question" => {
            let OfQuestion { request_id, .. } = args(&bytes)?;
            let id = question(shared, member, &request_id).await?;
            let mut record = shared.beckon.question(id).await?;
            record.only_for = not_theirs(&principal, shared.beckon.question_audience(id).await?);
            json(record)
        }
        "answer" => {
            let OfQuestion { request_id, answers, via, .. } = args(&bytes)?;
            let answers = answers.ok_or_else(|| ApiError::bad_request("answers are missing"))?;
            // Whether the person may answer it is the runtime's rule, as for every answer.
            let id = parse_id(&request_id)?;
            let decision = Decision::Answer(Answers::unchecked(answers));
            json(settle_as(shared, &principal, answerer(&principal, via), id, decision).await?)
        }
        "decline" => {
            let OfQuestion { request_id, reason, via, .. } = args(&bytes)?;
            let id = parse_id(&request_id)?;
            json(settle_as(shared, &principal, answerer(&principal, via), id, Decision::Decline(reason)).await?)
        }
        "answer_batch" => {
            let AnswerBatch { request_ids, decision } = args(&bytes)?;
            let ids = request_ids
                .iter()
                .map(|id| id.parse::<RequestId>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|err| ApiError::new(ErrorKind::InvalidInput, err.to_string()))?;
            // Each one the person may not answer comes back as not found, as for one answer.
            json(shared.beckon.resolve_batch(ids, principal.answerer(), decision).await?)
        }
        "cancel" => {
            let OfSession { session_id, reason } = args(&bytes)?;
            let session = session(shared, member, &session_id).await?;
            crate::sessions::refuse_members_cancelling(&principal)?;
            shared.beckon.cancel(session, reason).await?;
            json(())
        }
        "metrics" => {
            let Nothing {} = args(&bytes)?;
            json(metrics(shared, member).await?)
        }
        "paired_channels" => {
            let Nothing {} = args(&bytes)?;
            let subject = &signed_in(&principal)?.person.subject;
            json(shared.beckon.paired_channels(subject, &shared.pairable_channels).await?)
        }
        "pair_channel" => {
            let OfChannel { channel } = args(&bytes)?;
            let person = &signed_in(&principal)?.person;
            json(shared.beckon.new_channel_pairing_code(pairable(shared, &channel)?, person).await?)
        }
        "unpair_channel" => {
            let OfChannel { channel } = args(&bytes)?;
            let subject = &signed_in(&principal)?.person.subject;
            shared.beckon.unpair_channel_person(pairable(shared, &channel)?, subject).await?;
            json(shared.beckon.paired_channels(subject, &shared.pairable_channels).await?)
        }
        other => {
            return Err(ApiError::new(
                ErrorKind::NotFound,
                format!("the window has no command {other:?} on a team server (only in the desktop app, if at all)"),
            ));
        }
    };
    Ok(reply)
}

/// For an admin, who sees everything, whom a question or session addressed to `audience` is
/// for when it is not them: they may read it but not answer it.
fn not_theirs(principal: &Principal, audience: Option<Audience>) -> Option<String> {
    match (principal, audience) {
        (Principal::Member(member), Some(audience))
            if !audience.includes(&member.person.subject, &member.person.groups) =>
        {
            Some(audience.to_string())
        }
        _ => None,
    }
}

/// The signed-in person making the call: only a person pairs their own accounts.
fn signed_in(principal: &Principal) -> ApiResult<&Member> {
    match principal {
        Principal::Member(member) => Ok(member),
        _ => {
            Err(ApiError::new(ErrorKind::Forbidden, "only a person signed in on this server pairs their own accounts"))
        }
    }
}

/// `channel`, when people may pair their accounts on it here.
fn pairable<'a>(shared: &Shared, channel: &'a str) -> ApiResult<&'a str> {
    if shared.pairable_channels.iter().any(|on| on == channel) {
        return Ok(channel);
    }
    Err(ApiError::bad_request(format!(
        "people cannot pair an account on {channel:?} here (this server pairs: {})",
        if shared.pairable_channels.is_empty() { "none".to_owned() } else { shared.pairable_channels.join(", ") }
    )))
}

/// The arguments a command takes, as the window sends them (camelCase keys; none unknown).
pub(crate) fn args<T: DeserializeOwned>(bytes: &[u8]) -> ApiResult<T> {
    let bytes = if bytes.iter().all(u8::is_ascii_whitespace) { b"{}".as_slice() } else { bytes };
    serde_json::from_slice(bytes).map_err(|err| ApiError::bad_request(format!("the arguments cannot be read: {err}")))
}

fn json<T: serde::Serialize>(value: T) -> Response {
    axum::Json(value).into_response()
}

/// What the window starts with, cut to what `member` may see (everything for the person and
/// admins).
async fn snapshot(shared: &Shared, member: Option<&Member>) -> ApiResult<WindowSnapshot> {
    let mut snapshot = shared.beckon.window_snapshot().await?;
    let Some(member) = member else { return Ok(snapshot) };
    let mut audiences = Audiences::default();
    let mut pending = Vec::with_capacity(snapshot.pending.len());
    for entry in snapshot.pending {
        if audiences.sees(shared, member, entry.session_id).await? {
            pending.push(entry);
        }
    }
    snapshot.pending = pending;
    snapshot.metrics = metrics(shared, Some(member)).await?;
    snapshot.sessions = visible(shared, member, &mut audiences, snapshot.sessions).await?;
    Ok(snapshot)
}

/// The figures `member` may see: their share, or everyone's for the person and admins.
async fn metrics(shared: &Shared, member: Option<&Member>) -> ApiResult<beckon_store::Metrics> {
    Ok(match member {
        Some(member) => shared.beckon.metrics_seen_by(&member.signed_in()).await?,
        None => shared.beckon.metrics().await?,
    })
}

async fn visible_sessions(shared: &Shared, member: Option<&Member>, page: SessionPage) -> ApiResult<SessionPage> {
    match member {
        Some(member) => visible(shared, member, &mut Audiences::default(), page).await,
        None => Ok(page),
    }
}

/// A page of sessions without those `member` may not see (the page's cursor stays as it was, so
/// the next page follows on).
async fn visible(
    shared: &Shared,
    member: &Member,
    audiences: &mut Audiences,
    mut page: SessionPage,
) -> ApiResult<SessionPage> {
    let mut kept = Vec::with_capacity(page.sessions.len());
    for summary in page.sessions {
        if audiences.sees(shared, member, summary.id).await? {
            kept.push(summary);
        }
    }
    page.sessions = kept;
    Ok(page)
}

/// A session `member` may see, by the id the window sent.
async fn session(shared: &Shared, member: Option<&Member>, id: &str) -> ApiResult<SessionId> {
    let session = SessionId::parse(id).map_err(|err| ApiError::new(ErrorKind::NotFound, err.to_string()))?;
    if let Some(member) = member {
        addressed::check(shared, member, Addressed::Session(id)).await?;
    }
    Ok(session)
}

/// A question `member` may see, by the id the window sent.
async fn question(shared: &Shared, member: Option<&Member>, id: &str) -> ApiResult<RequestId> {
    let question = parse_id(id)?;
    if let Some(member) = member {
        addressed::check(shared, member, Addressed::Question(id)).await?;
    }
    Ok(question)
}
