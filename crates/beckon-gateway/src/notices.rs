//! `/v1/notices`: an agent outside Beckon says it waits for its person somewhere Beckon cannot
//! answer for it (Claude Code idle at its prompt), and clears that when it goes on.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::{Extension, Json};
use serde_json::{Value, json};

use crate::bodies;
use crate::error::ApiResult;
use crate::principal::Principal;
use crate::state::Shared;

/// The key a notice is kept under: an ask-only token's keys are its own, and a signed-in
/// person's theirs, so neither can replace nor clear a notice someone else posted.
fn kept_under(principal: &Principal, key: &str) -> String {
    match principal {
        Principal::Person => key.to_owned(),
        Principal::AskOnly { token } => format!("token-{}:{key}", token.id),
        Principal::Member(member) => format!("person-{}:{key}", member.person.subject),
    }
}

/// `GET /v1/notices`: the notices shown now, oldest first.
pub async fn list(State(shared): State<Arc<Shared>>) -> Json<Value> {
    Json(json!({ "notices": shared.beckon.notices() }))
}

/// `PUT /v1/notices/{key}`: shows a notice, replacing the one under the same key.
pub async fn put(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    Path(key): Path<String>,
    bytes: Bytes,
) -> ApiResult<Json<Value>> {
    let body = bodies::notice(&bytes)?;
    let notice = shared.beckon.post_notice(&kept_under(&principal, &key), body.agent, body.message, body.project)?;
    Ok(Json(json!(notice)))
}

/// `DELETE /v1/notices/{key}`: the agent went on; says whether a notice was shown.
pub async fn clear(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    Path(key): Path<String>,
) -> Json<Value> {
    let cleared = shared.beckon.clear_notice(&kept_under(&principal, &key));
    Json(json!({ "key": key, "cleared": cleared }))
}
