//! The desktop app signing in to a team inbox (RFC 8252), over real loopback HTTP with a real
//! OpenID provider: the app's address in the person's browser leads through the sign-in to a
//! page asking them; only their press on it (with the page's token, from the server's own
//! origin) sends a code to the app's loopback address; the code is good once, only with its
//! PKCE verifier and redirect URI; the session it gives acts as the person (as their browser
//! does, without CSRF tokens: no page can send it) until the app signs out.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use beckon_gateway::GatewayConfig;
use beckon_test_idp::{Browser, Person, Provider, hidden_field};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::served;

use served::Served;
use served::team::{self, person, sign_in_config, token_for};

const APP: &str = "http://127.0.0.1:53682/callback";

async fn serve(idp: &Provider) -> Served {
    let sign_in = sign_in_config(idp);
    served::serve(move |config: &mut GatewayConfig| config.sign_in = Some(sign_in)).await
}

/// What the app makes for one sign-in: its verifier and the address it opens.
struct AppSignIn {
    verifier: String,
    path: String,
}

impl AppSignIn {
    fn new(state: &str) -> AppSignIn {
        let verifier = hex::encode(rand::random::<[u8; 32]>());
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("redirect_uri", APP)
            .append_pair("state", state)
            .append_pair("code_challenge", &challenge)
            .append_pair("code_challenge_method", "S256")
            .finish();
        AppSignIn { verifier, path: format!("/auth/app?{query}") }
    }
}

