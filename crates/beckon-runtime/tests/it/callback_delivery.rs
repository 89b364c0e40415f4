//! Callback delivery against real loopback receivers: a receiver that accepts connections and
//! never answers does not hold up callbacks to a healthy one, gets no more than its share of
//! connections, and a receiver's redirect is never followed. A server facing a network refuses
//! receivers at loopback and private addresses, by address or by name, when asked and at
//! delivery.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::post;
use beckon_core::QuestionRequest;
use beckon_runtime::callbacks::CallbackDestinations;
use beckon_runtime::{Beckon, Error, ExternalAsk, RuntimeConfig};
use beckon_store::Store;
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

use crate::support::*;

/// A receiver that accepts every connection, reads what comes, and never answers.
#[derive(Clone, Default)]
struct Silent {
    accepted: Arc<AtomicUsize>,
    closed: Arc<AtomicUsize>,
}

impl Silent {
    async fn start() -> (String, Silent) {
        let silent = Silent::default();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let counts = silent.clone();
        tokio::spawn(async move {
            loop {
                let (mut stream, _) = listener.accept().await.unwrap();
                counts.accepted.fetch_add(1, Ordering::SeqCst);
                let closed = counts.closed.clone();
                tokio::spawn(async move {
                    let mut buffer = [0u8; 4096];
                    while matches!(stream.read(&mut buffer).await, Ok(n) if n > 0) {}
                    closed.fetch_add(1, Ordering::SeqCst);
                });
            }
        });
        (url, silent)
    }

    /// (accepted, closed) now.
    fn counts(&self) -> (usize, usize) {
        (self.accepted.load(Ordering::SeqCst), self.closed.load(Ordering::SeqCst))
    }
}

/// A body received, with a [`Silent`] receiver's (accepted, closed) counts at that moment.
type Arrival = (Value, (usize, usize));

/// A receiver that answers 200 and records each body as an [`Arrival`].
#[derive(Clone)]
struct Healthy {
    silent: Silent,
    received: Arc<Mutex<Vec<Arrival>>>,
}

async fn healthy_receive(State(healthy): State<Healthy>, body: Bytes) -> StatusCode {
    let counts = healthy.silent.counts();
    healthy.received.lock().unwrap().push((serde_json::from_slice(&body).unwrap(), counts));
    StatusCode::OK
}

async fn healthy(silent: &Silent) -> (String, Healthy) {
    let healthy = Healthy { silent: silent.clone(), received: Arc::default() };
    let app = Router::new().route("/hook", post(healthy_receive)).with_state(healthy.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, healthy)
}

async fn ask(beckon: &Beckon, callback_url: &str) -> String {
    let request = QuestionRequest::parse(&json!({"questions": [{"question": "Deploy to prod?", "header": "Deploy",
        "options": [{"label": "Yes"}, {"label": "No"}]}]}))
    .unwrap();
    let ask = ExternalAsk {
        agent: "ci-bot".into(),
        request: Some(request),
        callback_url: Some(callback_url.into()),
        ..ExternalAsk::default()
    };
    beckon.ask_external(ask).await.unwrap().request_id.to_string()
}

/// Waits (at most [`PATIENCE`]) until `done` holds.
async fn until(what: &str, done: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !done() {
        assert!(tokio::time::Instant::now() < deadline, "{what} did not happen within {PATIENCE:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_that_never_answers_does_not_hold_up_a_healthy_one() {
    let dir = tempfile::tempdir().unwrap();
    let (dead_url, dead) = Silent::start().await;
    let (healthy_url, healthy) = healthy(&dead).await;
    let (beckon, _) = start(dir.path()).await;

    // More callbacks to the silent receiver than one host may have in flight.
    for _ in 0..6 {
        ask(&beckon, &dead_url).await;
    }
    until("four connections to the silent receiver", || dead.counts().0 >= 4).await;
    let request_id = ask(&beckon, &healthy_url).await;
    until("the healthy receiver's callback", || !healthy.received.lock().unwrap().is_empty()).await;

    let (body, (accepted, closed)) = healthy.received.lock().unwrap()[0].clone();
    assert_eq!(body["request_id"], request_id);
    assert_eq!(closed, 0, "the silent receiver's deliveries were all still waiting when the healthy one arrived");
    assert_eq!(accepted, 4, "the silent receiver had no more than its host's share of connections");
    beckon.shutdown().await;
}

/// A receiver that redirects every callback to `target`.
#[derive(Clone)]
struct Redirector {
    target: String,
    hits: Arc<AtomicUsize>,
}

async fn redirect(State(redirector): State<Redirector>) -> impl IntoResponse {
    redirector.hits.fetch_add(1, Ordering::SeqCst);
    (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, redirector.target.clone())])
}

