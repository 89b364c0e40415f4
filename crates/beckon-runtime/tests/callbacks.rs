//! Callbacks reach a loopback receiver signed with the install's secret, are retried after
//! failures with the same idempotency key, and report the resolution too.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use beckon_core::AnsweredVia;
use beckon_runtime::callbacks::signature;
use serde_json::Value;
use support::*;

#[derive(Clone, Default)]
struct Receiver {
    calls: Arc<Mutex<Vec<(HeaderMap, Value)>>>,
}

async fn receive(State(receiver): State<Receiver>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut calls = receiver.calls.lock().unwrap();
    calls.push((headers, value));
    // Fail the first two deliveries.
    if calls.len() <= 2 { StatusCode::INTERNAL_SERVER_ERROR } else { StatusCode::OK }
}

async fn receiver() -> (String, Receiver) {
    let receiver = Receiver::default();
    let app = Router::new().route("/hook", post(receive)).with_state(receiver.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, receiver)
}

async fn wait_calls(receiver: &Receiver, count: usize) -> Vec<(HeaderMap, Value)> {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let calls = receiver.calls.lock().unwrap().clone();
        if calls.len() >= count || tokio::time::Instant::now() > deadline {
            return calls;
        }
        drop(calls);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn callbacks_are_signed_retried_and_carry_stable_keys() {
    let dir = tempfile::tempdir().unwrap();
    let (url, receiver) = receiver().await;
    asker_agent(dir.path(), "asker", &format!("callback_url: {url}"));
    let (beckon, notifier) = start(dir.path()).await;
    let session = beckon.start_session("asker", "go").await.unwrap();
    let notice = pending_in(&notifier, session).await;

    let calls = wait_calls(&receiver, 3).await;
    assert_eq!(calls.len(), 3, "two failures, then the delivery");
    for (headers, body) in &calls {
        assert_eq!(headers["idempotency-key"], format!("{}:pending", notice.request_id));
        assert_eq!(headers["beckon-event"], "question_pending");
        assert_eq!(body["event"], "question_pending");
        assert_eq!(body["request_id"], notice.request_id.to_string());
        assert_eq!(body["deep_link"], format!("beckon://question/{}", notice.request_id));
        let sent = headers["beckon-signature"].to_str().unwrap();
        let t: i64 = sent.trim_start_matches("t=").split(',').next().unwrap().parse().unwrap();
        let raw = serde_json::to_vec(body).unwrap();
        assert_eq!(
            sent,
            signature(beckon.callback_secret(), t, &raw),
            "the signature verifies with the install's secret"
        );
        assert_ne!(sent, signature("another secret", t, &raw));
    }

    beckon.answer_texts(notice.request_id, &["Yes".into()], AnsweredVia::Window).await.unwrap();
    let calls = wait_calls(&receiver, 4).await;
    assert_eq!(calls.len(), 4);
    let (headers, body) = &calls[3];
    assert_eq!(headers["idempotency-key"], format!("{}:resolved", notice.request_id));
    assert_eq!(body["event"], "question_answered");
    assert_eq!(body["outcome"]["outcome"], "answered");
    assert_eq!(body["outcome"]["answers"][0]["selected"][0], "Yes");
}