/// The consent page's fields, with what the person pressed.
fn form(page: &str, choice: &'static str) -> Vec<(&'static str, String)> {
    let mut fields: Vec<(&'static str, String)> =
        ["redirect_uri", "state", "code_challenge", "code_challenge_method", "csrf"]
            .into_iter()
            .map(|name| (name, hidden_field(page, name).unwrap_or_else(|| panic!("no {name} in {page}"))))
            .collect();
    fields.push(("choice", choice.to_owned()));
    fields
}

async fn press(
    browser: &mut Browser,
    s: &Served,
    fields: &[(&'static str, String)],
    origin: &str,
) -> beckon_test_idp::Page {
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    browser.submit(&format!("{}/auth/app", s.gateway.url), origin, &fields).await.unwrap()
}

/// The code in the redirect to the app, and its state.
fn code_of(location: &str) -> (String, String) {
    let url = url::Url::parse(location).unwrap();
    assert!(location.starts_with(APP), "{location}");
    let pair = |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned()).unwrap_or_default();
    (pair("code"), pair("state"))
}

async fn trade(s: &Served, body: Value) -> (StatusCode, Value) {
    let response = s.http.post(format!("{}/auth/app/token", s.gateway.url)).json(&body).send().await.unwrap();
    (response.status(), response.json().await.unwrap_or(Value::Null))
}

/// A signed-in browser's consent page for a new app sign-in.
async fn consent_page(browser: &mut Browser, s: &Served, sign_in: &AppSignIn) -> String {
    let page = browser.navigate(&format!("{}{}", s.gateway.url, sign_in.path), "none").await.unwrap();
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    page.body
}

#[tokio::test]
async fn the_app_gets_a_session_only_by_the_persons_press_and_its_own_verifier() {
    let idp = team::provider(vec![Person { name: "Ada".into(), ..person("ada", &[]) }]).await;
    let s = serve(&idp).await;
    let base = s.gateway.url.clone();
    let mut browser = Browser::default();
    let first = AppSignIn::new("st-1");

    // Not signed in yet: off to sign in, then back to the same request.
    let page = browser.navigate(&format!("{base}{}", first.path), "none").await.unwrap();
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    let login = page.location.unwrap();
    assert!(login.starts_with("/auth/login?next=%2Fauth%2Fapp%3F"), "{login}");
    let back = browser.sign_in(&base, "ada", &first.path).await.unwrap().unwrap();
    assert_eq!(back.location.as_deref(), Some(first.path.as_str()));

    // The page asks; looking at it issues nothing, and it cannot be framed.
    let asked = browser.navigate(&format!("{base}{}", first.path), "cross-site").await.unwrap();
    assert_eq!((asked.status, asked.location.as_deref()), (StatusCode::OK, None));
    assert!(
        asked.body.contains("as <strong>Ada</strong>") && asked.body.contains(">Connect</button>"),
        "{}",
        asked.body
    );
    let cookie = browser.cookie_header(&base).unwrap();
    let headers = s.http.get(format!("{base}{}", first.path)).header("cookie", cookie).send().await.unwrap();
    assert_eq!(headers.status(), StatusCode::OK);
    assert_eq!(headers.headers()["x-frame-options"], "DENY");
    assert!(headers.headers()["content-security-policy"].to_str().unwrap().contains("frame-ancestors 'none'"));

    // Another site's form, or the page's form without its token: nothing connects.
    let fields = form(&asked.body, "connect");
    let refused = press(&mut browser, &s, &fields, "http://elsewhere.example").await;
    assert_eq!((refused.status, refused.location), (StatusCode::FORBIDDEN, None));
    let mut forged = fields.clone();
    forged.iter_mut().find(|(k, _)| *k == "csrf").unwrap().1 = "0".repeat(64);
    let refused = press(&mut browser, &s, &forged, &base).await;
    assert_eq!((refused.status, refused.location), (StatusCode::FORBIDDEN, None));
    // Cancel tells the app so.
    let cancelled = press(&mut browser, &s, &form(&asked.body, "cancel"), &base).await;
    assert_eq!(cancelled.location.as_deref(), Some(format!("{APP}?error=access_denied&state=st-1").as_str()));

    // Connect: a code for the app, with its state.
    let connected = press(&mut browser, &s, &fields, &base).await;
    assert_eq!(connected.status, StatusCode::SEE_OTHER);
    let (code, state) = code_of(&connected.location.unwrap());
    assert_eq!(state, "st-1");
    // Without the verifier it is refused, and spent: the right verifier cannot use it after.
    let (status, body) = trade(&s, json!({"code": code, "redirect_uri": APP})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.to_string().contains("no PKCE code_verifier"), "{body}");
    let (status, body) = trade(&s, json!({"code": code, "code_verifier": first.verifier, "redirect_uri": APP})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");

    // Another verifier, another redirect URI: refused.
    for (verifier, redirect) in [("not-the-verifier", APP), ("", "http://127.0.0.1:1/other")] {
        let next = AppSignIn::new("st-2");
        let page = consent_page(&mut browser, &s, &next).await;
        let (code, _) = code_of(&press(&mut browser, &s, &form(&page, "connect"), &base).await.location.unwrap());
        let verifier = if verifier.is_empty() { next.verifier.as_str() } else { verifier };
        let (status, body) =
            trade(&s, json!({"code": code, "code_verifier": verifier, "redirect_uri": redirect})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    }

    // The right verifier: a session for Ada, once.
    let good = AppSignIn::new("st-3");
    let page = consent_page(&mut browser, &s, &good).await;
    let (code, _) = code_of(&press(&mut browser, &s, &form(&page, "connect"), &base).await.location.unwrap());
    let trade_body = json!({"code": code, "code_verifier": good.verifier, "redirect_uri": APP});
    let (status, granted) = trade(&s, trade_body.clone()).await;
    assert_eq!(status, StatusCode::OK, "{granted}");
    assert_eq!(granted["person"]["subject"], "ada");
    let (status, _) = trade(&s, trade_body).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "a code is traded once");
    let secret = granted["token"].as_str().unwrap().to_owned();

    // The app acts as Ada: it reads her share and answers as her, with no CSRF token.
    let adas_token = token_for(&s, "ada-laptop", "person:ada").await;
    let asked = s
        .http
        .post(format!("{base}/v1/questions"))
        .bearer_auth(&adas_token)
        .json(&json!({"agent": "claude-code", "approval": {"tool_name": "Bash", "input": {"command": "make deploy"}}}))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    let id = asked["request_id"].as_str().unwrap();
    let me: Value =
        s.http.get(format!("{base}/v1/me")).bearer_auth(&secret).send().await.unwrap().json().await.unwrap();
    assert_eq!((&me["kind"], &me["subject"]), (&json!("member"), &json!("ada")), "{me}");
    let snapshot: Value = s
        .http
        .post(format!("{base}/v1/window/bootstrap"))
        .bearer_auth(&secret)
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(snapshot["pending"][0]["id"], id, "{snapshot}");
    let allowed = s
        .http
        .post(format!("{base}/v1/window/answer"))
        .bearer_auth(&secret)
        .json(&json!({"requestId": id, "answers": [{"selected": ["Allow"]}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(allowed.status(), StatusCode::OK);
    let stored = s.beckon.inbox().question(id.parse().unwrap()).await.unwrap();
    assert_eq!(stored.answered_by.as_deref(), Some("oidc:ada (Ada <ada@example.com>)"));

    // Signing the app out ends its session, and says how to come back.
    let out = s.http.post(format!("{base}/auth/logout")).bearer_auth(&secret).send().await.unwrap();
    assert_eq!(out.status(), StatusCode::OK);
    let after = s.http.get(format!("{base}/v1/me")).bearer_auth(&secret).send().await.unwrap();
    assert_eq!(after.status(), StatusCode::UNAUTHORIZED);
    assert!(after.text().await.unwrap().contains("sign the app in again"));
}

#[tokio::test]
async fn a_request_that_is_not_an_apps_is_refused_before_anything_is_shown() {
    let idp = team::provider(vec![Person { name: "Ada".into(), ..person("ada", &[]) }]).await;
    let s = serve(&idp).await;
    let base = s.gateway.url.clone();
    let mut browser = Browser::default();
    browser.sign_in(&base, "ada", "/").await.unwrap().unwrap();
    let good = AppSignIn::new("st");
    let challenge = url::Url::parse(&format!("{base}{}", good.path))
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "code_challenge")
        .unwrap()
        .1
        .into_owned();
    let ask = |redirect: &str, method: &str, challenge: &str| {
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("redirect_uri", redirect)
            .append_pair("state", "st")
            .append_pair("code_challenge", challenge)
            .append_pair("code_challenge_method", method)
            .finish();
        format!("{base}/auth/app?{query}")
    };
    for (url, why) in [
        (ask("https://evil.example/callback", "S256", &challenge), "another site"),
        (ask("http://localhost:53682/callback", "S256", &challenge), "a name, not loopback"),
        (ask("http://127.0.0.1/callback", "S256", &challenge), "no port"),
        (ask(APP, "plain", &challenge), "PKCE without S256"),
        (ask(APP, "S256", "short"), "no real challenge"),
    ] {
        let page = browser.navigate(&url, "none").await.unwrap();
        assert_eq!((page.status, page.location.as_deref()), (StatusCode::BAD_REQUEST, None), "{why}: {}", page.body);
        assert!(!page.body.contains("<form"), "{why}");
    }
}
