//! A fake LLM provider on loopback that speaks the real wire formats — Anthropic's Messages
//! API and OpenAI's Chat Completions, both streaming over SSE — replies from a queue, and
//! records every request it gets.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::post;
use serde_json::{Value, json};
use tokio::sync::Notify;

/// Which API the fake speaks on this request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    Anthropic,
    OpenAi,
}

/// What the fake answers the next request with.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A streamed reply with text and tool calls (name, input).
    Stream { text: String, tool_calls: Vec<(String, Value)> },
    /// An HTTP error.
    Status { status: u16, body: Value, retry_after: Option<String> },
    /// A stream whose second event is not JSON.
    Malformed,
    /// Accept the request and never answer.
    Hold,
}

impl Reply {
    pub fn text(text: &str) -> Reply {
        Reply::Stream { text: text.into(), tool_calls: vec![] }
    }

    pub fn tools(text: &str, calls: &[(&str, Value)]) -> Reply {
        Reply::Stream {
            text: text.into(),
            tool_calls: calls.iter().map(|(n, v)| ((*n).to_owned(), v.clone())).collect(),
        }
    }
}

/// One request the fake received.
#[derive(Debug, Clone)]
pub struct Received {
    /// When it arrived.
    pub at: std::time::Instant,
    pub wire: Wire,
    pub headers: HeaderMap,
    pub body: Value,
}

#[derive(Default)]
struct Shared {
    replies: Mutex<VecDeque<Reply>>,
    received: Mutex<Vec<Received>>,
    arrived: Notify,
    tool_counter: Mutex<u32>,
    /// Whether to send replies in one piece and record when they were sent.
    timing: std::sync::atomic::AtomicBool,
    /// When each streamed reply's last byte was handed to the connection.
    finished: Arc<Mutex<Vec<std::time::Instant>>>,
}

/// The fake server.
#[derive(Clone)]
pub struct FakeLlm {
    /// Its base URL (`http://127.0.0.1:port`).
    pub url: String,
    shared: Arc<Shared>,
}

// By its address only: what it received is read through its methods.
impl std::fmt::Debug for FakeLlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeLlm").field("url", &self.url).finish_non_exhaustive()
    }
}

impl FakeLlm {
    pub async fn start() -> FakeLlm {
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .route("/v1/messages", post(anthropic))
            .route("/v1/chat/completions", post(openai))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        FakeLlm { url, shared }
    }

    /// Queues the reply to the next request.
    pub fn push(&self, reply: Reply) {
        self.shared.replies.lock().unwrap().push_back(reply);
    }

    /// Every request so far.
    pub fn received(&self) -> Vec<Received> {
        self.shared.received.lock().unwrap().clone()
    }

    /// How many requests arrived so far.
    pub fn received_count(&self) -> usize {
        self.shared.received.lock().unwrap().len()
    }

    /// Sends each reply in one piece and records when (for latency figures).
    pub fn time_replies(&self) {
        self.shared.timing.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// When each streamed reply finished, in order.
    pub fn finished(&self) -> Vec<std::time::Instant> {
        self.shared.finished.lock().unwrap().clone()
    }

    /// Waits until at least `count` requests arrived.
    pub async fn wait_for(&self, count: usize, timeout: Duration) -> Vec<Received> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let arrived = self.shared.arrived.notified();
            // Counted, not copied, while waiting: the server takes the same lock to record a
            // request, and copying a long history would hold it up.
            if self.received_count() >= count {
                return self.received();
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                panic!("expected {count} requests at the fake LLM, got {}", self.received().len());
            }
        }
    }
}

impl Shared {
    /// Where to record reply timings, when timing is on.
    fn timed(&self) -> Option<Arc<Mutex<Vec<std::time::Instant>>>> {
        self.timing.load(std::sync::atomic::Ordering::Relaxed).then(|| self.finished.clone())
    }
}

fn next_reply(shared: &Shared, wire: Wire, headers: HeaderMap, body: Bytes) -> Reply {
    let at = std::time::Instant::now();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    shared.received.lock().unwrap().push(Received { at, wire, headers, body });
    shared.arrived.notify_waiters();
    shared.replies.lock().unwrap().pop_front().unwrap_or_else(|| Reply::text("(no more replies queued)"))
}

fn tool_id(shared: &Shared, wire: Wire) -> String {
    let mut counter = shared.tool_counter.lock().unwrap();
    *counter += 1;
    match wire {
        Wire::Anthropic => format!("toolu_fake_{counter}"),
        Wire::OpenAi => format!("call_fake_{counter}"),
    }
}

fn error_response(status: u16, body: &Value, retry_after: Option<&str>) -> Response {
    let mut response = Response::builder().status(status).header("content-type", "application/json");
    if let Some(retry_after) = retry_after {
        response = response.header("retry-after", retry_after);
    }
    response.body(Body::from(body.to_string())).unwrap()
}

