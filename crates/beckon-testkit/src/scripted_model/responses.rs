//! OpenAI's Responses API: a reply streamed as the full set of server-sent events the OpenAI
//! clients read, ending with `response.completed` and its whole `output`; the model list; and
//! what its requests carry.

use axum::response::Response;
use serde_json::{Value, json};

use super::turn::Turn;
use super::wire_bodies::{json_response, typed_response};

pub(super) fn models() -> Response {
    json_response(json!({"object": "list", "data": [{"id": "fake-model", "object": "model",
        "created": 0, "owned_by": "fake"}]}))
}

pub(super) fn reply(request: &Value, turn: &Turn) -> Response {
    let model = request["model"].as_str().unwrap_or("fake-model");
    typed_response("text/event-stream", events(model, turn))
}

fn usage() -> Value {
    json!({"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20,
        "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 120})
}

fn events(model: &str, turn: &Turn) -> String {
    let response = |status: &str, output: Value| {
        json!({"id": "resp_fake", "object": "response", "created_at": 0, "status": status, "model": model,
            "output": output, "usage": if status == "completed" { usage() } else { Value::Null }})
    };
    let mut events = vec![
        json!({"type": "response.created", "response": response("in_progress", json!([]))}),
        json!({"type": "response.in_progress", "response": response("in_progress", json!([]))}),
    ];
    let item = match turn {
        Turn::Text(text) => {
            let part = json!({"type": "output_text", "text": text, "annotations": []});
            let empty = json!({"type": "output_text", "text": "", "annotations": []});
            let done = json!({"type": "message", "id": "msg_fake", "role": "assistant", "status": "completed",
                "content": [part]});
            let item_id = "msg_fake";
            events.extend([
                json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "message",
                    "id": item_id, "role": "assistant", "status": "in_progress", "content": []}}),
                json!({"type": "response.content_part.added", "item_id": item_id, "output_index": 0,
                    "content_index": 0, "part": empty}),
                json!({"type": "response.output_text.delta", "item_id": item_id, "output_index": 0,
                    "content_index": 0, "delta": text}),
                json!({"type": "response.output_text.done", "item_id": item_id, "output_index": 0,
                    "content_index": 0, "text": text}),
                json!({"type": "response.content_part.done", "item_id": item_id, "output_index": 0,
                    "content_index": 0, "part": part}),
            ]);
            done
        }
        Turn::Call { id, name, namespace, arguments } => {
            let arguments = arguments.to_string();
            let mut started = json!({"type": "function_call", "id": "fc_fake", "call_id": id, "name": name,
                "arguments": "", "status": "in_progress"});
            if let Some(namespace) = namespace {
                started["namespace"] = json!(namespace);
            }
            let mut done = started.clone();
            done["arguments"] = json!(arguments);
            done["status"] = json!("completed");
            events.extend([
                json!({"type": "response.output_item.added", "output_index": 0, "item": started}),
                json!({"type": "response.function_call_arguments.delta", "item_id": "fc_fake", "output_index": 0,
                    "delta": arguments}),
                json!({"type": "response.function_call_arguments.done", "item_id": "fc_fake", "output_index": 0,
                    "arguments": arguments}),
            ]);
            done
        }
    };
    events.push(json!({"type": "response.output_item.done", "output_index": 0, "item": item}));
    events.push(json!({"type": "response.completed", "response": response("completed", json!([item]))}));
    events
        .into_iter()
        .enumerate()
        .map(|(number, mut event)| {
            event["sequence_number"] = json!(number);
            format!("event: {}\ndata: {event}\n\n", event["type"].as_str().unwrap())
        })
        .collect()
}

/// The `*call_output` items of a request's input, in order: (call_id, the output as text).
pub(super) fn tool_results(request: &Value) -> Vec<(String, String)> {
    let items = request["input"].as_array().into_iter().flatten();
    items
        .filter(|item| item["type"].as_str().is_some_and(|t| t.ends_with("call_output")))
        .map(|item| {
            let text = match &item["output"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join(""),
                other => other.to_string(),
            };
            (item["call_id"].as_str().unwrap_or_default().to_owned(), text)
        })
        .collect()
}

/// Every tool name a request offers, namespaced tools as `<namespace>.<name>`.
pub(super) fn tool_names(request: &Value) -> Vec<String> {
    fn collect(tools: &Value, prefix: &str, names: &mut Vec<String>) {
        for tool in tools.as_array().into_iter().flatten() {
            let name = tool["name"].as_str().unwrap_or_default();
            if tool["type"] == "namespace" {
                collect(&tool["tools"], &format!("{prefix}{name}."), names);
            } else {
                names.push(format!("{prefix}{name}"));
            }
        }
    }
    let mut names = Vec::new();
    collect(&request["tools"], "", &mut names);
    names
}
