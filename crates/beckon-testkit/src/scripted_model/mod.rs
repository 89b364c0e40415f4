//! A scripted model on loopback that speaks the four wire formats agents' CLIs use: Anthropic's
//! Messages API (Claude Code), OpenAI's Chat Completions (OpenCode), OpenAI's Responses API
//! (Codex, Copilot) and Gemini's `generateContent` (Gemini CLI). One script decides each reply
//! from the request (a text, or one tool call) and the model answers in the format the request
//! arrived in, streamed as server-sent events when the format streams; it records every
//! generation request.
//!
//! The paths it answers, by format:
//!
//! - Anthropic: `POST /v1/messages` (and `/v1/messages/count_tokens`);
//! - Chat Completions: `POST /v1/chat/completions`;
//! - Responses: `POST /v1/responses` (and `GET /v1/models`);
//! - Gemini: `POST /v1beta/models/<model>:streamGenerateContent` or `:generateContent` (and
//!   `:countTokens`).
//!
//! Anything else is 404.

mod anthropic;
mod chat_completions;
mod gemini;
mod responses;
mod turn;
mod wire_bodies;

pub use turn::Turn;
use wire_bodies::json_response;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use serde_json::{Value, json};

/// The wire format a request arrived in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// Anthropic's Messages API.
    Anthropic,
    /// OpenAI's Chat Completions.
    ChatCompletions,
    /// OpenAI's Responses API.
    Responses,
    /// Gemini's `generateContent` and `streamGenerateContent`.
    Gemini,
}

/// One generation request as the script sees it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The format it arrived in.
    pub wire: Wire,
    /// The JSON body.
    pub body: Value,
    /// Whether Codex's automatic reviewer sent it (header `x-openai-subagent: guardian`).
    pub reviewer: bool,
}

impl Request {
    /// The names of the tools the request offers the model (in the Responses API, namespaced
    /// tools as `<namespace>.<name>`).
    pub fn tool_names(&self) -> Vec<String> {
        match self.wire {
            Wire::Anthropic => anthropic::tool_names(&self.body),
            Wire::ChatCompletions => chat_completions::tool_names(&self.body),
            Wire::Responses => responses::tool_names(&self.body),
            Wire::Gemini => gemini::tool_names(&self.body),
        }
    }

    /// The tool results the request carries, in order: (the call's id, the tool's text).
    ///
    /// As each format carries them: Anthropic's are the `tool_result` blocks of the latest
    /// message that has any (Claude Code may put several in one message, and reminders after);
    /// Chat Completions' every `role: "tool"` message; the Responses API's every
    /// `*call_output` item; Gemini's the function responses of the latest turn, by function
    /// name (its calls carry no id), the response as JSON text.
    pub fn tool_results(&self) -> Vec<(String, String)> {
        match self.wire {
            Wire::Anthropic => anthropic::tool_results(&self.body),
            Wire::ChatCompletions => chat_completions::tool_results(&self.body),
            Wire::Responses => responses::tool_results(&self.body),
            Wire::Gemini => gemini::function_responses(&self.body)
                .into_iter()
                .map(|(name, value)| (name, value.to_string()))
                .collect(),
        }
    }

    /// The text of the result the request carries for the call `id`, if any.
    pub fn tool_result(&self, id: &str) -> Option<String> {
        self.tool_results().into_iter().find(|(call, _)| call == id).map(|(_, text)| text)
    }

    /// Gemini's function responses of the latest turn, in order: (function name, response).
    pub fn function_responses(&self) -> Vec<(String, Value)> {
        gemini::function_responses(&self.body)
    }

    /// The text the person wrote last, in a Gemini request: the last text part of the latest
    /// user turn that has one.
    pub fn last_prompt(&self) -> String {
        gemini::last_prompt(&self.body)
    }
}

/// The JSON at the start of a tool's text (Claude Code may append a `<system-reminder>`).
pub fn leading_json(text: &str) -> Option<Value> {
    serde_json::Deserializer::from_str(text.trim_start()).into_iter::<Value>().next()?.ok()
}

/// Decides the reply to a request.
pub type Script = Arc<dyn Fn(&Request) -> Turn + Send + Sync>;

