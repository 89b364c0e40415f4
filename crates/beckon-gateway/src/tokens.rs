//! `/v1/tokens`: the person makes, lists and revokes tokens for agents on other machines. Only
//! the person's token reaches these (see [`crate::permissions`]).

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use beckon_api::CreatedToken;
use beckon_api::views::{TokenList, TokenRevoked};

use crate::bodies;
use crate::error::ApiResult;
use crate::state::Shared;

/// `POST /v1/tokens`: 201 with the token and its secret, which is never shown again. With
/// `owner` (`person:<subject>` or `group:<name>`), what the token asks goes to them.
pub async fn create(State(shared): State<Arc<Shared>>, bytes: Bytes) -> ApiResult<(StatusCode, Json<CreatedToken>)> {
    let (name, kind, owner) = bodies::token(&bytes)?;
    let created = shared.beckon.tokens().create_owned(&name, kind, owner).await?;
    Ok((StatusCode::CREATED, Json(created)))
}

/// `GET /v1/tokens`: the live tokens, newest first, without their secrets.
pub async fn list(State(shared): State<Arc<Shared>>) -> ApiResult<Json<TokenList>> {
    Ok(Json(TokenList { tokens: shared.beckon.tokens().list().await? }))
}

/// `DELETE /v1/tokens/{name}`: revokes the live token of that name; requests carrying it are
/// refused from now on.
pub async fn revoke(State(shared): State<Arc<Shared>>, Path(name): Path<String>) -> ApiResult<Json<TokenRevoked>> {
    Ok(Json(TokenRevoked { token: shared.beckon.tokens().revoke(&name).await? }))
}
