//! OpenAI's Chat Completions: a reply as one completion, or streamed as server-sent
//! `chat.completion.chunk` events ending in `[DONE]`; and what its requests carry.

use axum::response::Response;
use serde_json::{Value, json};

use super::turn::Turn;
use super::wire_bodies::{text_of, typed_response};

pub(super) fn reply(request: &Value, turn: &Turn, stream: bool) -> Response {
    let model = request["model"].as_str().unwrap_or("fake-model");
    if stream {
        typed_response("text/event-stream", chunks(model, turn))
    } else {
        typed_response("application/json", completion(model, turn).to_string())
    }
}

fn usage() -> Value {
    json!({"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120})
}

fn chunk(model: &str, delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

fn chunks(model: &str, turn: &Turn) -> String {
    let mut chunks = match turn {
        Turn::Text(text) => vec![
            chunk(model, json!({"role": "assistant", "content": text}), None),
            chunk(model, json!({}), Some("stop")),
        ],
        Turn::Call { id, name, arguments, .. } => vec![
            chunk(
                model,
                json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": id,
                    "type": "function", "function": {"name": name, "arguments": ""}}]}),
                None,
            ),
            chunk(model, json!({"tool_calls": [{"index": 0, "function": {"arguments": arguments.to_string()}}]}), None),
            chunk(model, json!({}), Some("tool_calls")),
        ],
    };
    chunks.push(json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": model,
        "choices": [], "usage": usage()}));
    let mut out: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    out.push_str("data: [DONE]\n\n");
    out
}

fn completion(model: &str, turn: &Turn) -> Value {
    let (message, finish) = match turn {
        Turn::Text(text) => (json!({"role": "assistant", "content": text}), "stop"),
        Turn::Call { id, name, arguments, .. } => (
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()}}]}),
            "tool_calls",
        ),
    };
    json!({"id": "chatcmpl-fake", "object": "chat.completion", "created": 1, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage()})
}

/// The `role: "tool"` messages of a request, in order: (tool_call_id, the tool's text).
pub(super) fn tool_results(request: &Value) -> Vec<(String, String)> {
    let Some(messages) = request["messages"].as_array() else { return Vec::new() };
    messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| (m["tool_call_id"].as_str().unwrap_or_default().to_owned(), text_of(&m["content"])))
        .collect()
}

pub(super) fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["function"]["name"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}
