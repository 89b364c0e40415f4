//! Callbacks reach a loopback receiver signed with the install's secret, are retried after
//! failures with the same idempotency key, and report the resolution too; a rotated secret
//! signs every later callback and outlives a restart.

use beckon_core::GivenAnswers;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use beckon_core::AnsweredVia;
use beckon_runtime::Decision;
use beckon_runtime::callbacks::signature;
use serde_json::Value;

use crate::support::*;

#[derive(Clone, Default)]
struct Receiver {
    calls: Arc<Mutex<Vec<(HeaderMap, Value)>>>,
    /// How many deliveries it refuses before it accepts.
    refusals: usize,
}

async fn receive(State(receiver): State<Receiver>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut calls = receiver.calls.lock().unwrap();
    calls.push((headers, value));
    if calls.len() <= receiver.refusals { StatusCode::INTERNAL_SERVER_ERROR } else { StatusCode::OK }
}

/// A receiver that refuses the first two deliveries.
async fn receiver() -> (String, Receiver) {
    receiver_refusing(2).await
}

async fn receiver_refusing(refusals: usize) -> (String, Receiver) {
    let receiver = Receiver { refusals, ..Receiver::default() };
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
            signature(&beckon.configuration().callback_secret(), t, &raw),
            "the signature verifies with the install's secret"
        );
        assert_ne!(sent, signature("another secret", t, &raw));
    }

    beckon
        .resolve(notice.request_id, AnsweredVia::Window, Decision::Answer(GivenAnswers::Texts(vec!["Yes".into()])))
        .await
        .unwrap();
    let calls = wait_calls(&receiver, 4).await;
    assert_eq!(calls.len(), 4);
    let (headers, body) = &calls[3];
    assert_eq!(headers["idempotency-key"], format!("{}:resolved", notice.request_id));
    assert_eq!(body["event"], "question_answered");
    assert_eq!(body["outcome"]["outcome"], "answered");
    assert_eq!(body["outcome"]["answers"][0]["selected"][0], "Yes");
}

/// The signature a receiver got, with the time it names and the raw body it covers.
fn signed(headers: &HeaderMap, body: &Value) -> (String, i64, Vec<u8>) {
    let sent = headers["beckon-signature"].to_str().unwrap().to_owned();
    let t: i64 = sent.trim_start_matches("t=").split(',').next().unwrap().parse().unwrap();
    (sent, t, serde_json::to_vec(body).unwrap())
}

#[tokio::test]
async fn a_rotated_secret_signs_every_later_callback_and_the_old_one_stops_verifying() {
    let dir = tempfile::tempdir().unwrap();
    let (url, receiver) = receiver_refusing(0).await;
    asker_agent(dir.path(), "asker", &format!("callback_url: {url}"));
    let (beckon, notifier) = start(dir.path()).await;
    let old = beckon.configuration().callback_secret();

    let first = beckon.start_session("asker", "go").await.unwrap();
    pending_in(&notifier, first).await;
    let calls = wait_calls(&receiver, 1).await;
    let (sent, t, raw) = signed(&calls[0].0, &calls[0].1);
    assert_eq!(sent, signature(&old, t, &raw), "before the rotation, the old secret signs");

    let new = beckon.configuration().rotate_callback_secret().await.unwrap();
    assert_ne!(new, old);
    assert_eq!(new.len(), 64, "32 random bytes, hex");
    assert_eq!(beckon.configuration().callback_secret(), new);

    let second = beckon.start_session("asker", "again").await.unwrap();
    pending_in(&notifier, second).await;
    let calls = wait_calls(&receiver, 2).await;
    assert_eq!(calls.len(), 2);
    let (sent, t, raw) = signed(&calls[1].0, &calls[1].1);
    assert_eq!(sent, signature(&new, t, &raw), "after the rotation, the new secret signs");
    assert_ne!(sent, signature(&old, t, &raw), "the old secret no longer verifies");
}

