//! Rotating a team server's keys with the commands the operations page gives, its blocks read
//! from the page and run: the admin token (its hash deleted, a new one made by a start in a
//! terminal, each replica taking it up when it starts again) and the callback secret (a new one
//! written to the database, signing every callback of each replica once it starts again).

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use beckon_runtime::callbacks::signature;
use serde_json::json;

use super::{PATIENCE, Replica, admin_token, database, documented, eventually};
use crate::docs::book;

/// The page whose blocks this runs.
const PAGE: &str = "docs/src/team-server/operations.md";

/// The page's first step of a new admin token: forget the old one, then start in a terminal.
const FORGET_ADMIN_TOKEN: &str =
    r#"psql "$BECKON_DATABASE_URL" -c "DELETE FROM settings WHERE key = 'admin_token_sha256'""#;
/// How the page reads the callback secret on a team server.
const READ_CALLBACK_SECRET: &str =
    r#"psql "$BECKON_DATABASE_URL" -Atc "SELECT value FROM settings WHERE key = 'callback_secret'""#;
/// The page's new callback secret.
const NEW_CALLBACK_SECRET: &str = "NEW_SECRET=$(openssl rand -hex 32)";

/// The status of `GET /v1/tokens` on `replica` with `token`: 200 for the admin token, 401 for
/// one it does not know.
async fn tokens_with(replica: &Replica, token: &str) -> u16 {
    replica.with_token(reqwest::Method::GET, "/v1/tokens", token).send().await.unwrap().status().as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_admin_token_replaces_the_old_one_on_each_replica_as_it_restarts() {
    let (_cluster, url) = database("team").await;
    let a = Replica::start(&["--database", &url]).await;
    let b = Replica::start(&["--database", &url]).await;
    let old = admin_token(&a.server.printed(1));
    assert_eq!((tokens_with(&a, &old).await, tokens_with(&b, &old).await), (200, 200));

    // The block's first line run as it is; its second, `beckon serve` on a new, empty data
    // folder, is what `Replica::start` runs (`beckon --data-dir DIR serve --port 0`), the
    // database given as `--database` where the page has it in the environment.
    let block = book::block(PAGE, FORGET_ADMIN_TOKEN);
    let [forget, start] = &book::commands(&block.text())[..] else {
        panic!("{}: two commands, not:\n{}", block.at, block.text())
    };
    let dir = tempfile::tempdir().unwrap();
    documented(forget, &[("BECKON_DATABASE_URL", &url)], dir.path()).await;
    let start = book::words(&start.replace(r#""$(mktemp -d)""#, "DIR"));
    assert_eq!(start, ["beckon", "--data-dir", "DIR", "serve", "--port", "0"], "{}", block.at);
    // A start in a terminal makes the new one and shows it there.
    let terminal = Replica::start(&["--database", &url]).await;
    let new = admin_token(&terminal.server.printed(1));
    assert_ne!(new, old);
    terminal.server.stop().await;

    // A replica knows the admin token it read when it started, until it starts again.
    assert_eq!((tokens_with(&a, &old).await, tokens_with(&a, &new).await), (200, 401));
    a.server.stop().await;
    a.server.restart().await;
    assert_eq!((tokens_with(&a, &old).await, tokens_with(&a, &new).await), (401, 200));
    assert_eq!(tokens_with(&b, &old).await, 200, "b has not restarted yet");
    b.server.stop().await;
    b.server.restart().await;
    assert_eq!((tokens_with(&b, &old).await, tokens_with(&b, &new).await), (401, 200));
    assert!(!b.server.printed(2).contains(&new), "a restart does not show it again");
    a.server.stop().await;
    b.server.stop().await;
}

type Received = Arc<Mutex<Vec<(String, Bytes)>>>;

async fn receive(State(received): State<Received>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let signed = headers.get("beckon-signature").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    received.lock().unwrap().push((signed, body));
    StatusCode::OK
}

/// Asks with a callback to `url` and waits for its first delivery: `Beckon-Signature` and body.
async fn signed_callback(replica: &Replica, key: &str, url: &str, received: &Received) -> (String, Bytes) {
    let before = received.lock().unwrap().len();
    replica.ask(key, json!({"callback_url": url})).await;
    eventually("the callback", PATIENCE, || async { received.lock().unwrap().get(before).cloned() }).await
}

/// Whether `secret` signed the delivery.
fn signed_with(secret: &str, (signed, body): &(String, Bytes)) -> bool {
    let t: i64 = signed.trim_start_matches("t=").split(',').next().unwrap().parse().unwrap();
    *signed == signature(secret, t, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_callback_secret_signs_what_a_replica_sends_once_it_restarts() {
    let (_cluster, url) = database("team").await;
    let env = [("BECKON_DATABASE_URL", url.as_str())];
    // The receiver is on loopback, where callbacks go only when allowed.
    let replica = Replica::start(&["--database", &url, "--allow-private-callbacks"]).await;
    let received = Received::default();
    let app = Router::new().route("/hook", post(receive)).with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let dir = tempfile::tempdir().unwrap();
    let read = book::block(PAGE, READ_CALLBACK_SECRET).text();
    let rotate = book::block(PAGE, NEW_CALLBACK_SECRET).text();
    let old = documented(&read, &env, dir.path()).await.trim().to_owned();
    assert_eq!(old.len(), 64, "{old}");
    assert!(signed_with(&old, &signed_callback(&replica, "before", &hook, &received).await));

    documented(&rotate, &env, dir.path()).await;
    let new = documented(&read, &env, dir.path()).await.trim().to_owned();
    assert!(new.len() == 64 && new != old, "{new}");
    // Until it starts again, the replica signs with the secret it read at its start.
    assert!(signed_with(&old, &signed_callback(&replica, "rotating", &hook, &received).await));
    replica.server.stop().await;
    replica.server.restart().await;
    let after = signed_callback(&replica, "after", &hook, &received).await;
    assert!(signed_with(&new, &after) && !signed_with(&old, &after));
    replica.server.stop().await;
}
