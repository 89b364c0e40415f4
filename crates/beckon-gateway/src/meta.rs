//! `GET /v1/health`, `GET /v1/proof`, `GET /v1/openapi.json`, and the probes `GET /livez` and
//! `GET /readyz`.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use beckon_api::views::{Health, Proof};
use beckon_core::Problems;
use serde::Deserialize;
use serde_json::Value;

use beckon_runtime::api::ErrorKind;

use crate::error::{ApiError, ApiResult};
use crate::state::Shared;

/// The OpenAPI document describing every route.
pub const OPENAPI: &str = include_str!("openapi.json");

/// Whether Beckon is up, where it keeps its data, and how many questions wait (read from the
/// database, so an unreachable database answers with an error).
pub async fn health(State(shared): State<Arc<Shared>>) -> ApiResult<Json<Health>> {
    let pending = shared.beckon.inbox().pending().await?.len();
    Ok(Json(Health {
        status: "ok".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        database: shared.beckon.configuration().database().to_owned(),
        pending,
    }))
}

/// How long a readiness check waits for the database before saying it is not ready.
const READY_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);

/// `GET /livez`: the process answers. For a load balancer or an orchestrator; needs no token
/// and tells nothing else.
pub async fn live() -> &'static str {
    "live\n"
}

/// `GET /readyz`: this replica can serve — its database answers within two seconds and holds
/// the schema it knows. `503` otherwise. Needs no token and tells nothing else.
pub async fn ready(State(shared): State<Arc<Shared>>) -> (StatusCode, &'static str) {
    match tokio::time::timeout(READY_WITHIN, shared.beckon.health().ready()).await {
        Ok(true) => (StatusCode::OK, "ready\n"),
        Ok(false) | Err(_) => (StatusCode::SERVICE_UNAVAILABLE, "not ready\n"),
    }
}

/// `?challenge=<64 hex digits>&token=<hint>`.
#[derive(Debug, Deserialize)]
pub struct ChallengeQuery {
    challenge: Option<String>,
    /// An ask-only token's hint, or a team server's admin token's (see
    /// `beckon_runtime::token_secret`): prove knowing that token instead of the person's.
    token: Option<String>,
}

/// `GET /v1/proof?challenge=…`: proof that this server knows the token, without the token. With
/// `&token=<hint>`, proof that it knows that ask-only or admin token (keyed with the hash it keeps of it);
/// 401 when no live token has that hint, so a revoked token learns it is revoked before it
/// sends anything.
pub async fn prove(State(shared): State<Arc<Shared>>, Query(query): Query<ChallengeQuery>) -> ApiResult<Json<Proof>> {
    match query.challenge.as_deref() {
        Some(challenge) if crate::proof::is_challenge(challenge) => match query.token.as_deref() {
            None => Ok(Json(Proof { proof: crate::proof::proof(&shared.token, challenge) })),
            Some(hint) => match shared.beckon.tokens().proof_key(hint) {
                Some(key) => Ok(Json(Proof { proof: crate::proof::proof(&key, challenge) })),
                None => Err(ApiError::new(
                    ErrorKind::Unauthorized,
                    "this Beckon has no live token of that hint: the token was revoked, or was made by another Beckon; ask the person for a new one",
                )),
            },
        },
        _ => Err(ApiError::invalid(Problems::one(
            "challenge",
            format!("must be {} random bytes as lowercase hex", crate::proof::CHALLENGE_BYTES),
        ))),
    }
}

/// The OpenAPI document.
pub async fn openapi() -> ApiResult<Json<Value>> {
    Ok(Json(serde_json::from_str(OPENAPI).unwrap_or(Value::Null)))
}