#[tokio::test]
async fn a_rotated_secret_outlives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start(dir.path()).await;
    let first = beckon.configuration().callback_secret();
    let rotated = beckon.configuration().rotate_callback_secret().await.unwrap();
    let again = beckon.configuration().rotate_callback_secret().await.unwrap();
    assert_ne!(rotated, first);
    assert_ne!(again, rotated, "each rotation makes a new secret");
    assert_eq!(
        beckon_runtime::callbacks::stored_secret(dir.path()).unwrap().as_deref(),
        Some(again.as_str()),
        "read from the folder beside the running runtime"
    );
    beckon.shutdown().await;

    let (beckon, _) = start(dir.path()).await;
    assert_eq!(beckon.configuration().callback_secret(), again, "the last rotation's secret is the one kept");
    beckon.shutdown().await;
}

/// The one-way Slack format, delivered: a Slack-compatible incoming webhook (named by its URL
/// prefix, as Mattermost's or a relay's would be) gets the question as Slack blocks with the
/// asker, every question and the link, and then the outcome; an agent's markup shows as text.
#[tokio::test]
async fn a_slack_compatible_webhook_gets_the_question_and_then_its_outcome_as_slack_messages() {
    let dir = tempfile::tempdir().unwrap();
    let (url, receiver) = receiver_refusing(0).await;
    let turns = serde_json::json!([
        {"tool_calls": [{"name": "ask_user_question", "input": {"questions": [
            {"question": "<!channel> Deploy <https://evil.example|v2>?", "header": "Go", "options": [{"label": "Yes"}, {"label": "No"}]}
        ]}}]},
        {"text": "done"}
    ]);
    scripted_agent(dir.path(), "deploy", &format!("description: Deploys\ncallback_url: {url}"), turns);
    let mut config = beckon_runtime::RuntimeConfig::new(dir.path());
    config.slack_webhooks = vec![url.clone()];
    let (beckon, notifier) = start_with(config).await;
    let session = beckon.start_session("deploy", "go").await.unwrap();
    let notice = pending_in(&notifier, session).await;

    let calls = wait_calls(&receiver, 1).await;
    let (headers, message) = &calls[0];
    assert_eq!(headers["beckon-event"], "question_pending");
    let question = "&lt;!channel&gt; Deploy &lt;https://evil.example|v2&gt;?";
    assert_eq!(message["text"], format!("deploy asks: • {question}"));
    assert_eq!(message["blocks"][0]["type"], "section");
    assert_eq!(message["blocks"][0]["text"]["type"], "mrkdwn");
    assert_eq!(message["blocks"][0]["text"]["text"], format!("*deploy asks*\n• {question}"));
    let button = &message["blocks"][1]["elements"][0];
    assert_eq!((button["type"].as_str(), button["text"]["text"].as_str()), (Some("button"), Some("Answer in Beckon")));
    assert_eq!(button["url"], format!("beckon://question/{}", notice.request_id));
    assert!(message.get("request_id").is_none(), "a Slack message, not Beckon's JSON payload");

    beckon
        .resolve(notice.request_id, AnsweredVia::Window, Decision::Answer(GivenAnswers::Texts(vec!["No".into()])))
        .await
        .unwrap();
    let calls = wait_calls(&receiver, 2).await;
    let (headers, resolved) = &calls[1];
    assert_eq!(headers["beckon-event"], "question_answered");
    assert_eq!(resolved["text"], "deploy's question was answered.");
    assert_eq!(resolved["blocks"][0]["elements"][0]["text"], "deploy's question was *answered*.");
    beckon.shutdown().await;
}

#[tokio::test]
async fn other_webhooks_get_beckons_json() {
    let dir = tempfile::tempdir().unwrap();
    let (url, receiver) = receiver_refusing(0).await;
    asker_agent(dir.path(), "asker", &format!("callback_url: {url}"));
    let mut config = beckon_runtime::RuntimeConfig::new(dir.path());
    config.slack_webhooks = vec!["http://127.0.0.1:1/services/".into()];
    let (beckon, notifier) = start_with(config).await;
    let session = beckon.start_session("asker", "go").await.unwrap();
    let notice = pending_in(&notifier, session).await;
    let calls = wait_calls(&receiver, 1).await;
    assert_eq!(calls[0].1["request_id"], notice.request_id.to_string());
    assert!(calls[0].1.get("blocks").is_none());
    beckon.shutdown().await;
}
