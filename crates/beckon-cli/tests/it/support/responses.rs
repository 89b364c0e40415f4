//! A scripted OpenAI Responses API on loopback, for the real Codex and Copilot CLIs: it records
//! every `POST /v1/responses` and answers each with what the test's script decides from that
//! request (a text, or one function call), streamed as the full set of server-sent events the
//! OpenAI clients read, ending with `response.completed` and its whole `output`.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use serde_json::{Value, json};

/// What the model says next.
#[derive(Debug, Clone)]
pub enum Turn {
    /// Plain text; the turn ends.
    Text(String),
    /// One function call: its call id, its name (and the namespace it was offered in, for an
    /// MCP tool Codex groups), and its arguments.
    Call { id: String, name: String, namespace: Option<String>, arguments: Value },
}

/// One request as the script sees it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The JSON body.
    pub body: Value,
    /// Whether Codex's automatic reviewer sent it (header `x-openai-subagent: guardian`).
    pub reviewer: bool,
}

/// Decides the reply to a request.
pub type Script = Arc<dyn Fn(&Request) -> Turn + Send + Sync>;

struct Shared {
    script: Script,
    requests: Mutex<Vec<Request>>,
}

/// The running fake.
#[derive(Clone)]
pub struct FakeResponses {
    /// `http://127.0.0.1:<port>/v1`, the base URL the agents take.
    pub url: String,
    shared: Arc<Shared>,
}

impl FakeResponses {
    pub async fn start(script: Script) -> FakeResponses {
        let shared = Arc::new(Shared { script, requests: Mutex::new(Vec::new()) });
        let app = Router::new().fallback(answer).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        FakeResponses { url, shared }
    }

    /// Every `/v1/responses` request, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The output the model got back for `call_id`, once a request carries it.
    pub fn call_output(&self, call_id: &str) -> Option<String> {
        self.requests().iter().find_map(|request| call_output(&request.body, call_id))
    }
}

async fn answer(State(shared): State<Arc<Shared>>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    if uri.path() == "/v1/models" {
        return json_response(json!({"object": "list", "data": [{"id": "fake-model", "object": "model",
            "created": 0, "owned_by": "fake"}]}));
    }
    if uri.path() != "/v1/responses" {
        return Response::builder().status(StatusCode::NOT_FOUND).body(Body::empty()).unwrap();
    }
    let reviewer = headers.get("x-openai-subagent").is_some_and(|v| v.as_bytes() == b"guardian");
    let request = Request { body: serde_json::from_slice(&body).unwrap_or(Value::Null), reviewer };
    shared.requests.lock().unwrap().push(request.clone());
    let turn = (shared.script)(&request);
    let model = request.body["model"].as_str().unwrap_or("fake-model").to_owned();
    let mut response = Response::new(Body::from(stream(&model, &turn)));
    response.headers_mut().insert("content-type", "text/event-stream".parse().unwrap());
    response
}

fn json_response(value: Value) -> Response {
    let mut response = Response::new(Body::from(value.to_string()));
    response.headers_mut().insert("content-type", "application/json".parse().unwrap());
    response
}

fn usage() -> Value {
    json!({"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20,
        "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 120})
}

fn stream(model: &str, turn: &Turn) -> String {
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

/// The output a request's input carries for `call_id`, as text.
pub fn call_output(body: &Value, call_id: &str) -> Option<String> {
    let items = body["input"].as_array()?;
    let item = items
        .iter()
        .find(|item| item["type"].as_str().is_some_and(|t| t.ends_with("call_output")) && item["call_id"] == call_id)?;
    Some(match &item["output"] {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join(""),
        other => other.to_string(),
    })
}

/// Whether a request's input already carries an output for `call_id`.
pub fn has_output(body: &Value, call_id: &str) -> bool {
    call_output(body, call_id).is_some()
}
