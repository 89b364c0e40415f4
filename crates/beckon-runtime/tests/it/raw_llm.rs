//! A byte-level fake LLM server for the provider tests: scripted stream parts, pauses,
//! broken connections, and a record of every request.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};
use axum::response::Response;
use beckon_runtime::providers::TextSink;
use serde_json::Value;
use tokio::sync::Notify;

/// One piece of a scripted reply body.
#[derive(Debug, Clone)]
pub enum Part {
    /// Bytes to send (cut into chunks when the reply is chunked).
    Bytes(Vec<u8>),
    /// Stop until the test releases the stream.
    WaitFor(Arc<Notify>),
    /// Stop for a while.
    Sleep(Duration),
    /// Break the connection.
    Abort,
}

/// A scripted reply.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    parts: Vec<Part>,
    chunks: Option<(usize, Duration)>,
    delay: Duration,
}

impl Reply {
    /// A 200 event stream with `body`.
    pub fn sse(body: impl Into<String>) -> Self {
        Self {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            parts: vec![Part::Bytes(body.into().into_bytes())],
            chunks: None,
            delay: Duration::ZERO,
        }
    }

    /// A reply with `status` and a JSON body.
    pub fn json(status: u16, body: Value) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            parts: vec![Part::Bytes(body.to_string().into_bytes())],
            chunks: None,
            delay: Duration::ZERO,
        }
    }

    /// The same reply with one more header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The same reply with `part` appended to its body.
    pub fn then(mut self, part: Part) -> Self {
        self.parts.push(part);
        self
    }

    /// The same reply, its bytes sent `size` at a time with `pause` between.
    pub fn chunked(mut self, size: usize, pause: Duration) -> Self {
        self.chunks = Some((size, pause));
        self
    }

    /// The same reply, its status and headers sent only after `delay`.
    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `POST`, ….
    pub method: Method,
    /// The path and query.
    pub path: String,
    /// Its headers.
    pub headers: HeaderMap,
    /// Its body as JSON (`Null` when it was not JSON).
    pub body: Value,
}

impl Recorded {
    /// A header's value, when present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
}

#[derive(Debug, Default)]
struct Shared {
    replies: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<Recorded>>,
}

/// A running fake server; it stops with the test's runtime.
#[derive(Debug)]
pub struct FakeLlm {
    url: String,
    shared: Arc<Shared>,
}

impl FakeLlm {
    /// Starts a server on 127.0.0.1 (a free port) that answers requests with `replies` in order.
    pub async fn start(replies: Vec<Reply>) -> Self {
        let shared = Arc::new(Shared { replies: Mutex::new(replies.into()), requests: Mutex::default() });
        let app = Router::new().fallback(answer).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind a loopback port");
        let url = format!("http://{}", listener.local_addr().expect("local address"));
        tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
        Self { url, shared }
    }

    /// Where it listens: `http://127.0.0.1:<port>`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The requests received so far, oldest first.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.requests.lock().expect("requests").clone()
    }

    /// The only request received; fails the test if there were more or none.
    pub fn only_request(&self) -> Recorded {
        let requests = self.requests();
        assert_eq!(requests.len(), 1, "expected exactly one request");
        requests.into_iter().next().expect("one request")
    }
}

async fn answer(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let path = uri.path_and_query().map(ToString::to_string).unwrap_or_default();
    shared.requests.lock().expect("requests").push(Recorded { method, path, headers, body });
    let Some(reply) = shared.replies.lock().expect("replies").pop_front() else {
        let mut response = Response::new(Body::from("the fake server has no reply scripted for this request"));
        *response.status_mut() = StatusCode::IM_A_TEAPOT;
        return response;
    };
    tokio::time::sleep(reply.delay).await;
    let mut response = Response::new(Body::from_stream(body_stream(&reply)));
    *response.status_mut() = StatusCode::from_u16(reply.status).expect("a valid status");
    for (name, value) in &reply.headers {
        response.headers_mut().insert(
            HeaderName::from_bytes(name.as_bytes()).expect("a header name"),
            HeaderValue::from_str(value).expect("a header value"),
        );
    }
    response
}

enum Step {
    Send(Bytes),
    Sleep(Duration),
    WaitFor(Arc<Notify>),
    Abort,
}

fn body_stream(reply: &Reply) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
    let mut steps = VecDeque::new();
    for part in &reply.parts {
        match (part, reply.chunks) {
            (Part::Bytes(bytes), Some((size, pause))) => {
                for chunk in bytes.chunks(size) {
                    steps.push_back(Step::Send(Bytes::copy_from_slice(chunk)));
                    steps.push_back(Step::Sleep(pause));
                }
            }
            (Part::Bytes(bytes), None) => steps.push_back(Step::Send(Bytes::copy_from_slice(bytes))),
            (Part::WaitFor(notify), _) => steps.push_back(Step::WaitFor(notify.clone())),
            (Part::Sleep(pause), _) => steps.push_back(Step::Sleep(*pause)),
            (Part::Abort, _) => steps.push_back(Step::Abort),
        }
    }
    futures_util::stream::unfold(steps, |mut steps| async move {
        loop {
            match steps.pop_front()? {
                Step::Send(bytes) => return Some((Ok(bytes), steps)),
                Step::Sleep(pause) => tokio::time::sleep(pause).await,
                Step::WaitFor(notify) => notify.notified().await,
                Step::Abort => {
                    return Some((Err(std::io::Error::other("the fake server broke the connection")), steps));
                }
            }
        }
    })
}

/// A sink that keeps every piece of text, in order.
#[derive(Debug, Default)]
pub struct Recorder(Mutex<Vec<String>>);

impl Recorder {
    /// The pieces received so far.
    pub fn pieces(&self) -> Vec<String> {
        self.0.lock().expect("pieces").clone()
    }
}

impl TextSink for Recorder {
    fn text(&self, delta: &str) {
        self.0.lock().expect("pieces").push(delta.to_owned());
    }
}

/// A loopback address nothing listens on.
pub async fn closed_port_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind a loopback port");
    let address = listener.local_addr().expect("local address");
    drop(listener);
    format!("http://{address}")
}
