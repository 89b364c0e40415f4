//! Where a team server listens and is reached: plain HTTP beyond loopback only when asked for;
//! a public URL (a TLS reverse proxy's) carried by answer links and let through the Host check,
//! while other names are still refused.

#![allow(clippy::expect_used, clippy::unwrap_used)]

#[allow(dead_code)]
#[path = "support/server.rs"]
mod server;

use serde_json::{Value, json};
use server::Server;

fn refused(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_beckon"))
        .arg("--data-dir")
        .arg(dir.path())
        .args(["serve", "--port", "0"])
        .args(args)
        .env_remove("BECKON_DATABASE_URL")
        .output()
        .unwrap();
    assert!(!output.status.success(), "{args:?} should be refused");
    assert!(!dir.path().join("gateway.json").exists(), "{args:?}: nothing was served");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn plain_http_beyond_loopback_is_refused_unless_asked_for() {
    let said = refused(&["--listen", "0.0.0.0"]);
    assert!(said.contains("--allow-plain-http") && said.contains("reverse proxy"), "{said}");
    let said = refused(&["--public-url", "http://10.1.2.3:7393"]);
    assert!(said.contains("plain HTTP") && said.contains("https://"), "{said}");
    let said = refused(&["--public-url", "https://user:secret@beckon.example"]);
    assert!(said.contains("--public-url"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_url_is_in_links_and_its_host_is_let_through() {
    let dir = tempfile::tempdir().unwrap();
    let (data, logs) = (dir.path().join("data"), dir.path().join("logs"));
    std::fs::create_dir_all(&logs).unwrap();
    let server = Server::start_with(&data, &logs, &["--public-url", "https://beckon.example.test/"]).await;
    let endpoint = server.watch().borrow().endpoint.clone().unwrap();
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let health = |host: &'static str| {
        http.get(format!("{}/v1/health", endpoint.url)).bearer_auth(&endpoint.token).header("host", host).send()
    };
    // As the reverse proxy forwards it, with the public name.
    assert_eq!(health("beckon.example.test").await.unwrap().status(), 200);
    // Any other name is still a web page's rebinding trick.
    assert_eq!(health("evil.example").await.unwrap().status(), 403);
    assert_eq!(health("beckon.example.test:8443").await.unwrap().status(), 403);

    let asked: Value = http
        .post(format!("{}/v1/questions", endpoint.url))
        .bearer_auth(&endpoint.token)
        .json(&json!({"agent": "ci", "questions": [{"question": "Ship?", "header": "Ship", "multiSelect": false,
            "options": [{"label": "Yes", "description": "y"}, {"label": "No", "description": "n"}]}]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = asked["request_id"].as_str().unwrap();
    assert_eq!(asked["answer_url"], format!("https://beckon.example.test/v1/questions/{id}/answer"), "{asked}");
    server.stop().await;
}
