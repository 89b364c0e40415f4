//! The readers of requests that have no public reader, for the fuzz targets in `fuzz/`: each
//! window command's arguments, the OpenID provider's callback query and the app's token body.
//! Not an API: thin wrappers that call the readers the handlers use (each value read is given
//! back as its `Debug` text, its fields being private), so that what is fuzzed is what runs.

#![doc(hidden)]

use axum::Json;
use axum::extract::Query;
use axum::http::Uri;

use crate::error::ApiResult;
use crate::{app_sign_in, auth, window};

/// The names of the window's commands on a team server.
pub const WINDOW_COMMANDS: &[&str] = beckon_runtime::api::window::WindowCommand::NAMES;

/// A window command's body (`POST /v1/window/{command}`) read as the arguments of the command
/// named `name`, as the route reads it; the command read, written back as JSON.
pub fn window_command(name: &str, bytes: &[u8]) -> ApiResult<serde_json::Value> {
    let command = window::read(name, bytes)?;
    Ok(serde_json::to_value(&command).unwrap_or_default())
}

/// Why a request was refused before its handler ran: the HTTP status and what the body says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The status.
    pub status: u16,
    /// The body's text.
    pub text: String,
}

/// `GET /auth/callback?{query}` read as the handler's extractor reads it; `None` when
/// `/auth/callback?{query}` is not a request target at all (the server refuses such a request
/// before any handler).
pub fn callback_query(query: &str) -> Option<Result<String, Refused>> {
    let uri: Uri = format!("/auth/callback?{query}").parse().ok()?;
    Some(
        Query::<auth::CallbackQuery>::try_from_uri(&uri)
            .map(|Query(query)| format!("{query:?}"))
            .map_err(|rejection| Refused { status: rejection.status().as_u16(), text: rejection.body_text() }),
    )
}

/// `text` as a problem page quotes it (the callback quotes the provider's error this way).
pub fn page_text(text: &str) -> String {
    auth::escape(text)
}

/// The body of `POST /auth/app/token` read as the handler's extractor reads it (once its
/// content type is JSON).
pub fn app_token_body(bytes: &[u8]) -> Result<String, Refused> {
    Json::<app_sign_in::TokenRequest>::from_bytes(bytes)
        .map(|Json(request)| format!("{request:?}"))
        .map_err(|rejection| Refused { status: rejection.status().as_u16(), text: rejection.body_text() })
}
