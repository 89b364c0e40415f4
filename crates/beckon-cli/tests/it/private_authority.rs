//! Agents' machines reaching a team server whose certificate comes from the team's own
//! authority: the real `beckon serve` over HTTPS with a certificate a test authority issued.
//! Without being told of the authority the CLI refuses the certificate and says so (not "Beckon
//! is not running"); `--ca-file` or the system's store (`SSL_CERT_FILE`) makes it trusted; and
//! `beckon setup` records the authority with the connection, so a hook run with nothing but its
//! home reaches the server and prints the person's decision.

use std::process::Stdio;
use std::time::Duration;

use beckon_store::testing::TestCa;
use serde_json::json;

use crate::support::another_machine::{beckon_at, finished};
use crate::support::hook;
use crate::support::questions;
use crate::support::serve_start::free_port;
use crate::support::served;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_trust_a_team_servers_private_authority_when_told_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new("Team CA").unwrap();
    let issued = ca.issue(&["localhost"]).unwrap();
    let (cert, key, ca_file) =
        (dir.path().join("cert.pem"), dir.path().join("key.pem"), dir.path().join("team-ca.pem"));
    std::fs::write(&cert, &issued.cert_pem).unwrap();
    std::fs::write(&key, &issued.key_pem).unwrap();
    std::fs::write(&ca_file, ca.cert_pem()).unwrap();
    let port = free_port();
    let url = format!("https://localhost:{port}");
    let data = dir.path().join("server");
    let _server = tokio::process::Command::new(env!("CARGO_BIN_EXE_beckon"))
        .arg("--data-dir")
        .arg(&data)
        .args(["serve", "--port", &port.to_string(), "--public-url", &url])
        .arg("--tls-cert")
        .arg(&cert)
        .arg("--tls-key")
        .arg(&key)
        .env_remove("BECKON_DATABASE_URL")
        .env("BECKON_SCRIPTS_MAY_APPROVE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let token = served::discovered(&data, Duration::from_secs(60)).await.token;
    let ca_path = ca_file.to_str().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();

    // Not told of the authority: the certificate is refused, and said to be.
    let refused = finished(beckon_at(&home).args(["--url", &url, "--token", &token, "pending"])).await;
    let said = text(&refused.stderr);
    assert!(!refused.status.success(), "{said}");
    assert!(said.contains("cannot trust the TLS certificate of") && said.contains("--ca-file"), "{said}");
    assert!(!said.contains("not running"), "{said}");

    // Told by --ca-file, or by the system's store as SSL_CERT_FILE sets it: trusted.
    let trusted =
        finished(beckon_at(&home).args(["--ca-file", ca_path, "--url", &url, "--token", &token, "pending"])).await;
    assert!(trusted.status.success(), "--ca-file: {}", text(&trusted.stderr));
    let trusted =
        finished(beckon_at(&home).env("SSL_CERT_FILE", &ca_file).args(["--url", &url, "--token", &token, "pending"]))
            .await;
    assert!(trusted.status.success(), "SSL_CERT_FILE: {}", text(&trusted.stderr));

    // Setup records the authority with the connection; the hook, with nothing but its home,
    // reaches the server through it.
    let setup = finished(
        beckon_at(&home)
            .env("BECKON_URL", &url)
            .env("BECKON_TOKEN", &token)
            .env("BECKON_CA_FILE", &ca_file)
            .args(["setup", "claude-code"]),
    )
    .await;
    assert!(setup.status.success(), "setup: {}", text(&setup.stderr));
    let check = finished(beckon_at(&home).args(["setup", "claude-code", "--check"])).await;
    assert!(check.status.success(), "--check: {}{}", text(&check.stdout), text(&check.stderr));
    let event = json!({"session_id": "c4f1", "cwd": "/home/ada/shop", "permission_mode": "default",
        "hook_event_name": "PermissionRequest", "tool_name": "Bash", "tool_input": {"command": "make deploy"}});
    let hook = hook::start(&mut beckon_at(&home), &event).await;
    let http = reqwest::Client::builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(ca.cert_pem().as_bytes()).unwrap())
        .build()
        .unwrap();
    let listed = format!("{url}/v1/questions");
    let first = questions::first_listed(&http, &listed, &token, Duration::from_secs(30), |listed| {
        format!("the hook's approval did not arrive: {listed}")
    })
    .await;
    let id = first["request_id"].as_str().unwrap().to_owned();
    let answered = http
        .post(format!("{url}/v1/questions/{id}/answer"))
        .bearer_auth(&token)
        .json(&json!({"answer": "Allow"}))
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), 200, "{}", answered.text().await.unwrap());
    let (printed, _) = hook::decision(hook, Duration::from_secs(30)).await;
    assert_eq!(printed["hookSpecificOutput"]["decision"]["behavior"], "allow", "{printed}");
}