fn sse(chunks: Vec<String>, hold: bool, finished: Option<Arc<Mutex<Vec<std::time::Instant>>>>) -> Response {
    let stream = async_stream(chunks, hold, finished);
    Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(stream))
        .unwrap()
}

fn async_stream(
    chunks: Vec<String>,
    hold: bool,
    finished: Option<Arc<Mutex<Vec<std::time::Instant>>>>,
) -> impl futures_util::Stream<Item = Result<Bytes, Infallible>> {
    // The whole reply goes out as one chunk when timing matters; otherwise in small pieces
    // with tiny pauses, as a real stream arrives.
    let paced = finished.is_none();
    let chunks: Vec<String> = if paced { chunks } else { vec![chunks.concat()] };
    futures_util::stream::unfold((chunks.into_iter(), hold, finished), move |(mut chunks, hold, finished)| async move {
        match chunks.next() {
            Some(chunk) => {
                if paced {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                if let Some(finished) = &finished {
                    finished.lock().unwrap().push(std::time::Instant::now());
                }
                Some((Ok(Bytes::from(chunk)), (chunks, hold, finished)))
            }
            None if hold => {
                std::future::pending::<()>().await;
                None
            }
            None => None,
        }
    })
}

async fn anthropic(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    match next_reply(&shared, Wire::Anthropic, headers, body) {
        Reply::Status { status, body, retry_after } => error_response(status, &body, retry_after.as_deref()),
        Reply::Hold => sse(vec![], true, None),
        Reply::Malformed => sse(
            vec![
                event(
                    "message_start",
                    &json!({"type": "message_start", "message": {"id": "msg_fake", "type": "message", "role": "assistant", "content": [], "model": "fake", "stop_reason": null, "usage": {"input_tokens": 1, "output_tokens": 0}}}),
                ),
                "event: content_block_delta\ndata: {this is not json\n\n".to_owned(),
            ],
            false,
            None,
        ),
        Reply::Stream { text, tool_calls } => {
            let mut chunks = vec![event(
                "message_start",
                &json!({"type": "message_start", "message": {"id": "msg_fake", "type": "message", "role": "assistant", "content": [], "model": "fake", "stop_reason": null, "usage": {"input_tokens": 1, "output_tokens": 0}}}),
            )];
            let mut index = 0;
            if !text.is_empty() {
                chunks.push(event(
                    "content_block_start",
                    &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                ));
                for piece in pieces(&text, 5) {
                    chunks.push(event("content_block_delta", &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}})));
                }
                chunks.push(event("content_block_stop", &json!({"type": "content_block_stop", "index": 0})));
                index = 1;
            }
            for (name, input) in &tool_calls {
                let id = tool_id(&shared, Wire::Anthropic);
                chunks.push(event("content_block_start", &json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})));
                for piece in pieces(&input.to_string(), 7) {
                    chunks.push(event("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}})));
                }
                chunks.push(event("content_block_stop", &json!({"type": "content_block_stop", "index": index})));
                index += 1;
            }
            let stop = if tool_calls.is_empty() { "end_turn" } else { "tool_use" };
            chunks.push(event("message_delta", &json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 3}})));
            chunks.push(event("message_stop", &json!({"type": "message_stop"})));
            sse(chunks, false, shared.timed())
        }
    }
}

async fn openai(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    match next_reply(&shared, Wire::OpenAi, headers, body) {
        Reply::Status { status, body, retry_after } => error_response(status, &body, retry_after.as_deref()),
        Reply::Hold => sse(vec![], true, None),
        Reply::Malformed => sse(
            vec![data(&json!({"choices": [{"index": 0, "delta": {"role": "assistant"}}]})), "data: {oops\n\n".into()],
            false,
            None,
        ),
        Reply::Stream { text, tool_calls } => {
            let mut chunks = vec![data(
                &json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]}),
            )];
            for piece in pieces(&text, 5) {
                chunks.push(data(
                    &json!({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]}),
                ));
            }
            for (i, (name, input)) in tool_calls.iter().enumerate() {
                let id = tool_id(&shared, Wire::OpenAi);
                chunks.push(data(&json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}, "finish_reason": null}]})));
                for piece in pieces(&input.to_string(), 7) {
                    chunks.push(data(&json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": i, "function": {"arguments": piece}}]}, "finish_reason": null}]})));
                }
            }
            let finish = if tool_calls.is_empty() { "stop" } else { "tool_calls" };
            chunks.push(data(&json!({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})));
            chunks.push("data: [DONE]\n\n".into());
            sse(chunks, false, shared.timed())
        }
    }
}

fn event(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

fn data(value: &Value) -> String {
    format!("data: {value}\n\n")
}

/// `text` cut into pieces of about `size` characters.
fn pieces(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}
