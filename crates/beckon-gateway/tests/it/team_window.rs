//! The window's calls from a browser on a team server (`POST /v1/window/{command}`), over real
//! loopback HTTP with people signed in through a real OpenID provider: the replies are the
//! desktop window's own types, cut to what each person may see; answers are the person's; the
//! calls need the CSRF token and a signed-in person; reading is not counted as writing; a person
//! gets a code to pair their own Slack account. And the window's files: served only where people
//! sign in, with a strict content policy, and nothing outside their folder.

use beckon_gateway::{GatewayConfig, GatewayError};
use beckon_runtime::{AnswerReceipt, BatchReceipt, ChannelPairing, ChannelPairingCode, PairedChannel, WindowSnapshot};
use beckon_test_idp::Provider;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::served;

use served::Served;
use served::team::{self, Signed, person, sign_in_config, token_for};

async fn provider() -> Provider {
    team::provider(vec![person("ada", &["eng"]), person("bo", &["design"]), person("root", &["beckon-admins"])]).await
}

/// The window's calls, as a signed-in page makes them.
trait Window {
    async fn call(&mut self, s: &Served, command: &str, args: Value) -> (StatusCode, Value);
    async fn snapshot(&mut self, s: &Served) -> WindowSnapshot;
}

impl Window for Signed {
    /// Window command `command` with `args`, as the window sends it.
    async fn call(&mut self, s: &Served, command: &str, args: Value) -> (StatusCode, Value) {
        let url = format!("{}/v1/window/{command}", s.gateway.url);
        let page = self.browser.fetch(Method::POST, &url, &s.gateway.url, Some(&self.csrf), Some(&args)).await.unwrap();
        (page.status, page.json())
    }

