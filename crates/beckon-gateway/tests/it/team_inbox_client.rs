//! The app's side of a team inbox against a real team server on loopback: it signs in through
//! a browser stand-in that signs the person in, presses Connect and follows the redirect to the
//! app's own loopback listener; then it reads the person's share, follows their events, answers
//! as them, and after signing out is told to sign in again.

use std::time::Duration;

use beckon_gateway::GatewayConfig;
use beckon_gateway::client::ClientError;
use beckon_gateway::team_inbox::{self, AppSignIn};
use beckon_runtime::api::ErrorKind;
use beckon_runtime::api::window::{AnswerQuestion, NoArgs, WindowCommand};
use beckon_runtime::{AnswerReceipt, WindowSnapshot};
use beckon_test_idp::{Browser, Provider, hidden_field};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::served;

use served::Served;
use served::team::{self, person, sign_in_config, token_for};

async fn provider() -> Provider {
    team::provider(vec![person("ada", &[]), person("bo", &[])]).await
}

async fn serve(idp: &Provider) -> Served {
    let sign_in = sign_in_config(idp);
    served::serve(move |config: &mut GatewayConfig| config.sign_in = Some(sign_in)).await
}

/// What the person does in their browser: opens the app's address, signs in, presses `choice`,
/// and the browser follows the redirect to the app.
async fn in_the_browser(s: &Served, who: &str, browser_url: &str, choice: &str) {
    let mut browser = Browser::default();
    let base = &s.gateway.url;
    let first = browser.navigate(browser_url, "none").await.unwrap();
    assert_eq!(first.status, StatusCode::SEE_OTHER, "not signed in yet: {}", first.body);
    let path = browser_url.strip_prefix(base.as_str()).unwrap();
    browser.sign_in(base, who, path).await.unwrap().unwrap();
    let page = browser.navigate(browser_url, "cross-site").await.unwrap();
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    let fields: Vec<(&str, String)> = ["redirect_uri", "state", "code_challenge", "code_challenge_method", "csrf"]
        .into_iter()
        .map(|name| (name, hidden_field(&page.body, name).unwrap()))
        .collect();
    let mut fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    fields.push(("choice", choice));
    let pressed = browser.submit(&format!("{base}/auth/app"), base, &fields).await.unwrap();
    assert_eq!(pressed.status, StatusCode::SEE_OTHER, "{}", pressed.body);
    let app = pressed.location.unwrap();
    assert!(app.starts_with("http://127.0.0.1:"), "{app}");
    // The browser follows the redirect to the app's loopback listener.
    let landed = reqwest::get(&app).await.unwrap();
    assert_eq!(landed.status(), StatusCode::OK);
}

