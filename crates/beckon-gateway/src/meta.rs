//! `GET /v1/health` and `GET /v1/openapi.json`.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

use crate::error::ApiResult;
use crate::state::Shared;

/// The OpenAPI document describing every route.
pub const OPENAPI: &str = include_str!("openapi.json");

/// Whether Beckon is up, and how many questions wait.
pub async fn health(State(shared): State<Arc<Shared>>) -> ApiResult<Json<Value>> {
    let pending = shared.beckon.pending().await?.len();
    Ok(Json(json!({"status": "ok", "version": env!("CARGO_PKG_VERSION"), "pending": pending})))
}

/// The OpenAPI document.
pub async fn openapi() -> ApiResult<Json<Value>> {
    Ok(Json(serde_json::from_str(OPENAPI).unwrap_or(Value::Null)))
}