struct Shared {
    script: Script,
    requests: Mutex<Vec<Request>>,
    /// How long each reply is held back, as from a slow model.
    delay: Mutex<Duration>,
}

/// The running model.
#[derive(Clone)]
pub struct ScriptedModel {
    /// `http://127.0.0.1:<port>`: the base URL for Anthropic's and Gemini's clients.
    pub url: String,
    shared: Arc<Shared>,
}

// By its address only: what it received is read through its methods.
impl std::fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedModel").field("url", &self.url).finish_non_exhaustive()
    }
}

impl ScriptedModel {
    /// Starts it on a free port, answering as `script` decides.
    pub async fn start(script: Script) -> ScriptedModel {
        let shared = Arc::new(Shared { script, requests: Mutex::new(Vec::new()), delay: Mutex::default() });
        let app = Router::new().fallback(answer).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        ScriptedModel { url, shared }
    }

    /// `http://127.0.0.1:<port>/v1`: the base URL for OpenAI's clients (Chat Completions and
    /// the Responses API).
    pub fn v1_url(&self) -> String {
        format!("{}/v1", self.url)
    }

    /// Holds back each reply from now on for `delay`.
    pub fn set_delay(&self, delay: Duration) {
        *self.shared.delay.lock().unwrap() = delay;
    }

    /// Every generation request, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The text of the result the model got for the call `id`, once a request carried it.
    pub fn tool_result(&self, id: &str) -> Option<String> {
        self.requests().iter().find_map(|request| request.tool_result(id))
    }
}

/// Which format a path speaks, and whether it asks for a generation (rather than a count of
/// tokens or the list of models).
enum Route {
    Generate { wire: Wire, stream: Option<bool> },
    CountTokens(Wire),
    Models,
}

fn route(path: &str) -> Option<Route> {
    match path {
        "/v1/messages" => Some(Route::Generate { wire: Wire::Anthropic, stream: None }),
        "/v1/chat/completions" => Some(Route::Generate { wire: Wire::ChatCompletions, stream: None }),
        "/v1/responses" => Some(Route::Generate { wire: Wire::Responses, stream: Some(true) }),
        "/v1/models" => Some(Route::Models),
        _ if path.ends_with("/count_tokens") => Some(Route::CountTokens(Wire::Anthropic)),
        _ => {
            let (_, call) = path.strip_prefix("/v1beta/models/")?.split_once(':')?;
            match call {
                "countTokens" => Some(Route::CountTokens(Wire::Gemini)),
                "streamGenerateContent" => Some(Route::Generate { wire: Wire::Gemini, stream: Some(true) }),
                _ => Some(Route::Generate { wire: Wire::Gemini, stream: Some(false) }),
            }
        }
    }
}

async fn answer(State(shared): State<Arc<Shared>>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let Some(route) = route(uri.path()) else {
        return Response::builder().status(StatusCode::NOT_FOUND).body(Body::empty()).unwrap();
    };
    let (wire, stream) = match route {
        Route::Models => return responses::models(),
        Route::CountTokens(Wire::Gemini) => return json_response(json!({"totalTokens": 100})),
        Route::CountTokens(_) => return json_response(json!({"input_tokens": 100})),
        Route::Generate { wire, stream } => (wire, stream),
    };
    let reviewer = headers.get("x-openai-subagent").is_some_and(|v| v.as_bytes() == b"guardian");
    let request = Request { wire, body: serde_json::from_slice(&body).unwrap_or(Value::Null), reviewer };
    shared.requests.lock().unwrap().push(request.clone());
    let delay = *shared.delay.lock().unwrap();
    tokio::time::sleep(delay).await;
    let turn = (shared.script)(&request);
    let stream = stream.unwrap_or(request.body["stream"] == json!(true));
    match wire {
        Wire::Anthropic => anthropic::reply(&request.body, &turn, stream),
        Wire::ChatCompletions => chat_completions::reply(&request.body, &turn, stream),
        Wire::Responses => responses::reply(&request.body, &turn),
        Wire::Gemini => gemini::reply(&turn, stream),
    }
}
