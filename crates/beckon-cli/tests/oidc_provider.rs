//! `beckon serve` against a third-party OpenID provider as a team runs it: the `oidc-provider`
//! package (pinned in tests/oidc-provider) with its own login, consent and sign-out pages, and
//! the person's name, email and groups in its userinfo response only (its default). A browser
//! stand-in signs in through those pages, is known by name and email with the admin group's
//! rights, and signs out through the provider (RP-initiated logout), after which signing in
//! asks who is there again.

#![allow(clippy::expect_used, clippy::unwrap_used)]

#[path = "support/serve_start.rs"]
mod serve_start;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use beckon_test_idp::{Browser, Page, hidden_field};
use reqwest::{Method, StatusCode};
use serde_json::json;
use serve_start::free_port;

/// The provider's folder: its script and pinned package.
fn provider_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/oidc-provider")
}

/// `oidc-provider` running as set up by `setup`; stopped when dropped.
struct OidcProvider {
    issuer: String,
    _child: tokio::process::Child,
}

impl OidcProvider {
    async fn start(dir: &Path, setup: serde_json::Value) -> OidcProvider {
        let script = provider_dir().join("provider.mjs");
        assert!(
            provider_dir().join("node_modules/oidc-provider").is_dir(),
            "oidc-provider is not installed: run `npm ci` in tests/oidc-provider (scripts/test does)"
        );
        let file = dir.join("provider.json");
        std::fs::write(&file, setup.to_string()).unwrap();
        let mut child = tokio::process::Command::new("node")
            .arg(&script)
            .arg(&file)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("node runs the provider");
        let stdout = child.stdout.take().unwrap();
        let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(stdout));
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the provider says it listens within 30 s")
            .unwrap()
            .expect("the provider printed a line");
        let issuer = line.strip_prefix("listening ").expect("`listening <issuer>`").to_owned();
        // Whatever else it prints is read, or its writes would fail and stop it.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        OidcProvider { issuer, _child: child }
    }
}

/// `location` as an absolute URL, relative to `from`.
fn absolute(from: &str, location: &str) -> String {
    url::Url::parse(from).unwrap().join(location).unwrap().to_string()
}

/// Follows redirects from `url` as a browser would, until a page that is not one: that page and
/// its URL.
async fn follow(browser: &mut Browser, mut url: String) -> (Page, String) {
    for _ in 0..20 {
        let page = browser.navigate(&url, "cross-site").await.unwrap();
        match &page.location {
            Some(location) if page.status.is_redirection() => url = absolute(&url, location),
            _ => return (page, url),
        }
    }
    panic!("more than 20 redirects from {url}");
}

/// The `action` of the first form in `page`.
fn form_action(page: &str) -> String {
    let start = page.find("action=\"").expect("a form") + "action=\"".len();
    page[start..start + page[start..].find('"').unwrap()].replace("&amp;", "&")
}

/// Submits `page`'s form (at `url`) with `fields`, then follows where it leads.
async fn submit(browser: &mut Browser, page: &Page, url: &str, fields: &[(&str, &str)]) -> (Page, String) {
    let action = absolute(url, &form_action(&page.body));
    let origin = Browser::site(url);
    let posted = browser.submit(&action, &format!("http://{origin}"), fields).await.unwrap();
    match &posted.location {
        Some(location) if posted.status.is_redirection() => follow(browser, absolute(&action, location)).await,
        _ => (posted, action),
    }
}

/// A browser signed in on the server at `base` as `who`, through the provider's login page and,
/// when it asks, its consent page.
async fn sign_in(base: &str, who: &str) -> Browser {
    let mut browser = Browser::default();
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
    let began = Instant::now();
    while beckon_gateway::Discovery::read(&data).is_err() {
        assert!(began.elapsed() < Duration::from_secs(60), "beckon serve did not serve");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

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
