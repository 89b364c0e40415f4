//! A Slack callback as posted, through a loopback receiver: an agent's words arrive escaped, so
//! they cannot ping a channel or dress up a link, and Beckon's own markup arrives as markup.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use beckon_core::QuestionRequest;
use beckon_runtime::ExternalAsk;
use beckon_store::{CallbackFormat, CallbackKind, NewCallback, Store};
use serde_json::{Value, json};

use crate::support::*;

type Received = Arc<Mutex<Vec<Value>>>;

async fn receive(State(received): State<Received>, body: Bytes) -> StatusCode {
    received.lock().unwrap().push(serde_json::from_slice(&body).unwrap());
    StatusCode::OK
}

async fn nth(received: &Received, n: usize) -> Value {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        if let Some(body) = received.lock().unwrap().get(n) {
            return body.clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "callback {n} did not arrive within {PATIENCE:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_words_reach_slack_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let received = Received::default();
    let app = Router::new().route("/hook", post(receive)).with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    // The question as an agent asks it; its pending callback's payload is Beckon's own.
    let hostile = "<!channel> Approve? <https://evil.example|Answer in Beckon> & more";
    let request = QuestionRequest::parse(&json!({"questions": [{"question": hostile, "header": "Approve",
        "options": [{"label": "Yes"}, {"label": "No"}]}]}))
    .unwrap();
    let (beckon, _) = start(dir.path()).await;
    let ask = ExternalAsk {
        agent: "ci-bot".into(),
        request: Some(request),
        callback_url: Some(url.clone()),
        ..ExternalAsk::default()
    };
    let asked = beckon.ask_external(ask).await.unwrap();
    let payload = nth(&received, 0).await;
    assert_eq!(payload["questions"]["questions"][0]["question"], hostile);
    beckon.shutdown().await;

    // The same payload as a Slack webhook would get it (Slack's own host is not on loopback).
    let mut store = Store::open(dir.path().join("beckon.db")).unwrap();
    let slack = NewCallback {
        idempotency_key: format!("{}:slack", asked.request_id),
        target: url,
        format: CallbackFormat::Slack,
        kind: CallbackKind::Pending,
        payload,
    };
    store.write(|tx| tx.enqueue_callbacks(&[slack], 0)).unwrap();
    drop(store);
    let (beckon, _) = start(dir.path()).await;
    let posted = nth(&received, 1).await;

    let escaped = "&lt;!channel&gt; Approve? &lt;https://evil.example|Answer in Beckon&gt; &amp; more";
    assert_eq!(posted["text"], format!("ci-bot asks: • {escaped}"));
    assert_eq!(posted["blocks"][0]["text"]["type"], "mrkdwn");
    assert_eq!(posted["blocks"][0]["text"]["text"], format!("*ci-bot asks*\n• {escaped}"));
    let button = &posted["blocks"][1]["elements"][0];
    assert_eq!(button["text"]["text"], "Answer in Beckon");
    assert_eq!(button["url"], format!("beckon://question/{}", asked.request_id));
    let all = posted.to_string();
    assert!(!all.contains("<!channel>") && !all.contains("<https://evil"), "{all}");
    beckon.shutdown().await;
}
