//! `beckon serve` signing people in with the team's OpenID provider (`beckon-test-idp` on
//! loopback): the real binary over HTTPS with its own certificate, the client secret read from a
//! file, a browser stand-in that signs in and answers with its `__Host-` cookie and CSRF token,
//! the admin group as given; and the ways a sign-in set-up that can never work is refused before
//! anything starts.

use beckon_test_idp::{Browser, Client, Person, Provider};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::serve_start::{free_port, refused};

#[test]
fn a_sign_in_set_up_that_cannot_work_is_refused_before_anything_starts() {
    let said = refused(&["--oidc-issuer", "https://idp.example"]);
    assert!(said.contains("--oidc-client-id"), "{said}");
    let said = refused(&[
        "--oidc-issuer",
        "https://idp.example",
        "--oidc-client-id",
        "beckon",
        "--oidc-client-secret-file",
        "absent-secret",
    ]);
    assert!(said.contains("absent-secret") && said.contains("cannot read"), "{said}");
    // An issuer that is no URL can never work; one that does not answer yet can (the server
    // starts, and people sign in once it answers).
    let said = refused(&["--oidc-issuer", "idp.example", "--oidc-client-id", "beckon"]);
    assert!(said.contains("idp.example") && said.contains("not a URL"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_sign_in_on_a_team_server_over_https_and_answer_as_themselves() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let made = rcgen::generate_simple_self_signed(vec!["beckon.test".into()]).unwrap();
    let (cert, key, secret) = (dir.path().join("cert.pem"), dir.path().join("key.pem"), dir.path().join("secret"));
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
    std::fs::write(&secret, "s3cret\n").unwrap();
    let port = free_port();
    let public = format!("https://beckon.test:{port}");
    let people = vec![
        Person { subject: "ada".into(), email: "ada@example.com".into(), name: "Ada".into(), groups: vec![] },
        Person { subject: "ro".into(), email: "ro@example.com".into(), name: "Ro".into(), groups: vec!["ops".into()] },
    ];
    let clients = vec![Client {
        id: "beckon".into(),
        secret: Some("s3cret".into()),
        redirect_uris: vec![format!("{public}/auth/callback")],
    }];
    let idp = Provider::start(clients, people).await.unwrap();
    let mut server = tokio::process::Command::new(env!("CARGO_BIN_EXE_beckon"))
        .arg("--data-dir")
        .arg(&data)
        .args(["serve", "--port", &port.to_string(), "--listen", "127.0.0.1", "--public-url", &public])
        .arg("--tls-cert")
        .arg(&cert)
        .arg("--tls-key")
        .arg(&key)
        .args(["--oidc-issuer", idp.issuer(), "--oidc-client-id", "beckon", "--oidc-admin-group", "ops"])
        .arg("--oidc-client-secret-file")
        .arg(&secret)
        .env_remove("BECKON_DATABASE_URL")
        .env_remove("BECKON_OIDC_CLIENT_SECRET")
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let trusting = || {
        reqwest::Client::builder()
            .tls_built_in_root_certs(false)
            .add_root_certificate(reqwest::Certificate::from_pem(made.cert.pem().as_bytes()).unwrap())
            .resolve("beckon.test", ([127, 0, 0, 1], port).into())
    };
    let http = trusting().build().unwrap();
    let began = std::time::Instant::now();
    let token = loop {
        if let Ok(found) = beckon_gateway::Discovery::read(&data)
            && http.get(format!("{public}/v1/health")).bearer_auth(&found.token).send().await.is_ok()
        {
            break found.token;
        }
        assert!(server.try_wait().unwrap().is_none(), "beckon serve exited before serving");
        assert!(began.elapsed() < std::time::Duration::from_secs(60), "beckon serve did not serve");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };

    let mut ada = Browser::with(trusting());
    let done = ada.sign_in(&public, "ada", "/").await.unwrap().unwrap();
    assert_eq!((done.status, done.location.as_deref()), (StatusCode::SEE_OTHER, Some("/")), "{}", done.body);
    let session = ada.set_cookies.iter().find(|c| c.starts_with("__Host-beckon=")).expect("the __Host- cookie");
    assert!(session.contains("Secure") && session.contains("HttpOnly"), "{session}");
    let me = ada.fetch(Method::GET, &format!("{public}/v1/me"), &public, None, None).await.unwrap().json();
    assert_eq!((&me["subject"], &me["admin"]), (&json!("ada"), &json!(false)), "{me}");
    let csrf = me["csrf_token"].as_str().unwrap().to_owned();

    let asked = http
        .post(format!("{public}/v1/questions"))
        .bearer_auth(&token)
        .json(&json!({"agent": "claude-code", "session_key": "cc-1",
            "approval": {"tool_name": "Bash", "input": {"command": "make deploy"}}}))
        .send()
        .await
        .unwrap();
    let id = asked.json::<Value>().await.unwrap()["request_id"].as_str().unwrap().to_owned();
    let answer = format!("{public}/v1/questions/{id}/answer");
    let allow = json!({"answer": "Allow"});
    let refused = ada.fetch(Method::POST, &answer, &public, None, Some(&allow)).await.unwrap();
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "no CSRF token: {}", refused.body);
    let allowed = ada.fetch(Method::POST, &answer, &public, Some(&csrf), Some(&allow)).await.unwrap();
    assert_eq!(allowed.status, StatusCode::OK, "{}", allowed.body);
    assert_eq!(allowed.json()["answered_by"], "oidc:ada (Ada <ada@example.com>)");

    // The admin group is the one given: Ro manages tokens, Ada does not.
    let tokens = format!("{public}/v1/tokens");
    assert_eq!(ada.fetch(Method::GET, &tokens, &public, None, None).await.unwrap().status, StatusCode::FORBIDDEN);
    let mut ro = Browser::with(trusting());
    ro.sign_in(&public, "ro", "/").await.unwrap().unwrap();
    assert_eq!(ro.fetch(Method::GET, &tokens, &public, None, None).await.unwrap().status, StatusCode::OK);
    server.start_kill().unwrap();
    server.wait().await.unwrap();
}
