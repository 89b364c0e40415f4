//! A scripted Anthropic Messages API on loopback, for the real Claude Code: it records every
//! request and answers each with what the test's script decides from that request (a text, or
//! a tool call), streamed as server-sent events when asked to stream, with a length so the
//! client sees the reply end.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use serde_json::{Value, json};

/// What the model says next.
#[derive(Debug, Clone)]
pub enum Turn {
    /// Plain text; the turn ends.
    Text(String),
    /// One tool call with this id, tool name and input.
    Tool { id: String, name: String, input: Value },
}

/// Decides the reply to a request body.
pub type Script = Arc<dyn Fn(&Value) -> Turn + Send + Sync>;

struct Shared {
    script: Script,
    requests: Mutex<Vec<Value>>,
    /// How long each reply is held back, as from a slow model.
    delay: Mutex<std::time::Duration>,
}

/// The running fake.
#[derive(Clone)]
pub struct FakeAnthropic {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    shared: Arc<Shared>,
}

impl FakeAnthropic {
    pub async fn start(script: Script) -> FakeAnthropic {
        let shared = Arc::new(Shared { script, requests: Mutex::new(Vec::new()), delay: Mutex::default() });
        let app = Router::new().fallback(answer).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        FakeAnthropic { url, shared }
    }

    /// Holds back each reply from now on for `delay`.
    pub fn set_delay(&self, delay: std::time::Duration) {
        *self.shared.delay.lock().unwrap() = delay;
    }

    /// The bodies of every `/v1/messages` request, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.shared.requests.lock().unwrap().clone()
    }
}

async fn answer(State(shared): State<Arc<Shared>>, uri: Uri, body: Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    if uri.path().ends_with("/count_tokens") {
        return json_response(json!({"input_tokens": 100}));
    }
    if uri.path() != "/v1/messages" {
        return Response::builder().status(StatusCode::NOT_FOUND).body(Body::empty()).unwrap();
    }
    shared.requests.lock().unwrap().push(request.clone());
    let delay = *shared.delay.lock().unwrap();
    tokio::time::sleep(delay).await;
    let turn = (shared.script)(&request);
    let model = request["model"].as_str().unwrap_or("claude-sonnet-4-5").to_owned();
    if request["stream"] == json!(true) {
        let mut response = Response::new(Body::from(stream(&model, &turn)));
        response.headers_mut().insert("content-type", "text/event-stream".parse().unwrap());
        response.headers_mut().insert("connection", "close".parse().unwrap());
        response
    } else {
        json_response(message(&model, &turn))
    }
}

fn json_response(value: Value) -> Response {
    let mut response = Response::new(Body::from(value.to_string()));
    response.headers_mut().insert("content-type", "application/json".parse().unwrap());
    response
}

fn usage() -> Value {
    json!({"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

fn block(turn: &Turn) -> (Value, &'static str) {
    match turn {
        Turn::Text(text) => (json!({"type": "text", "text": text}), "end_turn"),
        Turn::Tool { id, name, input } => {
            (json!({"type": "tool_use", "id": id, "name": name, "input": input}), "tool_use")
        }
    }
}

fn message(model: &str, turn: &Turn) -> Value {
    let (content, stop) = block(turn);
    json!({"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": [content],
        "stop_reason": stop, "stop_sequence": null, "usage": usage()})
}

fn stream(model: &str, turn: &Turn) -> String {
    let (_, stop) = block(turn);
    let (start, delta) = match turn {
        Turn::Text(text) => (json!({"type": "text", "text": ""}), json!({"type": "text_delta", "text": text})),
        Turn::Tool { id, name, input } => (
            json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": input.to_string()}),
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
/// the tool's text). Claude Code may put several results in one message, and reminders after.
pub fn tool_results(request: &Value) -> Vec<(String, String)> {
    let is_result = |block: &Value| block["type"] == "tool_result";
    let latest = request["messages"].as_array().and_then(|messages| {
        messages.iter().rev().find(|m| m["content"].as_array().is_some_and(|blocks| blocks.iter().any(is_result)))
    });
    let Some(blocks) = latest.and_then(|m| m["content"].as_array()) else { return Vec::new() };
    blocks
        .iter()
        .filter(|block| block["type"] == "tool_result")
        .map(|block| {
            let text = match &block["content"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join(""),
                _ => String::new(),
            };
            (block["tool_use_id"].as_str().unwrap_or_default().to_owned(), text)
        })
        .collect()
}

/// The JSON at the start of a tool's text (Claude Code may append a `<system-reminder>`).
pub fn leading_json(text: &str) -> Option<Value> {
    serde_json::Deserializer::from_str(text.trim_start()).into_iter::<Value>().next()?.ok()
}

/// The names of the tools a request offers the model.
pub fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}
