//! The gateway's errors: failures to start, and HTTP errors as
//! `{"error": {"kind", "message", "field"?}}` with the status code that fits.

use std::path::PathBuf;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use beckon_core::Problems;
use beckon_runtime::api::ErrorBody;
use serde_json::json;

/// Why the gateway could not start. The app keeps running without it.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The port is taken.
    #[error(
        "the gateway cannot listen on 127.0.0.1:{port}: {detail} (is another program using it? set another port in Beckon's settings or with --port)"
    )]
    Bind {
        /// The port.
        port: u16,
        /// What the system said.
        detail: String,
    },
    /// `gateway.json` could not be written.
    #[error("cannot write {}: {detail}", path.display())]
    Discovery {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
}

/// An HTTP error response.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    body: Box<ErrorBody>,
    retry_after: Option<u64>,
}

impl ApiError {
    /// An error with a status, kind and message.
    pub fn new(status: StatusCode, kind: &str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            body: Box::new(ErrorBody {
                kind: kind.into(),
                message: message.into(),
                field: None,
                problems: vec![],
                winner: None,
            }),
            retry_after: None,
        }
    }

    /// The HTTP status it is sent with.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The `error` object it is sent as.
    pub fn body(&self) -> &ErrorBody {
        &self.body
    }

    /// 400: the request could not be read.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// 422 with every problem and the first one's field.
    pub fn invalid(problems: Problems) -> ApiError {
        ApiError::from(beckon_runtime::Error::InvalidInput(problems))
    }

    /// 429 with `Retry-After: 1`: every place for a kind of open request is taken.
    pub fn busy(message: impl Into<String>) -> ApiError {
        let mut error = ApiError::new(StatusCode::TOO_MANY_REQUESTS, "too_many_open", message);
        error.retry_after = Some(1);
        error
    }

    /// 429 with `Retry-After`.
    pub fn too_many(retry_after_seconds: u64) -> ApiError {
        let mut error = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!("too many writes; retry after {retry_after_seconds} s"),
        );
        error.retry_after = Some(retry_after_seconds);
        error
    }
}

impl From<beckon_runtime::Error> for ApiError {
    fn from(err: beckon_runtime::Error) -> ApiError {
        let body = ErrorBody::from(&err);
        let status = match body.kind.as_str() {
            "not_found" => StatusCode::NOT_FOUND,
            "already_resolved" | "wrong_state" => StatusCode::CONFLICT,
            "person_only" => StatusCode::FORBIDDEN,
            "invalid_answer" | "invalid_input" => StatusCode::UNPROCESSABLE_ENTITY,
            "unavailable" => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(%err, "gateway request failed");
        }
        ApiError { status, body: Box::new(body), retry_after: None }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, axum::Json(json!({ "error": self.body }))).into_response();
        if let Some(seconds) = self.retry_after
            && let Ok(value) = HeaderValue::from_str(&seconds.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response
    }
}

/// Results of handlers.
pub type ApiResult<T> = Result<T, ApiError>;
