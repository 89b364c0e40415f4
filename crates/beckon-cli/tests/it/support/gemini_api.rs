//! A scripted Gemini API on loopback, for the real Gemini CLI: it records every
//! `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` and answers each with what the
//! test's script decides from that request (a text, or a function call), as one server-sent
//! event with a length so the client sees the reply end.

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
    /// One function call with this name and these arguments.
    Call { name: String, args: Value },
}

/// Decides the reply to a request body.
pub type Script = Arc<dyn Fn(&Value) -> Turn + Send + Sync>;

struct Shared {
    script: Script,
    requests: Mutex<Vec<Value>>,
}

/// The running fake.
#[derive(Clone)]
pub struct FakeGemini {
    /// `http://127.0.0.1:<port>`, for `GOOGLE_GEMINI_BASE_URL`.
    pub url: String,
    shared: Arc<Shared>,
}

impl FakeGemini {
    pub async fn start(script: Script) -> FakeGemini {
        let shared = Arc::new(Shared { script, requests: Mutex::new(Vec::new()) });
        let app = Router::new().fallback(answer).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        FakeGemini { url, shared }
    }

    /// The bodies of every generation request, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.shared.requests.lock().unwrap().clone()
    }
}

async fn answer(State(shared): State<Arc<Shared>>, uri: Uri, body: Bytes) -> Response {
    let path = uri.path();
    let Some(call) = path.strip_prefix("/v1beta/models/").and_then(|rest| rest.split_once(':')).map(|(_, call)| call)
    else {
        return Response::builder().status(StatusCode::NOT_FOUND).body(Body::empty()).unwrap();
    };
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    if call == "countTokens" {
        return reply("application/json", json!({"totalTokens": 100}).to_string());
    }
    shared.requests.lock().unwrap().push(request.clone());
    let turn = (shared.script)(&request);
    let part = match turn {
        Turn::Text(text) => json!({"text": text}),
        Turn::Call { name, args } => json!({"functionCall": {"name": name, "args": args}}),
    };
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
        "index": 0}], "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 10, "totalTokenCount": 30}});
    match call {
        "streamGenerateContent" => reply("text/event-stream", format!("data: {response}\n\n")),
        _ => reply("application/json", response.to_string()),
    }
}

fn reply(content_type: &str, text: String) -> Response {
    let mut response = Response::new(Body::from(text));
    response.headers_mut().insert("content-type", content_type.parse().unwrap());
    response
}

/// The names of the functions a request offers the model.
pub fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|tool| tool["functionDeclarations"].as_array().into_iter().flatten())
        .filter_map(|declaration| declaration["name"].as_str().map(str::to_owned))
        .collect()
}

/// The function responses of a request's latest turn, in order: (function name, response).
pub fn function_responses(request: &Value) -> Vec<(String, Value)> {
    let Some(latest) = request["contents"].as_array().and_then(|contents| contents.last()) else { return Vec::new() };
    latest["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|part| part.get("functionResponse"))
        .map(|response| (response["name"].as_str().unwrap_or_default().to_owned(), response["response"].clone()))
        .collect()
}

/// The text the person wrote last: the last text part of the latest user turn that has one.
pub fn last_prompt(request: &Value) -> String {
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
