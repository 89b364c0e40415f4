//! Whose question it is on a team server, over real loopback HTTP with people signed in through
//! a real OpenID provider: tokens owned by a person or a group ask for them; each person's
//! browser lists, reads, follows (events) and answers only what is addressed to them, their
//! groups or everyone; an approval addressed to one person cannot be seen or answered by
//! another (the API answers as if it did not exist); an admin sees everything.

use std::time::Duration;

use beckon_gateway::GatewayConfig;
use beckon_test_idp::Provider;
use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::served;

use served::Served;
use served::team::{self, Signed, person, sign_in_config, token_for};

async fn provider() -> Provider {
    let people = vec![
        person("ada", &["eng"]),
        person("bo", &["design"]),
        person("cy", &["eng"]),
        person("root", &["beckon-admins"]),
    ];
    team::provider(people).await
}

async fn serve(idp: &Provider) -> Served {
    let sign_in = sign_in_config(idp);
    served::serve(move |config: &mut GatewayConfig| config.sign_in = Some(sign_in)).await
}

/// The ids of the pending questions `who`'s list shows.
trait Pending {
    async fn pending(&mut self, s: &Served) -> Vec<String>;
}

impl Pending for Signed {
    async fn pending(&mut self, s: &Served) -> Vec<String> {
        let (status, listed) = self.get(s, "/v1/questions?status=pending").await;
        assert_eq!(status, StatusCode::OK, "{listed}");
        listed["questions"].as_array().unwrap().iter().map(|q| q["request_id"].as_str().unwrap().to_owned()).collect()
    }
}

/// Asks with `token`: the status, and the question's and session's ids when it was asked.
async fn ask(s: &Served, token: &str, body: Value) -> (StatusCode, Value) {
    let response =
        s.http.post(format!("{}/v1/questions", s.gateway.url)).bearer_auth(token).json(&body).send().await.unwrap();
    (response.status(), response.json().await.unwrap())
}

fn approval() -> Value {
    json!({"agent": "claude-code", "session_key": "cc-ada",
        "approval": {"tool_name": "Bash", "input": {"command": "make deploy"}}})
}

fn question(agent: &str) -> Value {
    json!({"agent": agent, "questions": [{"question": "Ship it?", "header": "Ship",
        "options": [{"label": "Yes"}, {"label": "No"}]}]})
}

