//! The gateway's errors: failures to start, and HTTP errors as
//! `{"error": {"kind", "message", "field"?}}` with the status code that fits.

use std::path::PathBuf;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use beckon_api::views::Refusal;
use beckon_core::Problems;
use beckon_runtime::api::{ErrorBody, ErrorKind};

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
    /// The metrics listener's address (`--metrics-listen`) cannot be had.
    #[error(
        "the metrics cannot listen on {addr}: {detail} (is another program using it? give another --metrics-listen)"
    )]
    MetricsBind {
        /// The address.
        addr: std::net::SocketAddr,
        /// What the system said.
        detail: String,
    },
    /// The TLS certificate or key cannot be served with.
    #[error("TLS: {}: {detail}", path.display())]
    Tls {
        /// The file at fault.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// The team's OpenID provider could not be used: discovery failed, or a sign-in was
    /// refused (a code spent or refused, an ID token not signed by its keys, expired, for
    /// another client or without the sign-in's nonce).
    #[error("the identity provider {issuer}: {detail}")]
    Identity {
        /// The provider's issuer URL.
        issuer: String,
        /// What went wrong.
        detail: String,
    },
    /// The team's OpenID provider has not answered since this server started: its discovery
    /// document is still being tried, so no one can sign in yet.
    #[error(
        "the identity provider {issuer} cannot be reached yet; agents and tokens are served, signing in waits for it"
    )]
    IdentityUnreachable {
        /// The provider's issuer URL.
        issuer: String,
    },
    /// The window's folder (`--ui-dir`) holds no window.
    #[error("the window's folder {}: {detail} (it is `ui/dist` after `npm run build` in ui/)", path.display())]
    Window {
        /// The folder.
        path: PathBuf,
        /// What is wrong with it.
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
    /// An error of `kind`, sent with the status that kind has.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> ApiError {
        ApiError { status: status(kind), body: Box::new(ErrorBody::new(kind, message)), retry_after: None }
    }

    /// The same error sent with `status` instead (a refusal axum made keeps its own).
    pub fn with_status(mut self, status: StatusCode) -> ApiError {
        self.status = status;
        self
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
        ApiError::new(ErrorKind::BadRequest, message)
    }

    /// 422 with every problem and the first one's field.
    pub fn invalid(problems: Problems) -> ApiError {
        ApiError::from(beckon_runtime::Error::InvalidInput(problems))
    }

    /// 429 with `Retry-After: 1`: every place for a kind of open request is taken.
    pub fn busy(message: impl Into<String>) -> ApiError {
        let mut error = ApiError::new(ErrorKind::TooManyOpen, message);
        error.retry_after = Some(1);
        error
    }

    /// 429 with `Retry-After`.
    pub fn too_many(retry_after_seconds: u64) -> ApiError {
        let mut error =
            ApiError::new(ErrorKind::RateLimited, format!("too many writes; retry after {retry_after_seconds} s"));
        error.retry_after = Some(retry_after_seconds);
        error
    }
}

impl From<beckon_runtime::Error> for ApiError {
    fn from(err: beckon_runtime::Error) -> ApiError {
        let body = ErrorBody::from(&err);
        let status = status(body.kind);
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(%err, "gateway request failed");
        }
        ApiError { status, body: Box::new(body), retry_after: None }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, axum::Json(Refusal { error: *self.body })).into_response();
        if let Some(seconds) = self.retry_after
            && let Ok(value) = HeaderValue::from_str(&seconds.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response
    }
}

/// The HTTP status each kind of error is sent with.
pub fn status(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::AlreadyResolved | ErrorKind::WrongState => StatusCode::CONFLICT,
        ErrorKind::PersonOnly | ErrorKind::Forbidden => StatusCode::FORBIDDEN,
        ErrorKind::InvalidAnswer | ErrorKind::InvalidInput => StatusCode::UNPROCESSABLE_ENTITY,
        ErrorKind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorKind::BadRequest => StatusCode::BAD_REQUEST,
        ErrorKind::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        ErrorKind::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorKind::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorKind::BodyTimeout => StatusCode::REQUEST_TIMEOUT,
        ErrorKind::TooManyOpen | ErrorKind::RateLimited => StatusCode::TOO_MANY_REQUESTS,
    }
}

/// Results of handlers.
pub type ApiResult<T> = Result<T, ApiError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_document_lists_every_error_kind() {
        let doc: serde_json::Value = serde_json::from_str(crate::meta::OPENAPI).unwrap();
        let listed = doc.pointer(
            "/components/responses/Error/content/application~1json/schema/properties/error/properties/kind/enum",
        );
        let names: Vec<&str> = ErrorKind::ALL.iter().map(|kind| kind.as_str()).collect();
        assert_eq!(listed, Some(&serde_json::json!(names)), "openapi.json's error kinds");
    }

    #[test]
    fn a_runtime_error_is_sent_with_its_kinds_status() {
        let error = ApiError::from(beckon_runtime::Error::PersonOnly("only the person".into()));
        assert_eq!((error.status(), error.body().kind), (StatusCode::FORBIDDEN, ErrorKind::PersonOnly));
    }
}
