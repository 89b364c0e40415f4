//! A scripted OpenAI Chat Completions API on loopback, for agents that speak it (OpenCode's
//! OpenAI-compatible provider): it records every request and answers each with what the test's
//! script decides from that request (a text, or a tool call), streamed as server-sent
//! `chat.completion.chunk` events ending in `[DONE]` when asked to stream.

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
    /// One tool call with this id, function name and arguments.
    Tool { id: String, name: String, arguments: Value },
}

/// Decides the reply to a request body.
pub type Script = Arc<dyn Fn(&Value) -> Turn + Send + Sync>;

struct Shared {
    script: Script,
    requests: Mutex<Vec<Value>>,
}

/// The running fake.
#[derive(Clone)]
pub struct FakeChat {
    /// `http://127.0.0.1:<port>/v1`, the base URL a client is given.
    pub base_url: String,
    shared: Arc<Shared>,
}

impl FakeChat {
    pub async fn start(script: Script) -> FakeChat {
        let shared = Arc::new(Shared { script, requests: Mutex::new(Vec::new()) });
        let app = Router::new().fallback(answer).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        FakeChat { base_url, shared }
    }

    /// The bodies of every `/v1/chat/completions` request, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The text of the tool result the model got for the call `id`, once it got one.
    pub fn tool_result(&self, id: &str) -> Option<String> {
        self.requests().iter().flat_map(tool_results).find(|(call, _)| call == id).map(|(_, text)| text)
    }
}

async fn answer(State(shared): State<Arc<Shared>>, uri: Uri, body: Bytes) -> Response {
    if uri.path() != "/v1/chat/completions" {
        return Response::builder().status(StatusCode::NOT_FOUND).body(Body::empty()).unwrap();
    }
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    shared.requests.lock().unwrap().push(request.clone());
    let turn = (shared.script)(&request);
    let model = request["model"].as_str().unwrap_or("fake-model").to_owned();
    let (body, kind) = if request["stream"] == json!(true) {
        (stream(&model, &turn), "text/event-stream")
    } else {
        (completion(&model, &turn).to_string(), "application/json")
    };
    let mut response = Response::new(Body::from(body));
    response.headers_mut().insert("content-type", kind.parse().unwrap());
    response
}

fn usage() -> Value {
    json!({"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120})
}

fn chunk(model: &str, delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

fn stream(model: &str, turn: &Turn) -> String {
    let mut chunks = match turn {
        Turn::Text(text) => vec![
            chunk(model, json!({"role": "assistant", "content": text}), None),
            chunk(model, json!({}), Some("stop")),
        ],
        Turn::Tool { id, name, arguments } => vec![
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
        Turn::Tool { id, name, arguments } => (
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()}}]}),
            "tool_calls",
        ),
    };
    json!({"id": "chatcmpl-fake", "object": "chat.completion", "created": 1, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage()})
}

/// The `role: "tool"` messages of a request, in order: (tool_call_id, the tool's text).
pub fn tool_results(request: &Value) -> Vec<(String, String)> {
    let Some(messages) = request["messages"].as_array() else { return Vec::new() };
    messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            let text = match &m["content"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join(""),
                _ => String::new(),
            };
            (m["tool_call_id"].as_str().unwrap_or_default().to_owned(), text)
        })
        .collect()
}

/// The names of the tools a request offers the model.
pub fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["function"]["name"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}
