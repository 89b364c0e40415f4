//! Whose question it is on a team server, over real loopback HTTP with people signed in through
//! a real OpenID provider: tokens owned by a person or a group ask for them; each person's
//! browser lists, reads, follows (events) and answers only what is addressed to them, their
//! groups or everyone; an approval addressed to one person cannot be seen or answered by
//! another (the API answers as if it did not exist); an admin sees everything.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::Duration;

use beckon_gateway::sign_in::OidcSettings;
use beckon_gateway::{GatewayConfig, SignInConfig};
use beckon_test_idp::{Browser, Client, Person, Provider};
use futures_util::StreamExt;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

mod served;

use served::Served;

async fn provider() -> Provider {
    let person = |subject: &str, groups: &[&str]| Person {
        subject: subject.into(),
        email: format!("{subject}@example.com"),
        name: subject.to_uppercase(),
        groups: groups.iter().map(|g| (*g).to_owned()).collect(),
    };
    let people = vec![
        person("ada", &["eng"]),
        person("bo", &["design"]),
        person("cy", &["eng"]),
        person("root", &["beckon-admins"]),
    ];
    let clients = vec![Client {
        id: "beckon".into(),
        secret: Some("s3cret".into()),
        redirect_uris: vec!["http://127.0.0.1/auth/callback".into()],
    }];
    Provider::start(clients, people).await.unwrap()
}

async fn serve(idp: &Provider) -> Served {
    let issuer = idp.issuer().to_owned();
    served::serve(move |config: &mut GatewayConfig| {
        config.sign_in = Some(SignInConfig {
            oidc: OidcSettings { issuer, client_id: "beckon".into(), client_secret: Some("s3cret".into()) },
            admin_group: "beckon-admins".into(),
        });
    })
    .await
}

/// A signed-in browser and its CSRF token.
struct Signed {
    browser: Browser,
    csrf: String,
}

impl Signed {
    async fn sign_in(s: &Served, who: &str) -> Signed {
        let mut browser = Browser::default();
        let done = browser.sign_in(&s.gateway.url, who, "/").await.unwrap().unwrap();
        assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
        let me = browser.fetch(Method::GET, &format!("{}/v1/me", s.gateway.url), &s.gateway.url, None, None).await;
        let csrf = me.unwrap().json()["csrf_token"].as_str().unwrap().to_owned();
        Signed { browser, csrf }
    }

    async fn get(&mut self, s: &Served, path: &str) -> (StatusCode, Value) {
        let url = format!("{}{path}", s.gateway.url);
        let page = self.browser.fetch(Method::GET, &url, &s.gateway.url, None, None).await.unwrap();
        (page.status, page.json())
    }

    async fn post(&mut self, s: &Served, path: &str, body: Value) -> (StatusCode, Value) {
        let url = format!("{}{path}", s.gateway.url);
        let page = self.browser.fetch(Method::POST, &url, &s.gateway.url, Some(&self.csrf), Some(&body)).await.unwrap();
        (page.status, page.json())
    }

    /// The ids of the pending questions this person's list shows.
    async fn pending(&mut self, s: &Served) -> Vec<String> {
        let (status, listed) = self.get(s, "/v1/questions?status=pending").await;
        assert_eq!(status, StatusCode::OK, "{listed}");
        listed["questions"].as_array().unwrap().iter().map(|q| q["request_id"].as_str().unwrap().to_owned()).collect()
    }
}

/// A token made with the person's token, owned by `owner`: its secret.
async fn token_for(s: &Served, name: &str, owner: &str) -> String {
    let made = s
        .http
        .post(format!("{}/v1/tokens", s.gateway.url))
        .bearer_auth(&s.gateway.token)
        .json(&json!({"name": name, "kind": "ask_only", "owner": owner}))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), StatusCode::CREATED);
    let made: Value = made.json().await.unwrap();
    assert_eq!(made["token"]["owner"], owner);
    made["secret"].as_str().unwrap().to_owned()
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
        let session = s.beckon.question(adas.parse().unwrap()).await.unwrap().session_id;
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
    assert_eq!(s.beckon.question(adas.parse().unwrap()).await.unwrap().status.as_str(), "pending");

    // Bo's event stream carries nothing of Ada's or the group's sessions.
    let adas_session = s.beckon.question(adas.parse().unwrap()).await.unwrap().session_id.to_string();
    let engs_session = s.beckon.question(engs.parse().unwrap()).await.unwrap().session_id.to_string();
    let everyones_session = s.beckon.question(everyones.parse().unwrap()).await.unwrap().session_id.to_string();
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
