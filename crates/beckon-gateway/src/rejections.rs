//! Requests axum itself turns away before a handler runs — a query string or a path segment
//! that cannot be read (`?wait=soon`, `%FF` in an id), a method a route does not take — get
//! the same `{"error": {kind, message}}` body as every other error instead of axum's plain
//! text, so clients can read every refusal the same way.

use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

use beckon_runtime::api::ErrorKind;

use crate::error::ApiError;

/// The most of a plain-text refusal kept as the message.
const TEXT_MAX_BYTES: usize = 4 * 1024;

/// Rewrites an error response that is neither JSON nor a page meant for a person (the sign-in's,
/// in HTML) as the API's error body, keeping its status (and the `Allow` header of a 405).
pub async fn as_json(method: Method, response: Response) -> Response {
    let status = response.status();
    let is_error = status.is_client_error() || status.is_server_error();
    if !is_error || content_type_is(&response, "application/json") || content_type_is(&response, "text/html") {
        return response;
    }
    let allow = response.headers().get(header::ALLOW).cloned();
    let text = match axum::body::to_bytes(response.into_body(), TEXT_MAX_BYTES).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).trim().to_owned(),
        Err(_) => String::new(),
    };
    let (kind, message) = if status == StatusCode::METHOD_NOT_ALLOWED {
        (ErrorKind::MethodNotAllowed, format!("this route does not take {method}; see /v1/openapi.json"))
    } else if status.is_server_error() {
        (ErrorKind::Internal, text)
    } else if text.is_empty() {
        (ErrorKind::BadRequest, status.canonical_reason().unwrap_or("the request could not be read").to_owned())
    } else {
        (ErrorKind::BadRequest, text)
    };
    let mut json = ApiError::new(kind, message).with_status(status).into_response();
    if let Some(allow) = allow {
        json.headers_mut().insert(header::ALLOW, allow);
    }
    json
}

fn content_type_is(response: &Response, kind: &str) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value: &HeaderValue| value.to_str().ok())
        .is_some_and(|value| value.starts_with(kind))
}