async fn ask(s: &Served, token: &str, body: Value) -> String {
    let asked =
        s.http.post(format!("{}/v1/questions", s.gateway.url)).bearer_auth(token).json(&body).send().await.unwrap();
    assert_eq!(asked.status(), StatusCode::CREATED);
    asked.json::<Value>().await.unwrap()["request_id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_app_signs_in_through_the_browser_follows_its_share_and_answers_as_the_person() {
    let idp = provider().await;
    let s = serve(&idp).await;
    let http = team_inbox::http(None).unwrap();

    let sign_in = AppSignIn::begin(http.clone(), &s.gateway.url).await.unwrap();
    assert!(sign_in.browser_url.starts_with(&format!("{}/auth/app?", s.gateway.url)));
    let browser_url = sign_in.browser_url.clone();
    let (connected, ()) =
        tokio::join!(sign_in.finish(Duration::from_secs(30)), in_the_browser(&s, "ada", &browser_url, "connect"));
    let connected = connected.unwrap();
    assert_eq!(connected.person.subject, "ada");
    assert_eq!(connected.person.name.as_deref(), Some("ADA"));
    let inbox = connected.inbox;

    // Bo's approval and everyone's question are asked; Ada's share is everyone's.
    let bos_token = token_for(&s, "bo-laptop", "person:bo").await;
    let bos_token = bos_token.as_str();
    let bos = ask(
        &s,
        bos_token,
        json!({"agent": "claude-code", "approval": {"tool_name": "Bash", "input": {"command": "ls"}}}),
    )
    .await;
    let bos_session = s.beckon.inbox().question(bos.parse().unwrap()).await.unwrap().session_id;
    let snapshot: WindowSnapshot = inbox.call(&WindowCommand::Bootstrap(NoArgs {})).await.unwrap();
    assert!(snapshot.pending.is_empty(), "Bo's approval is not Ada's");

    // A question for Ada arrives on her stream; Bo's does not.
    let mut events = inbox.events(snapshot.last_seq).await.unwrap();
    let for_ada = json!({"agent": "release", "audience": "person:ada",
        "questions": [{"question": "Ship?", "header": "Ship", "options": [{"label": "Yes"}, {"label": "No"}]}]});
    let adas = ask(&s, &s.gateway.token, for_ada).await;
    let pending = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let event = events.next().await.unwrap().unwrap();
            match event.pending() {
                Some(question) => break question,
                None => assert_ne!(event.session_id(), Some(bos_session), "{event:?}"),
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(pending.id.to_string(), adas);

    // She answers from the app, as herself.
    let receipt: AnswerReceipt = inbox.call(&answer(&adas, "Yes")).await.unwrap();
    assert_eq!(receipt.question.status.as_str(), "answered");
    let stored = s.beckon.inbox().question(adas.parse().unwrap()).await.unwrap();
    assert_eq!(stored.answered_by.as_deref(), Some("oidc:ada (ADA <ada@example.com>)"));
    // Bo's approval is not hers to answer.
    let refused = inbox.call::<Value>(&answer(&bos, "Allow")).await;
    assert_eq!(refused.unwrap_err().kind(), Some(ErrorKind::NotFound));

    // Signed out: every call says so, and a stream already open ends at its next event.
    let mut open = inbox.events(0).await.unwrap();
    while let Ok(event) = tokio::time::timeout(Duration::from_millis(500), open.next()).await {
        assert!(event.unwrap().is_some(), "the stream is open while she is signed in");
    }
    inbox.sign_out().await.unwrap();
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    ask(
        &s,
        &s.gateway.token,
        json!({"agent": "release", "questions": [{"question": "Again?", "header": "Again",
        "options": [{"label": "Yes"}, {"label": "No"}]}]}),
    )
    .await;
    let ended = tokio::time::timeout(Duration::from_secs(10), open.next()).await.unwrap().unwrap();
    assert_eq!(ended, None, "the stream ended");
    let after = inbox.call::<Value>(&WindowCommand::Bootstrap(NoArgs {})).await.unwrap_err();
    assert_eq!(after.kind(), Some(ErrorKind::Unauthorized), "{after}");
    assert!(matches!(inbox.events(0).await, Err(ClientError::Api { status: 401, .. })));
}

#[tokio::test]
async fn a_cancelled_or_foreign_visit_connects_nothing() {
    let idp = provider().await;
    let s = serve(&idp).await;
    let http = team_inbox::http(None).unwrap();

    // The person presses Cancel.
    let sign_in = AppSignIn::begin(http.clone(), &s.gateway.url).await.unwrap();
    let browser_url = sign_in.browser_url.clone();
    let (cancelled, ()) =
        tokio::join!(sign_in.finish(Duration::from_secs(30)), in_the_browser(&s, "ada", &browser_url, "cancel"));
    let cancelled = cancelled.unwrap_err();
    assert!(cancelled.to_string().contains("access_denied"), "{cancelled}");

    // Something else on this machine calls the app's address with a made-up code: passed over,
    // and the sign-in waits on until it gives up.
    let sign_in = AppSignIn::begin(http, &s.gateway.url).await.unwrap();
    let redirect = url::Url::parse(&sign_in.browser_url)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "redirect_uri")
        .unwrap()
        .1
        .into_owned();
    let forged = reqwest::get(format!("{redirect}?code=made-up&state=not-the-apps")).await.unwrap();
    assert_eq!(forged.status(), StatusCode::OK);
    let gave_up = sign_in.finish(Duration::from_millis(500)).await.unwrap_err();
    assert!(gave_up.to_string().contains("no sign-in within"), "{gave_up}");
}

/// The window's answer of `label` to question `id`.
fn answer(id: &str, label: &str) -> WindowCommand {
    let answers = vec![serde_json::from_value(json!({"selected": [label]})).unwrap()];
    WindowCommand::Answer(AnswerQuestion { request_id: id.to_owned(), answers, via: None })
}