fn id(asked: &Value) -> String {
    asked["request_id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn each_person_sees_and_answers_only_what_is_addressed_to_them() {
    let idp = provider().await;
    let s = serve(&idp).await;
    let adas_token = token_for(&s, "ada-laptop", "person:ada").await;
    let eng_token = token_for(&s, "eng-ci", "group:eng").await;
    let (status, adas) = ask(&s, &adas_token, approval()).await;
    assert_eq!(status, StatusCode::CREATED, "{adas}");
    let (_, engs) = ask(&s, &eng_token, question("ci")).await;
    let (_, everyones) = ask(&s, &s.gateway.token, question("release")).await;
    let (adas, engs, everyones) = (id(&adas), id(&engs), id(&everyones));

    let mut ada = Signed::sign_in(&s, "ada").await;
    let mut bo = Signed::sign_in(&s, "bo").await;
    let mut cy = Signed::sign_in(&s, "cy").await;
    let mut root = Signed::sign_in(&s, "root").await;
    assert_eq!(ada.pending(&s).await, [adas.clone(), engs.clone(), everyones.clone()]);
    assert_eq!(cy.pending(&s).await, [engs.clone(), everyones.clone()], "the group's and everyone's");
    assert_eq!(bo.pending(&s).await, std::slice::from_ref(&everyones), "only everyone's");
    assert_eq!(root.pending(&s).await, [adas.clone(), engs.clone(), everyones.clone()], "an admin sees everything");

    // Ada's approval, to Bo and Cy: no such question, whatever they try.
    for other in [&mut bo, &mut cy] {
        let (status, body) = other.get(&s, &format!("/v1/questions/{adas}")).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
        let (status, _) = other.get(&s, &format!("/v1/questions/{adas}?wait=1")).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        let (status, body) = other.post(&s, &format!("/v1/questions/{adas}/answer"), json!({"answer": "Allow"})).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
        let (status, _) = other.post(&s, &format!("/v1/questions/{adas}/decline"), json!({})).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        let session = s.beckon.inbox().question(adas.parse().unwrap()).await.unwrap().session_id;
        let (status, _) = other.get(&s, &format!("/v1/sessions/{session}")).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        let (status, _) = other.post(&s, &format!("/v1/sessions/{session}/answer"), json!({"answer": "Allow"})).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        let (status, _) = other.post(&s, &format!("/v1/sessions/{session}/cancel"), json!({})).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
    }
    // Nor can the admin answer it: seeing everything is not answering for everyone. They are
    // told whose it is.
    let (status, refused) = root.post(&s, &format!("/v1/questions/{adas}/answer"), json!({"answer": "Allow"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("addressed to person:ada"), "{refused}");
    assert_eq!(s.beckon.inbox().question(adas.parse().unwrap()).await.unwrap().status.as_str(), "pending");

    // Bo's event stream carries nothing of Ada's or the group's sessions.
    let adas_session = s.beckon.inbox().question(adas.parse().unwrap()).await.unwrap().session_id.to_string();
    let engs_session = s.beckon.inbox().question(engs.parse().unwrap()).await.unwrap().session_id.to_string();
    let everyones_session = s.beckon.inbox().question(everyones.parse().unwrap()).await.unwrap().session_id.to_string();
    let seen = events_until(&s, &bo, &everyones_session).await;
    assert!(!seen.contains(&adas_session) && !seen.contains(&engs_session), "{seen}");
    let seen = events_until(&s, &ada, &everyones_session).await;
    assert!(seen.contains(&adas_session) && seen.contains(&engs_session), "{seen}");

    // Cy answers the group's question; Ada allows her own tool call.
    let (status, answered) = cy.post(&s, &format!("/v1/questions/{engs}/answer"), json!({"answer": "Yes"})).await;
    assert_eq!(status, StatusCode::OK, "{answered}");
    assert_eq!(answered["answered_by"], "oidc:cy (CY <cy@example.com>)");
    let (status, allowed) = ada.post(&s, &format!("/v1/questions/{adas}/answer"), json!({"answer": "Allow"})).await;
    assert_eq!(status, StatusCode::OK, "{allowed}");
    assert_eq!(allowed["decision"]["behavior"], "allow");
    assert_eq!(allowed["answered_by"], "oidc:ada (ADA <ada@example.com>)");
    // Her agent reads the answer with its own token.
    let read =
        s.http.get(format!("{}/v1/questions/{adas}", s.gateway.url)).bearer_auth(&adas_token).send().await.unwrap();
    assert_eq!(read.status(), StatusCode::OK);
    assert_eq!(read.json::<Value>().await.unwrap()["answered_by"], "oidc:ada (ADA <ada@example.com>)");
}

#[tokio::test]
async fn a_token_asks_only_for_its_owner() {
    let idp = provider().await;
    let s = serve(&idp).await;
    let adas_token = token_for(&s, "ada-laptop", "person:ada").await;
    let mut body = question("ci");
    body["audience"] = json!("group:design");
    let (status, refused) = ask(&s, &adas_token, body.clone()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["error"]["field"], "audience");
    // The person's own token may address anyone.
    let (status, asked) = ask(&s, &s.gateway.token, body).await;
    assert_eq!(status, StatusCode::CREATED, "{asked}");
    let mut bo = Signed::sign_in(&s, "bo").await;
    let mut ada = Signed::sign_in(&s, "ada").await;
    assert_eq!(bo.pending(&s).await, [id(&asked)]);
    assert!(ada.pending(&s).await.is_empty());
    let (status, _) = ada.post(&s, "/v1/tokens", json!({"name": "mine", "kind": "ask_only"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "only admins make tokens");
}

/// What `person`'s event stream carries from the start until an event naming `last` arrives.
async fn events_until(s: &Served, person: &Signed, last: &str) -> String {
    let cookie = person.browser.cookie_header(&s.gateway.url).unwrap();
    let response = s
        .http
        .get(format!("{}/v1/events?after=0", s.gateway.url))
        .header("cookie", cookie)
        .header("sec-fetch-site", "same-origin")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = response.bytes_stream();
    let mut seen = String::new();
    while !seen.contains(last) {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.next()).await.unwrap().unwrap().unwrap();
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    seen
}
