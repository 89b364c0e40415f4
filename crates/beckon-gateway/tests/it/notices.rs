//! Notices over real loopback HTTP: an agent waiting at its own prompt is shown (the notifier
//! is told, the list holds it), replaced under the same key, cleared when it goes on, and a
//! body that breaks the rules is refused with every problem named.

use std::sync::Arc;
use std::time::Duration;

use beckon_runtime::{Recorded, RecordingNotifier};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::served;

use served::Served;

async fn send(s: &Served, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
    let mut request = s.http.request(method, format!("{}{path}", s.gateway.url)).bearer_auth(&s.gateway.token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    (response.status(), response.json().await.unwrap())
}

fn waiting(message: &str) -> Value {
    json!({"agent": "claude-code", "message": message, "project": "/home/ada/shop"})
}

#[tokio::test]
async fn a_notice_is_shown_replaced_and_cleared() {
    let notifier = Arc::new(RecordingNotifier::default());
    let s = served::serve_telling(notifier.clone(), |_| {}).await;
    let key = "claude-code:5f0c-9a";
    let (status, shown) =
        send(&s, Method::PUT, &format!("/v1/notices/{key}"), Some(waiting("Claude is waiting for your input"))).await;
    assert_eq!(status, StatusCode::OK, "{shown}");
    assert_eq!(shown["key"], key);
    assert_eq!(shown["project"], "/home/ada/shop");
    let told = notifier
        .wait_for(Duration::from_secs(5), |call| matches!(call, Recorded::NoticePosted(n) if n.key == key))
        .await
        .expect("the notifier was told");
    let Recorded::NoticePosted(notice) = told else { unreachable!() };
    assert_eq!(notice.title(), "claude-code waits in shop");

    send(&s, Method::PUT, &format!("/v1/notices/{key}"), Some(waiting("Still waiting"))).await;
    let (_, listed) = send(&s, Method::GET, "/v1/notices", None).await;
    let notices = listed["notices"].as_array().unwrap();
    assert_eq!(notices.len(), 1, "{listed}");
    assert_eq!(notices[0]["message"], "Still waiting");

    let (status, cleared) = send(&s, Method::DELETE, &format!("/v1/notices/{key}"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(cleared, json!({"key": key, "cleared": true}));
    assert!(notifier.calls().contains(&Recorded::NoticeCleared(key.into())));
    let (_, again) = send(&s, Method::DELETE, &format!("/v1/notices/{key}"), None).await;
    assert_eq!(again["cleared"], false, "clearing twice is harmless");
    let (_, listed) = send(&s, Method::GET, "/v1/notices", None).await;
    assert_eq!(listed, json!({"notices": []}));
}

#[tokio::test]
async fn a_notice_that_breaks_the_rules_is_refused_with_every_problem() {
    let notifier = Arc::new(RecordingNotifier::default());
    let s = served::serve_telling(notifier.clone(), |_| {}).await;
    let (status, refused) = send(
        &s,
        Method::PUT,
        "/v1/notices/k",
        Some(json!({"agent": "claude code", "message": "x".repeat(2000), "colour": "red"})),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let fields: Vec<&str> =
        refused["error"]["problems"].as_array().unwrap().iter().map(|p| p["path"].as_str().unwrap()).collect();
    assert_eq!(fields, ["colour"], "unknown fields first: {refused}");
    let (status, refused) =
        send(&s, Method::PUT, "/v1/notices/k", Some(json!({"agent": "claude code", "message": "x".repeat(2000)})))
            .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let fields: Vec<&str> =
        refused["error"]["problems"].as_array().unwrap().iter().map(|p| p["path"].as_str().unwrap()).collect();
    assert_eq!(fields, ["agent", "message"], "{refused}");
    let (status, _) = send(&s, Method::PUT, "/v1/notices/a%20b", Some(waiting("m"))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "a key with a space");
    let (status, _) = send(&s, Method::PUT, "/v1/notices/k", Some(json!({"agent": "a"}))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "no message");
    assert!(notifier.calls().is_empty(), "nothing refused reached the person: {:?}", notifier.calls());
    let anonymous = s.http.put(format!("{}/v1/notices/k", s.gateway.url)).json(&waiting("m")).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn bidi_controls_in_a_notice_are_refused_naming_the_field() {
    let notifier = Arc::new(RecordingNotifier::default());
    let s = served::serve_telling(notifier.clone(), |_| {}).await;
    // "Claude is waiting for your input", read right to left from the override on.
    let (status, refused) =
        send(&s, Method::PUT, "/v1/notices/k", Some(waiting("Claude is waiting \u{202E}tupni ruoy rof"))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["error"]["field"], "message", "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("U+202E") && message.contains("bidirectional"), "{message}");
    let body = json!({"agent": "claude-code", "message": "waiting", "project": "/home/ada/\u{2067}pohs"});
    let (status, refused) = send(&s, Method::PUT, "/v1/notices/k", Some(body)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["error"]["field"], "project", "{refused}");
    assert!(notifier.calls().is_empty(), "nothing refused reached the person: {:?}", notifier.calls());
}
