//! Gemini's `generateContent`: a reply as one response, or as one server-sent event with a
//! length so the client sees the reply end; and what its requests carry.

use axum::response::Response;
use serde_json::{Value, json};

use super::turn::Turn;
use super::wire_bodies::typed_response;

pub(super) fn reply(turn: &Turn, stream: bool) -> Response {
    let part = match turn {
        Turn::Text(text) => json!({"text": text}),
        Turn::Call { name, arguments, .. } => json!({"functionCall": {"name": name, "args": arguments}}),
    };
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
        "index": 0}], "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 10, "totalTokenCount": 30}});
    if stream {
        typed_response("text/event-stream", format!("data: {response}\n\n"))
    } else {
        typed_response("application/json", response.to_string())
    }
}

pub(super) fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|tool| tool["functionDeclarations"].as_array().into_iter().flatten())
        .filter_map(|declaration| declaration["name"].as_str().map(str::to_owned))
        .collect()
}

/// The function responses of a request's latest turn, in order: (function name, response).
pub(super) fn function_responses(request: &Value) -> Vec<(String, Value)> {
    let Some(latest) = request["contents"].as_array().and_then(|contents| contents.last()) else { return Vec::new() };
    latest["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|part| part.get("functionResponse"))
        .map(|response| (response["name"].as_str().unwrap_or_default().to_owned(), response["response"].clone()))
        .collect()
}

/// The last text part of the latest user turn that has one.
pub(super) fn last_prompt(request: &Value) -> String {
    let contents = request["contents"].as_array().cloned().unwrap_or_default();
    contents
        .iter()
        .rev()
        .filter(|content| content["role"] == "user")
        .find_map(|content| {
            content["parts"].as_array()?.iter().rev().find_map(|part| part["text"].as_str().map(str::to_owned))
        })
        .unwrap_or_default()
}
