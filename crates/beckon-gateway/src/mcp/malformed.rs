//! A POST to `/mcp` whose JSON body cannot be read gets a JSON-RPC error — `-32700` for a body
//! that cannot be read as JSON, `-32600` for JSON that is not a JSON-RPC message — with 400, as the MCP
//! transport asks, instead of the SDK's plain-text 415.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use rmcp::model::ClientJsonRpcMessage;
use serde_json::json;

/// JSON-RPC's code for a body that is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's code for JSON that is not a request, notification or response.
pub const INVALID_REQUEST: i64 = -32600;

/// Rewrites the SDK's refusal of an unreadable JSON body. The guard has already read the body
/// whole and bounded it, so keeping a copy costs a reference count.
pub async fn as_json_rpc_error(request: Request, next: Next) -> Response {
    if request.method() != Method::POST || !declares_json(request.headers()) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return next.run(Request::from_parts(parts, Body::empty())).await;
    };
    let response = next.run(Request::from_parts(parts, Body::from(bytes.clone()))).await;
    // With a JSON content type, the SDK's only 415 is a body it could not deserialize.
    if response.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return response;
    }
    let (code, message) = match classify(&bytes) {
        Some(error) => error,
        None => return response,
    };
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The JSON-RPC error for a body the SDK refused, or `None` if it reads as a message after all.
fn classify(bytes: &[u8]) -> Option<(i64, String)> {
    // Read as a value, so that nesting too deep to read counts as unreadable JSON.
    if let Err(err) = serde_json::from_slice::<serde_json::Value>(bytes) {
        return Some((PARSE_ERROR, format!("Parse error: the body cannot be read as JSON ({err})")));
    }
    match serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        Ok(_) => None,
        Err(err) => Some((
            INVALID_REQUEST,
            format!("Invalid Request: the body is JSON but not a JSON-RPC request, notification or response ({err})"),
        )),
    }
}

/// Whether the request says its body is JSON, the way the SDK reads `Content-Type`.
fn declares_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_not_json_are_a_parse_error() {
        for body in [&b"\xff\xfe\xfd"[..], b"", b"{", b"[1,]"] {
            let (code, message) = classify(body).unwrap();
            assert_eq!(code, PARSE_ERROR, "{body:?}");
            assert!(message.starts_with("Parse error"), "{message}");
        }
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let (code, message) = classify(deep.as_bytes()).unwrap();
        assert_eq!(code, PARSE_ERROR);
        assert!(message.contains("recursion limit exceeded"), "{message}");
    }

    #[test]
    fn json_that_is_not_a_message_is_an_invalid_request() {
        for body in [&br#"{"hello": 1}"#[..], b"[]", b"42", br#"{"jsonrpc": "2.0"}"#] {
            let (code, _) = classify(body).unwrap();
            assert_eq!(code, INVALID_REQUEST, "{}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn a_real_message_is_left_to_the_sdk() {
        let ping = br#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#;
        assert_eq!(classify(ping), None);
    }

    #[test]
    fn json_content_types_are_read_like_the_sdk_does() {
        let with = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(value));
            declares_json(&headers)
        };
        assert!(with("application/json"));
        assert!(with("Application/JSON; charset=utf-8"));
        assert!(!with("text/plain"));
        assert!(!with("application/json-seq"));
        assert!(!declares_json(&HeaderMap::new()));
    }
}
