//! `POST /v1/window/{command}`: the window's own calls when it runs in a browser on a team
//! server — the same commands, arguments and replies the desktop window sends over IPC, so one
//! window speaks to either. A signed-in person sees only what is addressed to them, their
//! groups or everyone, and answers as themselves. Not a public API: agents and scripts use the
//! routes in the OpenAPI document.

use beckon_core::GivenAnswers;
use std::sync::Arc;

use axum::Extension;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use beckon_api::{OfPushDevice, PushOffer, PushSubscription};
use beckon_core::{AnsweredVia, Answerer, Answers, Audience, RequestId, SessionId};
use beckon_runtime::api::ErrorKind;
use beckon_runtime::api::window::{
    AnswerBatch, AnswerQuestion, CancelSession, DeclineQuestion, ListSessions, NoArgs, OfChannel, OfQuestion,
    OfSession, Place, Window, WindowCommand,
};
use beckon_runtime::{
    AnswerReceipt, BatchReceipt, ChannelPairingCode, Decision, PairedChannel, SessionView, WindowSnapshot,
};
use beckon_store::{Metrics, QuestionRecord, SessionFilter, SessionPage};

use crate::addressed::{self, Audiences};
use crate::bodies::parse_id;
use crate::error::{ApiError, ApiResult};
use crate::permissions::Addressed;
use crate::principal::{Member, Principal};
use crate::questions::settle_as;
use crate::state::Shared;

/// Whether window command `command` only reads: posted (with the CSRF token) like the rest, but
/// not counted against the write limits.
pub(crate) fn reads(command: &str) -> bool {
    WindowCommand::reads(command) == Some(true)
}

/// The most sessions one page holds.
const PAGE_MAX: usize = 500;

/// Who answers: the principal, from where they say they acted (a person only: tokens are what
/// they are).
fn answerer(principal: &Principal, via: Option<Place>) -> Answerer {
    let mut answerer = principal.answerer();
    if let (Principal::Member(_), Some(Place::Notification)) = (principal, via) {
        answerer.via = AnsweredVia::Notification;
    }
    answerer
}

/// Runs window command `command` with the JSON arguments in the body.
pub async fn call(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    Path(command): Path<String>,
    bytes: Bytes,
) -> ApiResult<Response> {
    let command = read(&command, &bytes)?;
    let member = match &principal {
        Principal::Member(member) if !member.admin => Some(member),
        _ => None,
    };
    let reply = command.dispatch(&TeamWindow { shared: shared.as_ref(), principal: &principal, member }).await?;
    Ok(axum::Json(reply).into_response())
}

/// Window command `name` with the JSON arguments in `bytes` (blank is none).
pub(crate) fn read(name: &str, bytes: &[u8]) -> ApiResult<WindowCommand> {
    let args = if bytes.iter().all(u8::is_ascii_whitespace) {
        serde_json::Value::Null
    } else {
        serde_json::from_slice(bytes).map_err(cannot_read)?
    };
    WindowCommand::read(name, args).map_err(cannot_read)?.ok_or_else(|| {
        ApiError::new(
            ErrorKind::NotFound,
            format!("the window has no command {name:?} on a team server (only in the desktop app, if at all)"),
        )
    })
}

fn cannot_read(err: serde_json::Error) -> ApiError {
    ApiError::bad_request(format!("the arguments cannot be read: {err}"))
}

/// The window's commands as a team server serves them, to one caller: a signed-in person sees
/// only what is addressed to them, their groups or everyone (`member`; none for admins, the
/// person and tokens, who see everything), and answers as themselves.
struct TeamWindow<'a> {
    shared: &'a Shared,
    principal: &'a Principal,
    member: Option<&'a Member>,
}

