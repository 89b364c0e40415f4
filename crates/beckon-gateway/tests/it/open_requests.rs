//! What a caller cannot mint for free bounds it: writes are limited per connection and overall
//! (a header it names itself with is no key), and long-polls, event streams and MCP sessions
//! each have a bounded number of places, given back when one ends.

use crate::served;

use std::time::Duration;

use beckon_gateway::{ConnectionLimits, MCP_PATH};
use reqwest::StatusCode;
use serde_json::{Value, json};
use served::{Served, serve};

const PATIENCE: Duration = Duration::from_secs(20);

fn deploy() -> Value {
    json!({"agent": "deploy-bot", "questions": [{"question": "Deploy?", "header": "Deploy",
        "options": [{"label": "Yes"}, {"label": "No"}]}]})
}

async fn ask(s: &Served, http: &reqwest::Client, client_name: &str) -> reqwest::Response {
    http.post(format!("{}/v1/questions", s.gateway.url))
        .bearer_auth(&s.gateway.token)
        .header("x-beckon-client", client_name)
        .json(&deploy())
        .send()
        .await
        .unwrap()
}

async fn kind(response: reqwest::Response) -> (StatusCode, String, String) {
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    (
        status,
        body["error"]["kind"].as_str().unwrap_or("").to_owned(),
        body["error"]["message"].as_str().unwrap_or("").to_owned(),
    )
}

#[tokio::test]
async fn a_new_client_name_is_no_fresh_burst() {
    let s = serve(|config| {
        config.writes_per_second = 0.01;
        config.write_burst = 2.0;
    })
    .await;
    let http = reqwest::Client::new();
    for n in 0..2 {
        assert_eq!(ask(&s, &http, &format!("name-{n}")).await.status(), StatusCode::CREATED);
    }
    let (status, kind, _) = kind(ask(&s, &http, "yet-another-name").await).await;
    assert_eq!((status, kind.as_str()), (StatusCode::TOO_MANY_REQUESTS, "rate_limited"));
}

#[tokio::test]
async fn new_connections_share_one_overall_limit() {
    let s = serve(|config| {
        config.writes_per_second = 0.01;
        config.write_burst = 2.0;
    })
    .await;
    let mut created = 0;
    for _ in 0..20 {
        // A client of its own: a connection of its own.
        let fresh = reqwest::Client::new();
        if ask(&s, &fresh, "fresh").await.status() == StatusCode::CREATED {
            created += 1;
        }
    }
    assert_eq!(created, 8, "four connections' bursts in all");
}

#[tokio::test]
async fn long_polls_beyond_their_places_are_refused_until_one_ends() {
    let s = serve(|config| config.limits = ConnectionLimits { max_long_polls: 2, ..ConnectionLimits::default() }).await;
    let asked: Value = ask(&s, &s.http, "poller").await.json().await.unwrap();
    let id = asked["request_id"].as_str().unwrap().to_owned();
    let poll = |wait: &str| {
        s.http.get(format!("{}/v1/questions/{id}?wait={wait}", s.gateway.url)).bearer_auth(&s.gateway.token).send()
    };
    // Three polls at once, each on a connection of its own: two hold the places, one is refused.
    let mut polls: Vec<_> = (0..3)
        .map(|_| {
            let url = format!("{}/v1/questions/{id}?wait=60", s.gateway.url);
            let token = s.gateway.token.clone();
            tokio::spawn(async move { reqwest::Client::new().get(url).bearer_auth(token).send().await.unwrap() })
        })
        .collect();
    let (refused, _, held) = tokio::time::timeout(PATIENCE, futures_util::future::select_all(polls.drain(..)))
        .await
        .expect("no long-poll was refused");
    let (_, kind, message) = kind(refused.unwrap()).await;
    assert_eq!(kind, "too_many_open");
    assert_eq!(message, "2 long-polls are open at once, the most the gateway allows; retry when one has ended");
    assert_eq!(poll("0").await.unwrap().status(), StatusCode::OK, "a plain read needs no place");

    let answered = s
        .http
        .post(format!("{}/v1/questions/{id}/answer", s.gateway.url))
        .bearer_auth(&s.gateway.token)
        .json(&json!({"answer": "Yes"}))
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), StatusCode::OK);
    for poll in held {
        assert_eq!(poll.await.unwrap().status(), StatusCode::OK);
    }
    assert_eq!(poll("1").await.unwrap().status(), StatusCode::OK, "the places came back");
}

#[tokio::test]
async fn event_streams_beyond_their_places_are_refused_until_one_ends() {
    let s =
        serve(|config| config.limits = ConnectionLimits { max_event_streams: 1, ..ConnectionLimits::default() }).await;
    let events =
        || reqwest::Client::new().get(format!("{}/v1/events", s.gateway.url)).bearer_auth(&s.gateway.token).send();
    let first = events().await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    let (status, kind, message) = kind(events().await.unwrap()).await;
    assert_eq!((status, kind.as_str()), (StatusCode::TOO_MANY_REQUESTS, "too_many_open"));
    assert!(message.starts_with("1 event streams are open at once"), "{message}");

    drop(first);
    // The server sees the stream gone when it next writes to it: give it an event to send.
    ask(&s, &s.http, "events").await;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while events().await.unwrap().status() != StatusCode::OK {
        assert!(tokio::time::Instant::now() < deadline, "the stream's place never came back");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn mcp_sessions_beyond_their_places_are_refused_until_one_ends() {
    let s =
        serve(|config| config.limits = ConnectionLimits { max_mcp_sessions: 1, ..ConnectionLimits::default() }).await;
    let url = format!("{}{MCP_PATH}", s.gateway.url);
    let initialize = || {
        s.http
            .post(&url)
            .bearer_auth(&s.gateway.token)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
                .to_string(),
            )
            .send()
    };
    let first = initialize().await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    let session = first.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    first.text().await.unwrap();

    let (status, kind, message) = kind(initialize().await.unwrap()).await;
    assert_eq!((status, kind.as_str()), (StatusCode::TOO_MANY_REQUESTS, "too_many_open"));
    assert!(message.starts_with("1 MCP sessions are open at once"), "{message}");

    let ended =
        s.http.delete(&url).bearer_auth(&s.gateway.token).header("mcp-session-id", &session).send().await.unwrap();
    assert_eq!(ended.status(), StatusCode::NO_CONTENT);
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while initialize().await.unwrap().status() != StatusCode::OK {
        assert!(tokio::time::Instant::now() < deadline, "the session's place never came back");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
