//! `beckon status --secret` prints the secret callbacks are signed with, so a receiver can check
//! `Beckon-Signature`; and `--help` warns that a token given as a flag is visible to others.

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

use crate::support::served::{Served, beckon, output, text};

type Received = Arc<Mutex<Vec<(String, Bytes)>>>;

async fn receive(State(received): State<Received>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let signed = headers.get("beckon-signature").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    received.lock().unwrap().push((signed, body));
    StatusCode::OK
}

/// A loopback callback receiver; its URL and what it received.
async fn receiver() -> (String, Received) {
    let received = Received::default();
    let app = Router::new().route("/hook", post(receive)).with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, received)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_secret_prints_the_secret_that_verifies_callbacks() {
    // The receiver is on loopback, which `beckon serve` sends callbacks to only when allowed.
    let mut served = Served::start_with("secret-test", |serve| {
        serve.arg("--allow-private-callbacks");
    })
    .await;
    let (url, received) = receiver().await;
    let asked = served
        .client
        .ask(&json!({
            "agent": "deployer",
            "callback_url": url,
            "questions": [{"question": "Ship it?", "header": "Ship", "multiSelect": false,
                "options": [{"label": "Yes", "description": "Go"}, {"label": "No", "description": "Wait"}]}],
        }))
        .await
        .unwrap();

    let printed = output(served.beckon().args(["status", "--secret"])).await;
    assert_eq!(printed.status.code(), Some(0), "{}", text(&printed.stderr));
    let said = text(&printed.stdout);
    let secret = said.trim_end_matches('\n');
    assert_eq!(said, format!("{secret}\n"), "only the secret, on one line");
    assert!(secret.len() == 64 && secret.bytes().all(|b| b.is_ascii_hexdigit()), "{said}");

    eventually("the callback arriving", Duration::from_secs(30), || async {
        (!received.lock().unwrap().is_empty()).then_some(())
    })
    .await;
    let (signed, body) = received.lock().unwrap()[0].clone();
    let sent: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(sent["request_id"], asked.request_id.to_string());
    let t: i64 = signed.trim_start_matches("t=").split(',').next().unwrap().parse().unwrap();
    assert_eq!(signed, signature(secret, t, &body), "the printed secret verifies the callback");

    let as_json = output(served.beckon().args(["status", "--secret", "--json"])).await;
    let as_json: Value = serde_json::from_slice(&as_json.stdout).unwrap();
    assert_eq!(as_json, json!({"callback_secret": secret}));

    // Beckon need not be running: the secret is read from the data folder.
    let pid = served.serve.id().unwrap().to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    tokio::time::timeout(Duration::from_secs(30), served.serve.wait()).await.unwrap().unwrap();
    let stopped = output(served.beckon().args(["status", "--secret"])).await;
    assert_eq!(stopped.status.code(), Some(0), "{}", text(&stopped.stderr));
    assert_eq!(text(&stopped.stdout), format!("{secret}\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_secret_in_a_folder_beckon_never_used_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let printed = output(beckon(dir.path()).args(["status", "--secret"])).await;
    assert_eq!(printed.status.code(), Some(1));
    assert_eq!(text(&printed.stdout), "");
    let said = text(&printed.stderr);
    assert!(said.contains("no database yet"), "{said}");
    assert!(!dir.path().join("beckon.db").exists(), "reading the secret creates nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_says_a_token_flag_is_visible_to_other_processes() {
    let dir = tempfile::tempdir().unwrap();
    let help = output(beckon(dir.path()).arg("--help")).await;
    assert!(help.status.success());
    let said = text(&help.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(said.contains("visible to other processes on this computer"), "{said}");
    assert!(said.contains("prefer setting BECKON_TOKEN in the environment"), "{said}");
}
