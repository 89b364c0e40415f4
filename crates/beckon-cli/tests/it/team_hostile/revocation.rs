//! Sessions and pairings end with the person: an admin lists every person's sessions (browsers
//! and connected apps, the app named as the consent page named it) and ends them through one
//! replica, and they are refused on the other within a second; a person signs out everywhere;
//! nobody else may list or end anyone's.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use beckon_test_idp::{Browser, hidden_field};
use beckon_testkit::eventually;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{Replica, Signed, database, http, provider, replicas};

const APP: &str = "http://127.0.0.1:5999/cb";

/// Connects a desktop app named "Beckon on bo-laptop" as the person signed in in `browser` on
/// `replica`, as the app's own sign-in does: the consent page's text, and the app's secret.
async fn connect_app(browser: &mut Browser, replica: &Replica) -> (String, String) {
    let base = &replica.endpoint.url;
    let verifier = "a-verifier-long-enough-for-pkce-0123456789-abcdefghij";
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    let request = [
        ("redirect_uri", APP),
        ("state", "st-1"),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
        ("client_name", "Beckon on bo-laptop"),
    ];
    let query = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(request).finish();
    let asked = browser.navigate(&format!("{base}/auth/app?{query}"), "none").await.unwrap();
    assert_eq!(asked.status, 200, "{}", asked.body);
    let csrf = hidden_field(&asked.body, "csrf").unwrap();
    let mut form = request.to_vec();
    form.extend([("csrf", csrf.as_str()), ("choice", "connect")]);
    let pressed = browser.submit(&format!("{base}/auth/app"), base, &form).await.unwrap();
    let back = url::Url::parse(pressed.location.as_deref().unwrap()).unwrap();
    let code = back.query_pairs().find(|(k, _)| k == "code").unwrap().1.into_owned();
    let traded = http()
        .post(format!("{base}/auth/app/token"))
        .json(&json!({"code": code, "code_verifier": verifier, "redirect_uri": APP}))
        .send()
        .await
        .unwrap();
    assert_eq!(traded.status(), 200);
    (asked.body, traded.json::<Value>().await.unwrap()["token"].as_str().unwrap().to_owned())
}

/// `GET /v1/me` on `replica` with `cookie` or a bearer `secret`: its status.
async fn me(replica: &Replica, cookie: Option<&str>, secret: Option<&str>) -> u16 {
    let mut request = http().get(format!("{}/v1/me", replica.endpoint.url));
    if let Some(cookie) = cookie {
        request = request.header("cookie", format!("beckon_session={cookie}"));
    }
    if let Some(secret) = secret {
        request = request.bearer_auth(secret);
    }
    request.send().await.unwrap().status().as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_admin_ends_a_persons_sessions_on_every_replica_within_a_second() {
    let (_cluster, url) = database("team").await;
    let idp = provider().await;
    let (a, b) = replicas(&url, &idp, &[]).await;
    let mut browser = Browser::default();
    assert_eq!(browser.sign_in(&b.endpoint.url, "bo", "/").await.unwrap().unwrap().status, 303);
    let cookie = browser.cookie(&b.endpoint.url, "beckon_session").unwrap();
    let (consent, app) = connect_app(&mut browser, &b).await;
    // The consent page named the app, its port, and what it will be able to do.
    assert!(consent.contains("Beckon on bo-laptop (port 5999)"), "{consent}");
    assert!(consent.contains("answer them as you"), "{consent}");
    assert_eq!((me(&a, Some(&cookie), None).await, me(&a, None, Some(&app)).await), (200, 200));

    let (root, ada) = (Signed::sign_in(&a, "root").await, Signed::sign_in(&a, "ada").await);
    let people = root.request(&a, reqwest::Method::GET, "/v1/people").send().await.unwrap();
    let people: Value = people.json().await.unwrap();
    let bo = people["people"].as_array().unwrap().iter().find(|p| p["subject"] == "bo").unwrap().clone();
    let kinds: Vec<(&str, Option<&str>)> =
        bo["sessions"].as_array().unwrap().iter().map(|s| (s["kind"].as_str().unwrap(), s["app"].as_str())).collect();
    assert_eq!(kinds, [("browser", None), ("app", Some("Beckon on bo-laptop (port 5999)"))], "{bo}");
    assert!(!people.to_string().contains(&cookie) && !people.to_string().contains(&app), "no secret is listed");

    // Nobody but an admin lists or ends anyone's.
    assert_eq!(ada.request(&b, reqwest::Method::GET, "/v1/people").send().await.unwrap().status(), 403);
    let ended = ada.request(&b, reqwest::Method::DELETE, "/v1/people/bo/sessions").send().await.unwrap();
    assert_eq!(ended.status(), 403);

    // The admin ends them through A; on B they are refused within a second.
    let ended = root.request(&a, reqwest::Method::DELETE, "/v1/people/bo/sessions").send().await.unwrap();
    assert_eq!(ended.json::<Value>().await.unwrap()["ended"], 2);
    eventually("signing out on the other replica", Duration::from_secs(1), || async {
        ((me(&b, Some(&cookie), None).await, me(&b, None, Some(&app)).await) == (401, 401)).then_some(())
    })
    .await;
    let unpaired = http()
        .delete(format!("{}/v1/people/bo/pairings", b.endpoint.url))
        .bearer_auth(&b.endpoint.token)
        .send()
        .await
        .unwrap();
    assert_eq!(unpaired.json::<Value>().await.unwrap()["ended"], 0, "the admin token does it too");
    a.server.stop().await;
    b.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_person_signs_out_everywhere() {
    let (_cluster, url) = database("team").await;
    let idp = provider().await;
    let (a, b) = replicas(&url, &idp, &[]).await;
    let (here, there) = (Signed::sign_in(&a, "ada").await, Signed::sign_in(&b, "ada").await);
    let out = here.request(&a, reqwest::Method::POST, "/auth/logout?everywhere=true").send().await.unwrap();
    assert_eq!(out.status(), 200);
    assert_eq!(me(&b, Some(&there.cookie), None).await, 401, "her other browser is signed out too");
    assert_eq!(me(&a, Some(&here.cookie), None).await, 401);
    a.server.stop().await;
    b.server.stop().await;
}