async fn count(State(hits): State<Arc<AtomicUsize>>, _headers: HeaderMap) -> StatusCode {
    hits.fetch_add(1, Ordering::SeqCst);
    StatusCode::OK
}

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_is_a_failed_attempt_and_its_target_is_never_contacted() {
    let dir = tempfile::tempdir().unwrap();
    let target_hits = Arc::new(AtomicUsize::new(0));
    let target = serve(Router::new().route("/landing", post(count)).with_state(target_hits.clone())).await;
    let redirector = Redirector { target: format!("{target}/landing"), hits: Arc::default() };
    let redirecting = serve(Router::new().route("/hook", post(redirect)).with_state(redirector.clone())).await;
    let (beckon, _) = start(dir.path()).await;

    let request_id = ask(&beckon, &format!("{redirecting}/hook")).await;
    // A second attempt means the first one ended, and how.
    until("a retry after the redirect", || redirector.hits.load(Ordering::SeqCst) >= 2).await;
    assert_eq!(target_hits.load(Ordering::SeqCst), 0, "the redirect's target is never contacted");

    let store = Store::open(dir.path().join("beckon.db")).unwrap();
    let (state, error): (String, String) = store
        .connection()
        .query_row(
            "SELECT state, last_error FROM outbox WHERE idempotency_key = ?1",
            [format!("{request_id}:pending")],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert_ne!(state, "delivered");
    assert!(error.contains("307"), "{error}");
    drop(store);
    beckon.shutdown().await;
}

/// The outbox row of a question's pending callback: (state, attempts, last error).
fn pending_row(store: &Store, request_id: &str) -> Option<(String, i64, Option<String>)> {
    store
        .connection()
        .query_row(
            "SELECT state, attempts, last_error FROM outbox WHERE idempotency_key = ?1",
            [format!("{request_id}:pending")],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_refuses_loopback_receivers_when_asked_and_at_delivery_and_gives_them_up_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let hits = Arc::new(AtomicUsize::new(0));
    let receiver = serve(Router::new().route("/hook", post(count)).with_state(hits.clone())).await;
    let port = receiver.rsplit(':').next().unwrap().to_owned();
    // The operator's own agents' callbacks are not checked when asked: delivery refuses them, by
    // the address written and by the address a name resolves to.
    asker_agent(dir.path(), "by-address", &format!("callback_url: {receiver}/hook"));
    asker_agent(dir.path(), "by-name", &format!("callback_url: http://localhost:{port}/hook"));
    let mut config = RuntimeConfig::new(dir.path());
    config.callback_destinations = CallbackDestinations::PublicAnd(Vec::new());
    let (beckon, notifier) = start_with(config).await;

    for url in [format!("{receiver}/hook"), format!("http://localhost:{port}/hook"), "http://[::ffff:10.0.0.1]/".into()]
    {
        let refused = beckon.ask_external(ExternalAsk { callback_url: Some(url.clone()), ..asking() }).await;
        let Err(Error::InvalidInput(problems)) = refused else { panic!("{url}: {refused:?}") };
        assert_eq!(problems.first_path(), Some("callback_url"), "{url}");
    }

    let by_address = beckon.start_session("by-address", "go").await.unwrap();
    let by_name = beckon.start_session("by-name", "go").await.unwrap();
    let by_address = pending_in(&notifier, by_address).await.request_id.to_string();
    let by_name = pending_in(&notifier, by_name).await.request_id.to_string();
    let store = Store::open(dir.path().join("beckon.db")).unwrap();
    let failed = |id: &str| pending_row(&store, id).is_some_and(|(state, _, _)| state == "failed");
    until("both callbacks to be given up", || failed(&by_address) && failed(&by_name)).await;
    let (_, attempts, error) = pending_row(&store, &by_address).unwrap();
    assert_eq!(attempts, 1, "given up at the first attempt");
    assert_eq!(
        error.as_deref(),
        Some(
            format!("refused: http://127.0.0.1:{port} is a loopback address, which this server sends no callbacks to")
                .as_str()
        )
    );
    let (_, attempts, error) = pending_row(&store, &by_name).unwrap();
    assert_eq!(attempts, 1, "given up at the first attempt");
    assert_eq!(
        error.as_deref(),
        Some("refused: localhost resolves to a loopback address, which this server sends no callbacks to")
    );
    assert_eq!(hits.load(Ordering::SeqCst), 0, "the receiver heard nothing");
    drop(store);
    beckon.shutdown().await;
}

/// An external agent's question, without a callback yet.
fn asking() -> ExternalAsk {
    let request = QuestionRequest::parse(&json!({"questions": [{"question": "Deploy to prod?", "header": "Deploy",
        "options": [{"label": "Yes"}, {"label": "No"}]}]}))
    .unwrap();
    ExternalAsk { agent: "ci-bot".into(), request: Some(request), ..ExternalAsk::default() }
}