    async fn snapshot(&mut self, s: &Served) -> WindowSnapshot {
        let (status, body) = self.call(s, "bootstrap", json!({})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        serde_json::from_value(body).unwrap()
    }
}

async fn ask(s: &Served, token: &str, body: Value) -> String {
    let response =
        s.http.post(format!("{}/v1/questions", s.gateway.url)).bearer_auth(token).json(&body).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    response.json::<Value>().await.unwrap()["request_id"].as_str().unwrap().to_owned()
}

fn approval() -> Value {
    json!({"agent": "claude-code", "approval": {"tool_name": "Bash", "input": {"command": "make deploy"}}})
}

fn question() -> Value {
    json!({"agent": "release", "questions": [{"question": "Ship it?", "header": "Ship",
        "options": [{"label": "Yes"}, {"label": "No"}]}]})
}

fn pending(snapshot: &WindowSnapshot) -> Vec<String> {
    snapshot.pending.iter().map(|entry| entry.id.to_string()).collect()
}

fn sessions(snapshot: &WindowSnapshot) -> Vec<String> {
    snapshot.sessions.sessions.iter().map(|summary| summary.id.to_string()).collect()
}

#[tokio::test]
async fn each_persons_window_gets_the_desktops_types_cut_to_their_share() {
    let idp = provider().await;
    let s = served::serve(|config: &mut GatewayConfig| config.sign_in = Some(sign_in_config(&idp))).await;
    let adas_token = token_for(&s, "ada-laptop", "person:ada").await;
    let adas = ask(&s, &adas_token, approval()).await;
    let everyones = ask(&s, &s.gateway.token, question()).await;
    let adas_session = s.beckon.inbox().question(adas.parse().unwrap()).await.unwrap().session_id.to_string();
    let everyones_session = s.beckon.inbox().question(everyones.parse().unwrap()).await.unwrap().session_id.to_string();

    let mut ada = Signed::sign_in(&s, "ada").await;
    let mut bo = Signed::sign_in(&s, "bo").await;
    let mut root = Signed::sign_in(&s, "root").await;
    let snapshot = ada.snapshot(&s).await;
    assert_eq!(pending(&snapshot), [adas.clone(), everyones.clone()]);
    assert_eq!(sessions(&snapshot).len(), 2);
    let snapshot = bo.snapshot(&s).await;
    assert_eq!(pending(&snapshot), std::slice::from_ref(&everyones), "only everyone's");
    assert_eq!(sessions(&snapshot), std::slice::from_ref(&everyones_session));
    assert!(snapshot.last_seq > 0);
    assert_eq!(pending(&root.snapshot(&s).await), [adas.clone(), everyones.clone()], "an admin sees everything");

    // Ada's approval, to Bo: no such question or session, whatever the window asks.
    let (status, listed) = bo.call(&s, "list_sessions", json!({"after": null, "limit": 50})).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    let listed: Vec<&str> = listed["sessions"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(listed, [everyones_session.as_str()]);
    for (command, args) in [
        ("get_question", json!({"requestId": adas})),
        ("get_session", json!({"sessionId": adas_session})),
        ("answer", json!({"requestId": adas, "answers": [{"selected": ["Allow"]}]})),
        ("decline", json!({"requestId": adas, "reason": null})),
        ("cancel", json!({"sessionId": adas_session})),
    ] {
        let (status, body) = bo.call(&s, command, args).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{command}: {body}");
    }
    let (status, batch) =
        bo.call(&s, "answer_batch", json!({"requestIds": [adas], "decision": {"decision": "allow_once"}})).await;
    assert_eq!(status, StatusCode::OK, "{batch}");
    let batch: BatchReceipt = serde_json::from_value(batch).unwrap();
    assert!(batch.resolved.is_empty());
    assert_eq!(batch.failed[0].error.kind.as_str(), "not_found");
    // The admin is told whose it is.
    let (status, refused) =
        root.call(&s, "answer", json!({"requestId": adas, "answers": [{"selected": ["Allow"]}]})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("addressed to person:ada"), "{refused}");
    // ...and so is their window, before they try: the question and its session say whose it is.
    let (status, record) = root.call(&s, "get_question", json!({"requestId": adas})).await;
    assert_eq!((status, &record["only_for"]), (StatusCode::OK, &json!("person:ada")), "{record}");
    let (status, view) = root.call(&s, "get_session", json!({"sessionId": adas_session})).await;
    assert_eq!((status, &view["pending"]["only_for"]), (StatusCode::OK, &json!("person:ada")), "{view}");
    let (status, record) = root.call(&s, "get_question", json!({"requestId": everyones})).await;
    assert_eq!(status, StatusCode::OK, "{record}");
    assert!(record.get("only_for").is_none(), "everyone's is the admin's to answer too: {record}");

    // Ada reads and allows her own, as herself.
    let (status, record) = ada.call(&s, "get_question", json!({"requestId": adas})).await;
    assert_eq!((status, &record["status"]), (StatusCode::OK, &json!("pending")), "{record}");
    assert!(record.get("only_for").is_none(), "hers to answer: {record}");
    let (status, view) = ada.call(&s, "get_session", json!({"sessionId": adas_session})).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(view["pending"]["id"], adas);
    let (status, receipt) =
        ada.call(&s, "answer", json!({"requestId": adas, "answers": [{"selected": ["Allow"]}]})).await;
    assert_eq!(status, StatusCode::OK, "{receipt}");
    let receipt: AnswerReceipt = serde_json::from_value(receipt).unwrap();
    assert_eq!(receipt.question.status.as_str(), "answered");
    let stored = s.beckon.inbox().question(adas.parse().unwrap()).await.unwrap();
    assert_eq!(stored.answered_by.as_deref(), Some("oidc:ada (ADA <ada@example.com>)"));
    assert_eq!(stored.answered_via, Some(beckon_core::AnsweredVia::Window));
    // The desktop app answering from its notification says so; a front end that is not one is refused.
    let (status, body) = ada.call(&s, "decline", json!({"requestId": everyones, "via": "slack"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = ada.call(&s, "decline", json!({"requestId": everyones, "via": "notification"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let stored = s.beckon.inbox().question(everyones.parse().unwrap()).await.unwrap();
    assert_eq!(stored.answered_via, Some(beckon_core::AnsweredVia::Notification));
    let (status, metrics) = ada.call(&s, "metrics", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{metrics}");

    // What the window cannot do on a team server, and calls that are not the window's.
    let (status, body) = ada.call(&s, "save_settings", json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = ada.call(&s, "get_question", json!({"requestId": adas, "extra": 1})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let url = format!("{}/v1/window/bootstrap", s.gateway.url);
    let page = ada.browser.fetch(Method::POST, &url, &s.gateway.url, None, Some(&json!({}))).await.unwrap();
    assert_eq!(page.status, StatusCode::FORBIDDEN, "no CSRF token: {}", page.body);
    let by_token = s.http.post(&url).bearer_auth(&adas_token).json(&json!({})).send().await.unwrap();
    assert_eq!(by_token.status(), StatusCode::FORBIDDEN, "an agent's token is not a person");
    let nobody = s.http.post(&url).json(&json!({})).send().await.unwrap();
    assert_eq!(nobody.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn reading_through_the_window_is_not_counted_as_writing() {
    let idp = provider().await;
    let s = served::serve(|config: &mut GatewayConfig| {
        config.sign_in = Some(sign_in_config(&idp));
        // Signing in spends its own budget, not the writes': three writes are left.
        config.writes_per_second = 0.001;
        config.write_burst = 3.0;
    })
    .await;
    let mut ada = Signed::sign_in(&s, "ada").await;
    for _ in 0..20 {
        ada.snapshot(&s).await;
        let (status, _) = ada.call(&s, "metrics", json!({})).await;
        assert_eq!(status, StatusCode::OK);
    }
    let missing = json!({"requestId": "0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f", "reason": null});
    for _ in 0..3 {
        let (status, body) = ada.call(&s, "decline", missing.clone()).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    }
    let (status, body) = ada.call(&s, "decline", missing).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "a write is still a write: {body}");
}

#[tokio::test]
async fn a_person_gets_a_code_to_pair_their_own_slack_and_sees_it_paired() {
    let idp = provider().await;
    let s = served::serve(|config: &mut GatewayConfig| {
        config.sign_in = Some(sign_in_config(&idp));
        config.pairable_channels = vec!["slack".into()];
    })
    .await;
    let mut ada = Signed::sign_in(&s, "ada").await;
    let (status, channels) = ada.call(&s, "paired_channels", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{channels}");
    let unpaired: Vec<PairedChannel> = serde_json::from_value(channels).unwrap();
    assert_eq!(unpaired, [PairedChannel { channel: "slack".into(), account: None, paired_at_ms: None }]);

    let (status, body) = ada.call(&s, "pair_channel", json!({"channel": "slack"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let code: ChannelPairingCode = serde_json::from_value(body).unwrap();
    assert_eq!(code.code.len(), 8);
    assert!(code.expires_at_ms > s.beckon.now_ms());
    // What the bot does when Ada sends it from her Slack account.
    let ChannelPairing::Paired(paired) = s.beckon.pairings().pair("slack", "U0ADA", &code.code).await.unwrap() else {
        panic!("not paired");
    };
    assert_eq!(paired.person.subject, "ada");
    assert_eq!(paired.person.groups, ["eng"], "who she is, from her sign-in");
    let again = s.beckon.pairings().pair("slack", "U0MAL", &code.code).await.unwrap();
    assert_eq!(again, ChannelPairing::NoSuchCode, "once");
    let (_, channels) = ada.call(&s, "paired_channels", json!({})).await;
    assert_eq!(channels[0]["account"], "U0ADA");

    // Refused: a channel this server does not pair on, an unknown argument, a token, nobody.
    let (status, body) = ada.call(&s, "pair_channel", json!({"channel": "telegram"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("this server pairs: slack"), "{body}");
    let (status, _) = ada.call(&s, "pair_channel", json!({"channel": "slack", "account": "U0BO"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "nobody names the account: the bot hears it");
    let by_token = s
        .http
        .post(format!("{}/v1/window/pair_channel", s.gateway.url))
        .bearer_auth(&s.gateway.token)
        .json(&json!({"channel": "slack"}))
        .send()
        .await
        .unwrap();
    assert_eq!(by_token.status(), StatusCode::FORBIDDEN);
    let nobody = s
        .http
        .post(format!("{}/v1/window/pair_channel", s.gateway.url))
        .json(&json!({"channel": "slack"}))
        .send()
        .await
        .unwrap();
    assert_eq!(nobody.status(), StatusCode::UNAUTHORIZED);

    let (status, channels) = ada.call(&s, "unpair_channel", json!({"channel": "slack"})).await;
    assert_eq!(status, StatusCode::OK, "{channels}");
    assert_eq!(channels[0]["account"], Value::Null);
    assert_eq!(s.beckon.pairings().person("slack", "U0ADA").await.unwrap(), None);
}

/// A browser's push subscription: a real P-256 point and a 16-byte secret.
fn subscription(endpoint: &str) -> Value {
    use base64::Engine as _;
    use web_push_native::p256::elliptic_curve::sec1::ToEncodedPoint as _;
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let secret = web_push_native::p256::SecretKey::from_slice(&[5; 32]).unwrap();
    let point = secret.public_key().as_affine().to_encoded_point(false);
    json!({"endpoint": endpoint, "expirationTime": null,
        "keys": {"p256dh": b64.encode(point.as_bytes()), "auth": b64.encode([6u8; 16])}})
}

#[tokio::test]
async fn a_person_turns_pushes_on_for_their_browser_until_they_sign_out() {
    let idp = provider().await;
    let s = served::serve(|config: &mut GatewayConfig| config.sign_in = Some(sign_in_config(&idp))).await;
    let store = || beckon_store::Store::open_read_only(s.dir.path().join("beckon.db")).unwrap();
    let mut ada = Signed::sign_in(&s, "ada").await;
    let (status, offer) = ada.call(&s, "push_offer", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{offer}");
    let key = offer["applicationServerKey"].as_str().unwrap();
    assert_eq!(key.len(), 87, "an uncompressed P-256 point, base64url: {key}");

    let endpoint = "https://push.example.net/send/ada-phone";
    let (status, body) = ada.call(&s, "add_push_device", subscription(endpoint)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let device = store().read().push_device(endpoint).unwrap().expect("kept");
    assert_eq!(device.subject, "ada");

    // What is not a browser's subscription is refused, naming the field.
    let mut broken = subscription("http://push.example.net/x");
    broken["keys"]["auth"] = json!("c2hvcnQ");
    let (status, body) = ada.call(&s, "add_push_device", broken).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let problems = body["error"]["problems"].as_array().unwrap();
    let fields: Vec<&str> = problems.iter().map(|p| p["path"].as_str().unwrap()).collect();
    assert_eq!(fields, ["endpoint", "keys.auth"], "{body}");
    // Only a signed-in person has their browser pushed to; bo cannot remove ada's.
    let by_token = s
        .http
        .post(format!("{}/v1/window/add_push_device", s.gateway.url))
        .bearer_auth(&s.gateway.token)
        .json(&subscription("https://push.example.net/send/x"))
        .send()
        .await
        .unwrap();
    assert_eq!(by_token.status(), StatusCode::FORBIDDEN);
    let mut bo = Signed::sign_in(&s, "bo").await;
    let (status, _) = bo.call(&s, "remove_push_device", json!({"endpoint": endpoint})).await;
    assert_eq!(status, StatusCode::OK);
    assert!(store().read().push_device(endpoint).unwrap().is_some(), "not bo's to remove");

    // Ada turns it off, then on again; signing out takes it away with her sign-in.
    let (status, _) = ada.call(&s, "remove_push_device", json!({"endpoint": endpoint})).await;
    assert_eq!(status, StatusCode::OK);
    assert!(store().read().push_device(endpoint).unwrap().is_none());
    ada.call(&s, "add_push_device", subscription(endpoint)).await;
    let logout = format!("{}/auth/logout", s.gateway.url);
    let out = ada.browser.fetch(Method::POST, &logout, &s.gateway.url, Some(&ada.csrf), None).await.unwrap();
    assert_eq!(out.status, StatusCode::OK, "{}", out.body);
    assert!(store().read().push_device(endpoint).unwrap().is_none(), "gone with the sign-in");
}

/// A window folder: its page, an asset, and a hidden file; a file beside the folder.
fn window_files() -> (tempfile::TempDir, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("dist");
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>Beckon</title><div id=\"root\"></div>").unwrap();
    std::fs::write(dir.join("assets/app-1a2b.js"), "console.log(1)").unwrap();
    std::fs::write(dir.join(".env"), "SECRET=1").unwrap();
    std::fs::write(root.path().join("secret.txt"), "beside the folder").unwrap();
    (root, dir)
}

#[tokio::test]
async fn the_windows_files_are_served_where_people_sign_in_and_nothing_beside_them() {
    let idp = provider().await;
    let (_root, dir) = window_files();
    let (window, sign_in) = (dir.clone(), sign_in_config(&idp));
    let s = served::serve(move |config: &mut GatewayConfig| {
        config.sign_in = Some(sign_in);
        config.window_dir = Some(window);
    })
    .await;
    let get = |path: &str| s.http.get(format!("{}{path}", s.gateway.url)).send();

    let page = get("/").await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let header = |name: &str| page.headers().get(name).unwrap().to_str().unwrap().to_owned();
    assert_eq!(header("content-type"), "text/html; charset=utf-8");
    assert!(
        header("content-security-policy").starts_with("default-src 'self'"),
        "{}",
        header("content-security-policy")
    );
    assert!(header("content-security-policy").contains("frame-ancestors 'none'"));
    assert_eq!(header("x-content-type-options"), "nosniff");
    assert_eq!(header("cache-control"), "no-cache");
    assert!(page.text().await.unwrap().contains("id=\"root\""));

    let script = get("/assets/app-1a2b.js").await.unwrap();
    assert_eq!(script.status(), StatusCode::OK);
    assert_eq!(script.headers()["content-type"], "text/javascript; charset=utf-8");
    assert!(script.headers()["cache-control"].to_str().unwrap().contains("immutable"));
    // A page's address is the window (it routes by what follows `#`); a missing file is not.
    let deep = get("/session/x").await.unwrap();
    assert_eq!(deep.status(), StatusCode::OK);
    assert!(deep.text().await.unwrap().contains("id=\"root\""));
    for outside in ["/assets/missing.js", "/.env", "/%2e%2e/secret.txt", "/assets/..%2f..%2fsecret.txt"] {
        let refused = get(outside).await.unwrap();
        assert_eq!(refused.status(), StatusCode::NOT_FOUND, "{outside}");
        let body = refused.text().await.unwrap();
        assert!(!body.contains("SECRET") && !body.contains("beside the folder"), "{outside}: {body}");
    }
    // The API stays the API.
    assert_eq!(get("/v1/questions").await.unwrap().status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_server_without_sign_in_serves_no_window_and_a_folder_without_one_stops_the_start() {
    let (_root, dir) = window_files();
    let window = dir.clone();
    let s = served::serve(move |config: &mut GatewayConfig| config.window_dir = Some(window)).await;
    let page = s.http.get(format!("{}/", s.gateway.url)).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::UNAUTHORIZED, "no one signs in here, so no page is served");

    let empty = tempfile::tempdir().unwrap();
    let mut config = GatewayConfig::new(empty.path());
    config.port = 0;
    config.window_dir = Some(empty.path().join("nowhere"));
    let refused = beckon_gateway::start(s.beckon.clone(), config).await.unwrap_err();
    assert!(matches!(refused, GatewayError::Window { .. }), "{refused}");
    assert!(refused.to_string().contains("index.html"), "{refused}");
}
