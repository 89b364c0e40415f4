//! `beckon serve` against a third-party OpenID provider as a team runs it: the `oidc-provider`
//! package (pinned in tests/oidc-provider) with its own login, consent and sign-out pages, and
//! the person's name, email and groups in its userinfo response only (its default). A browser
//! stand-in signs in through those pages, is known by name and email with the admin group's
//! rights, and signs out through the provider (RP-initiated logout), after which signing in
//! asks who is there again. And a team server whose provider and PostgreSQL both hold
//! certificates from the team's private authority, trusted by `--ca-file` alone.

use std::path::Path;
use std::time::{Duration, Instant};

use beckon_test_idp::{Browser, hidden_field};
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::support::oidc_provider::{OidcProvider, follow, submit};
use crate::support::serve_start::free_port;
use crate::support::served;

/// A browser signed in on the server at `base` as `who`, through the provider's login page and,
/// when it asks, its consent page.
async fn sign_in(base: &str, who: &str) -> Browser {
    sign_in_with(Browser::default(), base, who).await
}

async fn sign_in_with(mut browser: Browser, base: &str, who: &str) -> Browser {
    let (login, at) = follow(&mut browser, format!("{base}/auth/login?next=/")).await;
    assert!(login.body.contains("name=\"login\""), "the provider's login page: {}", login.body);
    let fields = [("prompt", "login"), ("login", who), ("password", "any")];
    let (consent, at) = submit(&mut browser, &login, &at, &fields).await;
    let (home, at) = if consent.body.contains("name=\"prompt\" value=\"consent\"") {
        submit(&mut browser, &consent, &at, &[("prompt", "consent")]).await
    } else {
        (consent, at)
    };
    assert_eq!(at, format!("{base}/"), "back home after signing in: {}", home.body);
    browser
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_sign_in_and_out_through_a_third_party_provider_that_puts_claims_in_userinfo() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let secret = dir.path().join("client-secret");
    std::fs::write(&secret, "s3cret-from-the-provider\n").unwrap();
    let provider = OidcProvider::start(
        dir.path(),
        json!({
            "port": free_port(),
            "clients": [{
                "client_id": "beckon",
                "client_secret": "s3cret-from-the-provider",
                "redirect_uris": [format!("{base}/auth/callback")],
                "post_logout_redirect_uris": [format!("{base}/auth/signed-out")],
            }],
            "people": {
                "ada": {"name": "Ada Lovelace", "email": "ada@example.com", "groups": ["beckon-admins"]},
                "bo": {"name": "Bo", "email": "bo@example.com", "groups": ["design"]},
            },
        }),
    )
    .await;
    let data = dir.path().join("data");
    let _server = tokio::process::Command::new(env!("CARGO_BIN_EXE_beckon"))
        .arg("--data-dir")
        .arg(&data)
        .args(["serve", "--port", &port.to_string()])
        .args(["--oidc-issuer", &provider.issuer, "--oidc-client-id", "beckon"])
        .arg("--oidc-client-secret-file")
        .arg(&secret)
        .env_remove("BECKON_DATABASE_URL")
        .env_remove("BECKON_OIDC_CLIENT_SECRET")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    served::discovered(&data, Duration::from_secs(60)).await;

    // Ada signs in on the provider's own pages: its login form, then its consent.
    let mut ada = sign_in(&base, "ada").await;
    let me = ada.fetch(Method::GET, &format!("{base}/v1/me"), &base, None, None).await.unwrap().json();
    assert_eq!(me["subject"], "ada", "{me}");
    assert_eq!(me["name"], "Ada Lovelace", "the name from userinfo: {me}");
    assert_eq!(me["email"], "ada@example.com", "the email from userinfo: {me}");
    assert_eq!(me["groups"], json!(["beckon-admins"]), "the groups from userinfo: {me}");
    assert_eq!(me["admin"], true, "{me}");
    let tokens = ada.fetch(Method::GET, &format!("{base}/v1/tokens"), &base, None, None).await.unwrap();
    assert_eq!(tokens.status, StatusCode::OK, "an admin by the provider's groups: {}", tokens.body);
    let mut bo = sign_in(&base, "bo").await;
    let me = bo.fetch(Method::GET, &format!("{base}/v1/me"), &base, None, None).await.unwrap().json();
    assert_eq!((&me["name"], &me["admin"]), (&json!("Bo"), &json!(false)), "{me}");

    // Signing out goes through the provider, which sends the browser back signed out.
    let csrf = ada.fetch(Method::GET, &format!("{base}/v1/me"), &base, None, None).await.unwrap().json()["csrf_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let out = ada.fetch(Method::POST, &format!("{base}/auth/logout"), &base, Some(&csrf), None).await.unwrap().json();
    let next = out["next"].as_str().unwrap().to_owned();
    assert!(next.starts_with(&format!("{}/session/end?", provider.issuer)), "{out}");
    let (confirm, at) = follow(&mut ada, next).await;
    let xsrf =
        hidden_field(&confirm.body, "xsrf").unwrap_or_else(|| panic!("the provider's sign-out page: {}", confirm.body));
    let (landed, at) = submit(&mut ada, &confirm, &at, &[("xsrf", &xsrf), ("logout", "yes")]).await;
    assert_eq!(at, format!("{base}/auth/signed-out"), "{}", landed.body);
    assert!(landed.body.contains("You are signed out"), "{}", landed.body);
    assert_eq!(ada.cookie(&base, "beckon_session"), None, "the session's cookie is gone");
    let me = ada.fetch(Method::GET, &format!("{base}/v1/me"), &base, None, None).await.unwrap();
    assert_eq!(me.status, StatusCode::FORBIDDEN, "no one is signed in: {}", me.body);
    // The provider forgot her too: signing in again asks who is there.
    let (again, _) = follow(&mut ada, format!("{base}/auth/login?next=/")).await;
    assert!(again.body.contains("name=\"login\""), "the provider asks again: {}", again.body);
}

/// `beckon serve` on `port` with `args`, its data in `data`; killed when dropped.
fn serve(data: &Path, port: u16, args: &[&str]) -> tokio::process::Child {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_beckon"))
        .arg("--data-dir")
        .arg(data)
        .args(["serve", "--port", &port.to_string()])
        .args(args)
        .env_remove("BECKON_DATABASE_URL")
        .env_remove("BECKON_OIDC_CLIENT_SECRET")
        .env_remove("BECKON_CA_FILE")
        .env_remove("SSL_CERT_FILE")
        .env_remove("SSL_CERT_DIR")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_authority_named_by_ca_file_is_trusted_for_the_provider_and_the_database() {
    use beckon_store::testing::{TestCa, TestCluster};

    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new("Team CA").unwrap();
    let ca_file = dir.path().join("team-ca.pem");
    std::fs::write(&ca_file, ca.cert_pem()).unwrap();
    let database_cert = ca.issue(&["localhost"]).unwrap();
    let cluster = tokio::task::spawn_blocking(move || {
        TestCluster::start_with_tls(&database_cert.cert_pem, &database_cert.key_pem).unwrap()
    })
    .await
    .unwrap();
    let database = format!("postgres://beckon@localhost:{}/postgres?sslmode=verify-full", cluster.port());
    let provider_cert = ca.issue(&["localhost"]).unwrap();
    let (cert, key) = (dir.path().join("idp.pem"), dir.path().join("idp.key"));
    std::fs::write(&cert, &provider_cert.cert_pem).unwrap();
    std::fs::write(&key, &provider_cert.key_pem).unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let provider = OidcProvider::start(
        dir.path(),
        json!({
            "port": free_port(),
            "tls": {"host": "localhost", "cert": cert, "key": key},
            "clients": [{
                "client_id": "beckon",
                "client_secret": "s3cret",
                "redirect_uris": [format!("{base}/auth/callback")],
                "post_logout_redirect_uris": [format!("{base}/auth/signed-out")],
            }],
            "people": {"ada": {"name": "Ada Lovelace", "email": "ada@example.com", "groups": []}},
        }),
    )
    .await;
    assert!(provider.issuer.starts_with("https://localhost:"), "{}", provider.issuer);
    let oidc = ["--oidc-issuer", provider.issuer.as_str(), "--oidc-client-id", "beckon"];
    let secret = dir.path().join("secret");
    std::fs::write(&secret, "s3cret").unwrap();
    let secret = secret.to_str().unwrap();

    // Without the authority: the database's certificate is refused, and said to be.
    let refused = serve(&dir.path().join("refused"), free_port(), &[&["--database", &database], &oidc[..]].concat());
    let output = tokio::time::timeout(Duration::from_secs(60), refused.wait_with_output()).await.unwrap().unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{said}");
    assert!(said.contains("certificate"), "the refusal names the certificate: {said}");

    // With it: the replica reaches both, and Ada signs in.
    let data = dir.path().join("data");
    let args = [
        &["--database", database.as_str(), "--oidc-client-secret-file", secret, "--ca-file", ca_file.to_str().unwrap()],
        &oidc[..],
    ]
    .concat();
    let mut server = serve(&data, port, &args);
    let began = Instant::now();
    while beckon_gateway::Discovery::read(&data).is_err() {
        assert!(server.try_wait().unwrap().is_none(), "beckon serve exited");
        assert!(began.elapsed() < Duration::from_secs(60), "beckon serve did not serve");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let trusting = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(ca.cert_pem().as_bytes()).unwrap());
    let mut ada = sign_in_with(Browser::with(trusting), &base, "ada").await;
    let me = ada.fetch(Method::GET, &format!("{base}/v1/me"), &base, None, None).await.unwrap().json();
    assert_eq!(me["name"], "Ada Lovelace", "{me}");
    let encrypted: i64 = tokio::task::spawn_blocking(move || {
        cluster.client("postgres").unwrap().query_one("SELECT count(*) FROM pg_stat_ssl WHERE ssl", &[]).unwrap().get(0)
    })
    .await
    .unwrap();
    assert!(encrypted >= 1, "the replica's connections are encrypted");
}
