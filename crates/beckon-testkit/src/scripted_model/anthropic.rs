//! Anthropic's Messages API: a reply as one message, or streamed as server-sent events with a
//! length so the client sees the reply end; and what its requests carry.

use axum::body::Body;
use axum::response::Response;
use serde_json::{Value, json};

use super::turn::Turn;
use super::wire_bodies::{json_response, text_of};

pub(super) fn reply(request: &Value, turn: &Turn, stream: bool) -> Response {
    let model = request["model"].as_str().unwrap_or("claude-sonnet-4-5");
    if stream {
        let mut response = Response::new(Body::from(events(model, turn)));
        response.headers_mut().insert("content-type", "text/event-stream".parse().unwrap());
        response.headers_mut().insert("connection", "close".parse().unwrap());
        response
    } else {
        json_response(message(model, turn))
    }
}

fn usage() -> Value {
    json!({"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

fn block(turn: &Turn) -> (Value, &'static str) {
    match turn {
        Turn::Text(text) => (json!({"type": "text", "text": text}), "end_turn"),
        Turn::Call { id, name, arguments, .. } => {
            (json!({"type": "tool_use", "id": id, "name": name, "input": arguments}), "tool_use")
        }
    }
}

fn message(model: &str, turn: &Turn) -> Value {
    let (content, stop) = block(turn);
    json!({"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": [content],
        "stop_reason": stop, "stop_sequence": null, "usage": usage()})
}

fn events(model: &str, turn: &Turn) -> String {
    let (_, stop) = block(turn);
    let (start, delta) = match turn {
        Turn::Text(text) => (json!({"type": "text", "text": ""}), json!({"type": "text_delta", "text": text})),
        Turn::Call { id, name, arguments, .. } => (
            json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": arguments.to_string()}),
        ),
    };
    let events = [
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_fake", "type": "message",
            "role": "assistant", "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": usage()}}),
        ),
        ("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": start})),
        ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": delta})),
        ("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": 20}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    events.iter().map(|(name, data)| format!("event: {name}\ndata: {data}\n\n")).collect()
}

/// The tool_result blocks of a request's latest message that has any, in order: (tool_use_id,
/// the tool's text).
pub(super) fn tool_results(request: &Value) -> Vec<(String, String)> {
    let is_result = |block: &Value| block["type"] == "tool_result";
    let latest = request["messages"].as_array().and_then(|messages| {
        messages.iter().rev().find(|m| m["content"].as_array().is_some_and(|blocks| blocks.iter().any(is_result)))
    });
    let Some(blocks) = latest.and_then(|m| m["content"].as_array()) else { return Vec::new() };
    blocks
        .iter()
        .filter(|block| is_result(block))
        .map(|block| (block["tool_use_id"].as_str().unwrap_or_default().to_owned(), text_of(&block["content"])))
        .collect()
}

pub(super) fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}
