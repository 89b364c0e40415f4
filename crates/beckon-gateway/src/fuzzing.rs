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

/// The arguments of a window command (`POST /v1/window/{command}`), by their type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowArgs {
    /// None: `bootstrap`, `metrics`, `paired_channels`.
    Nothing,
    /// `list_sessions`.
    ListSessions,
    /// `get_session`, `cancel`.
    OfSession,
    /// `get_question`, `answer`, `decline`.
    OfQuestion,
    /// `answer_batch`.
    AnswerBatch,
    /// `pair_channel`, `unpair_channel`.
    OfChannel,
}

impl WindowArgs {
    /// Every argument type.
    pub const ALL: [WindowArgs; 6] = [
        WindowArgs::Nothing,
        WindowArgs::ListSessions,
        WindowArgs::OfSession,
        WindowArgs::OfQuestion,
        WindowArgs::AnswerBatch,
        WindowArgs::OfChannel,
    ];
}

/// A window command's body read as `kind`'s arguments, as the command reads it.
pub fn window_args(kind: WindowArgs, bytes: &[u8]) -> ApiResult<String> {
    fn read<T: std::fmt::Debug + serde::de::DeserializeOwned>(bytes: &[u8]) -> ApiResult<String> {
        window::args::<T>(bytes).map(|args| format!("{args:?}"))
    }
    match kind {
        WindowArgs::Nothing => read::<window::Nothing>(bytes),
        WindowArgs::ListSessions => read::<window::ListSessions>(bytes),
        WindowArgs::OfSession => read::<window::OfSession>(bytes),
        WindowArgs::OfQuestion => read::<window::OfQuestion>(bytes),
        WindowArgs::AnswerBatch => read::<window::AnswerBatch>(bytes),
        WindowArgs::OfChannel => read::<window::OfChannel>(bytes),
    }
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