impl Window for TeamWindow<'_> {
    type Error = ApiError;

    async fn bootstrap(&self, NoArgs {}: NoArgs) -> ApiResult<WindowSnapshot> {
        snapshot(self.shared, self.member).await
    }

    async fn list_sessions(&self, ListSessions { after, limit }: ListSessions) -> ApiResult<SessionPage> {
        let limit = limit.unwrap_or(100).clamp(1, PAGE_MAX);
        let filter = SessionFilter { top_level_only: true, after, limit, ..SessionFilter::default() };
        let page = self.shared.beckon.inbox().sessions(filter).await?;
        visible_sessions(self.shared, self.member, page).await
    }

    async fn get_session(&self, OfSession { session_id }: OfSession) -> ApiResult<SessionView> {
        let shared = self.shared;
        let id = session(shared, self.member, &session_id).await?;
        let mut view = shared.beckon.inbox().session(id).await?;
        if let Some(only_for) = not_theirs(self.principal, shared.beckon.session_audience(id).await?) {
            for record in view.pending.iter_mut().chain(view.questions.iter_mut()) {
                record.only_for = Some(only_for.clone());
            }
        }
        Ok(view)
    }

    async fn get_question(&self, OfQuestion { request_id }: OfQuestion) -> ApiResult<QuestionRecord> {
        let shared = self.shared;
        let id = question(shared, self.member, &request_id).await?;
        let mut record = shared.beckon.inbox().question(id).await?;
        record.only_for = not_theirs(self.principal, shared.beckon.question_audience(id).await?);
        Ok(record)
    }

    async fn answer(&self, AnswerQuestion { request_id, answers, via }: AnswerQuestion) -> ApiResult<AnswerReceipt> {
        // Whether the person may answer it is the runtime's rule, as for every answer.
        let id = parse_id(&request_id)?;
        let decision = Decision::Answer(GivenAnswers::Typed(Answers::unchecked(answers)));
        settle_as(self.shared, self.principal, answerer(self.principal, via), id, decision).await
    }

    async fn decline(&self, DeclineQuestion { request_id, reason, via }: DeclineQuestion) -> ApiResult<AnswerReceipt> {
        let id = parse_id(&request_id)?;
        settle_as(self.shared, self.principal, answerer(self.principal, via), id, Decision::Decline(reason)).await
    }

    async fn answer_batch(&self, AnswerBatch { request_ids, decision }: AnswerBatch) -> ApiResult<BatchReceipt> {
        let ids = request_ids
            .iter()
            .map(|id| id.parse::<RequestId>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|err| ApiError::new(ErrorKind::InvalidInput, err.to_string()))?;
        // Each one the person may not answer comes back as not found, as for one answer.
        Ok(self.shared.beckon.resolve_batch(ids, self.principal.answerer(), decision).await?)
    }

    async fn cancel(&self, CancelSession { session_id, reason }: CancelSession) -> ApiResult<()> {
        let session = session(self.shared, self.member, &session_id).await?;
        crate::sessions::refuse_members_cancelling(self.principal)?;
        Ok(self.shared.beckon.cancel(session, reason).await?)
    }

    async fn metrics(&self, NoArgs {}: NoArgs) -> ApiResult<Metrics> {
        metrics(self.shared, self.member).await
    }

    async fn paired_channels(&self, NoArgs {}: NoArgs) -> ApiResult<Vec<PairedChannel>> {
        let subject = &signed_in(self.principal)?.person.subject;
        Ok(self.shared.beckon.pairings().paired_channels(subject, &self.shared.pairable_channels).await?)
    }

    async fn pair_channel(&self, OfChannel { channel }: OfChannel) -> ApiResult<ChannelPairingCode> {
        let person = &signed_in(self.principal)?.person;
        Ok(self.shared.beckon.pairings().new_code(pairable(self.shared, &channel)?, person).await?)
    }

    async fn unpair_channel(&self, OfChannel { channel }: OfChannel) -> ApiResult<Vec<PairedChannel>> {
        let subject = &signed_in(self.principal)?.person.subject;
        self.shared.beckon.pairings().unpair(pairable(self.shared, &channel)?, subject).await?;
        Ok(self.shared.beckon.pairings().paired_channels(subject, &self.shared.pairable_channels).await?)
    }

    async fn push_offer(&self, NoArgs {}: NoArgs) -> ApiResult<PushOffer> {
        signed_in(self.principal)?;
        Ok(self.shared.beckon.push_devices().offer())
    }

    async fn add_push_device(&self, subscription: PushSubscription) -> ApiResult<()> {
        let member = signed_in(self.principal)?;
        Ok(self.shared.beckon.push_devices().add(member.session, &member.person.subject, subscription).await?)
    }

    async fn remove_push_device(&self, OfPushDevice { endpoint }: OfPushDevice) -> ApiResult<()> {
        let member = signed_in(self.principal)?;
        self.shared.beckon.push_devices().remove(&endpoint, &member.person.subject).await?;
        Ok(())
    }
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

/// The signed-in person making the call: only a person pairs their own accounts and has their
/// browsers pushed to.
fn signed_in(principal: &Principal) -> ApiResult<&Member> {
    match principal {
        Principal::Member(member) => Ok(member),
        _ => Err(ApiError::new(
            ErrorKind::Forbidden,
            "only a person signed in on this server pairs their own accounts or has their browsers pushed to",
        )),
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

/// What the window starts with, cut to what `member` may see (everything for the person and
/// admins).
async fn snapshot(shared: &Shared, member: Option<&Member>) -> ApiResult<WindowSnapshot> {
    let mut snapshot = shared.beckon.inbox().snapshot().await?;
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
        Some(member) => shared.beckon.inbox().metrics_seen_by(&member.signed_in()).await?,
        None => shared.beckon.inbox().metrics().await?,
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
