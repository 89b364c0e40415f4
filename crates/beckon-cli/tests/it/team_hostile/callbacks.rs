//! Callbacks go where the asker says, and on a team server the asker is anyone with an ask-only
//! token or a sign-in: a callback to a loopback, private, link-local or unspecified address —
//! written as an address in any form, or as a name that resolves to one (`localhost`) — is
//! refused when asked (422, naming `callback_url`), through either replica, from a token or a
//! person, and nothing is sent there. A server whose operator allows the network
//! (`--allow-callbacks-to`, here loopback) sends the signed callback to a receiver on 127.0.0.1.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use beckon_runtime::callbacks::signature;
use beckon_testkit::eventually;
use serde_json::{Value, json};

use super::{Replica, Signed, count, database, deploy_question, http, provider, replicas, token_for};

/// What a receiver got: each delivery's signature header and body.
type Received = Arc<Mutex<Vec<(String, Bytes)>>>;

async fn receive(State(received): State<Received>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let signed = headers.get("beckon-signature").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    received.lock().unwrap().push((signed, body));
    StatusCode::OK
}

/// A real HTTP receiver on 127.0.0.1: its port, and what it received.
async fn receiver() -> (u16, Received) {
    let received = Received::default();
    let app = Router::new().route("/hook", post(receive)).with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (port, received)
}

/// The deploy question with a callback to `url`.
fn with_callback(url: &str) -> Value {
    let mut body = deploy_question();
    body["callback_url"] = json!(url);
    body
}

/// Who asks: an ask-only token, or a signed-in person from their page.
enum Asker<'a> {
    Token(&'a str),
    Person(&'a Signed),
}

/// Asks `body` on `replica` as `asker`: the status and the answer's body.
async fn ask_as(asker: &Asker<'_>, replica: &Replica, body: &Value) -> (u16, Value) {
    let request = match asker {
        Asker::Token(token) => http().post(format!("{}/v1/questions", replica.endpoint.url)).bearer_auth(token),
        Asker::Person(person) => person.request(replica, reqwest::Method::POST, "/v1/questions"),
    };
    let response = request.json(body).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_callback_to_a_loopback_private_or_link_local_address_is_refused_when_asked() {
    let (cluster, url) = database("team").await;
    let idp = provider().await;
    let (a, b) = replicas(&url, &idp, &[]).await;
    let token = token_for(&a, &b, "person:ada").await;
    let ada = Signed::sign_in(&b, "ada").await;
    let (port, received) = receiver().await;
    let refused = [
        format!("http://127.0.0.1:{port}/hook"),
        format!("http://localhost:{port}/hook"),
        format!("http://LocalHost.:{port}/hook"),
        format!("http://[::1]:{port}/hook"),
        format!("http://[::ffff:127.0.0.1]:{port}/hook"),
        format!("http://2130706433:{port}/hook"),
        format!("http://0.0.0.0:{port}/hook"),
        "http://169.254.169.254/latest/meta-data/".to_owned(),
        "http://[fe80::1]/hook".to_owned(),
        "http://10.0.0.1/hook".to_owned(),
        "https://172.16.5.4/hook".to_owned(),
        "http://192.168.1.1/hook".to_owned(),
        "http://[fd00::1]/hook".to_owned(),
        "http://[::ffff:10.0.0.1]/hook".to_owned(),
    ];
    for callback in &refused {
        for (asker, replica) in [(Asker::Token(&token), &a), (Asker::Person(&ada), &b), (Asker::Token(&token), &b)] {
            let (status, body) = ask_as(&asker, replica, &with_callback(callback)).await;
            assert_eq!(status, 422, "{callback}: {body}");
            assert_eq!(body["error"]["kind"], "invalid_input", "{callback}: {body}");
            assert_eq!(body["error"]["field"], "callback_url", "{callback}: {body}");
            let said = body["error"]["message"].as_str().unwrap_or_default();
            assert!(said.contains("sends no callbacks to"), "{callback}: {said}");
            assert!(!said.contains("/hook") && !said.contains("meta-data"), "no path told back: {said}");
        }
    }
    // Nothing was asked, so nothing is queued for anyone or reaches the receiver.
    assert_eq!(count(&cluster, "SELECT count(*) FROM questions").await, 0);
    assert_eq!(count(&cluster, "SELECT count(*) FROM outbox").await, 0);
    assert!(received.lock().unwrap().is_empty());
    a.server.stop().await;
    b.server.stop().await;
}

/// The callback secret the replicas share, from the team's database.
async fn callback_secret(cluster: &beckon_store::testing::TestCluster) -> String {
    let url = cluster.url("team");
    tokio::task::spawn_blocking(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        client.query_one("SELECT value FROM settings WHERE key = 'callback_secret'", &[]).unwrap().get::<_, String>(0)
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_loopback_allowed_a_receiver_there_gets_the_signed_callback_by_address_and_by_name() {
    let (cluster, url) = database("team").await;
    let idp = provider().await;
    let (a, b) = replicas(&url, &idp, &["--allow-callbacks-to", "127.0.0.0/8"]).await;
    let token = token_for(&a, &b, "person:ada").await;
    let ada = Signed::sign_in(&b, "ada").await;
    let (port, received) = receiver().await;
    // By address from a token, and by a name that resolves into the network from a person.
    let mut asked = Vec::new();
    for (asker, replica, callback) in [
        (Asker::Token(&token), &a, format!("http://127.0.0.1:{port}/hook")),
        (Asker::Person(&ada), &b, format!("http://localhost:{port}/hook")),
    ] {
        let (status, body) = ask_as(&asker, replica, &with_callback(&callback)).await;
        assert_eq!(status, 201, "{callback}: {body}");
        asked.push(body["request_id"].as_str().unwrap().to_owned());
    }
    // Outside the network it allows, the rule still holds.
    let (status, body) = ask_as(&Asker::Token(&token), &a, &with_callback("http://10.0.0.1/hook")).await;
    assert_eq!((status, &body["error"]["field"]), (422, &json!("callback_url")), "{body}");

    eventually("the callbacks arriving", Duration::from_secs(30), || async {
        (received.lock().unwrap().len() >= asked.len()).then_some(())
    })
    .await;
    let secret = callback_secret(&cluster).await;
    let mut reported = Vec::new();
    for (signed, body) in received.lock().unwrap().iter() {
        let t: i64 = signed.trim_start_matches("t=").split(',').next().unwrap().parse().unwrap();
        assert_eq!(*signed, signature(&secret, t, body), "signed with the team's secret");
        let sent: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(sent["event"], "question_pending");
        reported.push(sent["request_id"].as_str().unwrap().to_owned());
    }
    reported.sort();
    asked.sort();
    assert_eq!(reported, asked);
    a.server.stop().await;
    b.server.stop().await;
}
