//! `/v1/notices`: an agent outside Beckon says it waits for its person somewhere Beckon cannot
//! answer for it (Claude Code idle at its prompt), and clears that when it goes on.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::{Extension, Json};
use beckon_api::views::{NoticeCleared, NoticeList};
use beckon_core::Notice;
use beckon_store::TokenId;

use crate::bodies;
use crate::error::ApiResult;
use crate::principal::{Member, Principal};
use crate::state::Shared;

/// The key a notice is kept under: an ask-only token's keys are its own, and a signed-in
/// person's theirs, so neither can replace nor clear a notice someone else posted.
fn kept_under(principal: &Principal, key: &str) -> String {
    match principal {
        Principal::Owner => key.to_owned(),
        Principal::AskOnly { token } => format!("token-{}:{key}", token.id),
        Principal::Member(member) => format!("person-{}:{key}", member.person.subject),
    }
}

/// `GET /v1/notices`: the notices shown now, oldest first; a signed-in person's share of them
/// (an admin's is all).
pub async fn list(State(shared): State<Arc<Shared>>, Extension(principal): Extension<Principal>) -> Json<NoticeList> {
    let mut notices = shared.beckon.notices();
    if let Principal::Member(member) = &principal
        && !member.admin
    {
        notices.retain(|notice| is_theirs(&shared, member, &notice.key));
    }
    Json(NoticeList { notices })
}

/// Whether the notice kept under `key` is `member`'s to see: one they posted themselves, or one
/// an agent's token posted for them or one of their groups. What the person's own token (the
/// admin token) or a token for no one posted is the admins'.
fn is_theirs(shared: &Shared, member: &Member, key: &str) -> bool {
    if key.starts_with(&format!("person-{}:", member.person.subject)) {
        return true;
    }
    let Some(id) = key.strip_prefix("token-").and_then(|rest| rest.split_once(':')).map(|(id, _)| id) else {
        return false;
    };
    let owner = id.parse().ok().and_then(|id| shared.beckon.tokens().owner(TokenId(id)));
    owner.is_some_and(|owner| owner.includes(&member.person.subject, &member.person.groups))
}

/// `PUT /v1/notices/{key}`: shows a notice, replacing the one under the same key.
pub async fn put(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    Path(key): Path<String>,
    bytes: Bytes,
) -> ApiResult<Json<Notice>> {
    let body = bodies::notice(&bytes)?;
    let notice = shared.beckon.post_notice(&kept_under(&principal, &key), body.agent, body.message, body.project)?;
    Ok(Json(notice))
}

/// `DELETE /v1/notices/{key}`: the agent went on; says whether a notice was shown.
pub async fn clear(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    Path(key): Path<String>,
) -> Json<NoticeCleared> {
    let cleared = shared.beckon.clear_notice(&kept_under(&principal, &key));
    Json(NoticeCleared { key, cleared })
}
