//! What every format's replies are made of: a body with its content type, and a tool's text
//! read from the shapes the formats carry it in.

use axum::body::Body;
use axum::response::Response;
use serde_json::Value;

pub(super) fn json_response(value: Value) -> Response {
    typed_response("application/json", value.to_string())
}

pub(super) fn typed_response(content_type: &str, text: String) -> Response {
    let mut response = Response::new(Body::from(text));
    response.headers_mut().insert("content-type", content_type.parse().unwrap());
    response
}

/// A tool's text as the formats carry it: a string, or parts with text.
pub(super) fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join(""),
        _ => String::new(),
    }
}
