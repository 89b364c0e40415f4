//! Web Push against a push service on loopback: a question asked reaches a signed-in person's
//! device encrypted for that browser (RFC 8291, decrypted here with the browser's private key),
//! with a VAPID token for the push service's origin that the key it names verifies (RFC 8292);
//! a burst from one agent is one push that counts it; a push service that says the
//! subscription is gone has the device forgotten; the key is made once and kept.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use beckon_core::{Approval, QuestionRequest};
use beckon_runtime::api::{PushKeys, PushMessage, PushSubscription};
use beckon_runtime::{Beckon, ExternalAsk, RuntimeConfig};
use beckon_store::{PushState, SessionKind, SignedIn, Store};
use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};
use serde_json::{Value, json};
use web_push_native::p256;
use web_push_native::p256::elliptic_curve::sec1::ToEncodedPoint as _;

use crate::support::*;

/// What the push service received: each request's headers and body.
#[derive(Clone, Default)]
struct PushService {
    received: Arc<Mutex<Vec<(HeaderMap, Bytes)>>>,
    /// The status it answers with.
    answer: Arc<Mutex<u16>>,
}

impl PushService {
    async fn start() -> (String, PushService) {
        let service = PushService { answer: Arc::new(Mutex::new(201)), ..PushService::default() };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let app = Router::new()
            .route(
                "/push/{device}",
                post(|State(service): State<PushService>, headers: HeaderMap, body: Bytes| async move {
                    service.received.lock().unwrap().push((headers, body));
                    StatusCode::from_u16(*service.answer.lock().unwrap()).unwrap()
                }),
            )
            .with_state(service.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (url, service)
    }

    fn received(&self) -> Vec<(HeaderMap, Bytes)> {
        self.received.lock().unwrap().clone()
    }

    /// Waits until `count` pushes came.
    async fn wait_for(&self, count: usize) -> Vec<(HeaderMap, Bytes)> {
        tokio::time::timeout(PATIENCE, async {
            loop {
                let received = self.received();
                if received.len() >= count {
                    return received;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{count} pushes did not come within {PATIENCE:?}: {}", self.received().len()))
    }
}

/// A browser: its push key pair and authentication secret, as `pushManager.subscribe` makes.
struct Browser {
    secret: p256::SecretKey,
    auth: [u8; 16],
}

impl Browser {
    fn new(seed: u8) -> Browser {
        Browser { secret: p256::SecretKey::from_slice(&[seed; 32]).unwrap(), auth: [seed; 16] }
    }

    fn subscription(&self, endpoint: &str) -> PushSubscription {
        let point = self.secret.public_key().as_affine().to_encoded_point(false);
        PushSubscription {
            endpoint: endpoint.into(),
            expiration_time: None,
            keys: PushKeys {
                p256dh: URL_SAFE_NO_PAD.encode(point.as_bytes()),
                auth: URL_SAFE_NO_PAD.encode(self.auth),
            },
        }
    }

    /// What a push says, decrypted as the browser would.
    fn read(&self, body: &Bytes) -> PushMessage {
        let auth = web_push_native::Auth::clone_from_slice(&self.auth);
        let plain = web_push_native::decrypt(body.to_vec(), &self.secret, &auth).expect("a push this browser can read");
        serde_json::from_slice(&plain).unwrap()
    }
}

fn ada() -> SignedIn {
    SignedIn { subject: "ada".into(), email: None, name: Some("Ada".into()), groups: vec![] }
}

/// Signs Ada in and subscribes her browser at `endpoint`.
async fn subscribed(beckon: &Beckon, browser: &Browser, endpoint: &str) {
    let opened = beckon.people().open_session(ada(), SessionKind::Browser).await.unwrap();
    let session = beckon.people().session(&opened.cookie).await.unwrap().unwrap();
    beckon.push_devices().add(session.id_hash, "ada", browser.subscription(endpoint)).await.unwrap();
}

async fn ask(beckon: &Beckon, agent: &str, request: QuestionRequest) -> String {
    let ask = ExternalAsk { agent: agent.into(), request: Some(request), ..ExternalAsk::default() };
    beckon.ask_external(ask).await.unwrap().request_id.to_string()
}

fn approval(command: &str) -> QuestionRequest {
    let approval =
        Approval::parse(&json!({"tool_name": "Bash", "input": {"command": command}, "project": "/home/ada/shop"}), "")
            .unwrap();
    QuestionRequest::for_approval(approval)
}

fn claims(token: &str) -> Value {
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(token.split('.').nth(1).unwrap()).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_reaches_the_device_encrypted_for_it_and_signed_with_the_servers_key() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start(dir.path()).await;
    let (service_url, service) = PushService::start().await;
    let browser = Browser::new(7);
    let endpoint = format!("{service_url}/push/ada");
    subscribed(&beckon, &browser, &endpoint).await;
    let offer = beckon.push_devices().offer();

    let id = ask(&beckon, "deploy", approval("make deploy")).await;
    let (headers, body) = service.wait_for(1).await.remove(0);
    let header = |name: &str| headers.get(name).map(|v| v.to_str().unwrap().to_owned());
    assert_eq!(header("content-encoding").as_deref(), Some("aes128gcm"));
    assert_eq!(header("ttl").as_deref(), Some("86400"));
    assert_eq!(header("topic").map(|t| t.len()), Some(32));
    // The token: for this push service's origin, signed by the key browsers subscribe with.
    let authorization = header("authorization").unwrap();
    let (token, key) = authorization.strip_prefix("vapid t=").unwrap().split_once(", k=").unwrap();
    assert_eq!(key, offer.application_server_key);
    assert_eq!(claims(token)["aud"], service_url);
    assert!(claims(token)["exp"].as_i64().unwrap() > beckon.now_ms() / 1000);
    let (signed, signature) = token.rsplit_once('.').unwrap();
    UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, URL_SAFE_NO_PAD.decode(key).unwrap())
        .verify(signed.as_bytes(), &URL_SAFE_NO_PAD.decode(signature).unwrap())
        .expect("the token verifies with the server's public key");
    // The message: only this browser reads it.
    assert!(!String::from_utf8_lossy(&body).contains("make deploy"), "the push service sees ciphertext");
    let PushMessage::Question { request_id, title, body: text, actions } = browser.read(&body) else { panic!() };
    assert_eq!(request_id, id);
    assert_eq!(title, "deploy asks: Bash");
    assert_eq!(text, "Allow Claude to run this command?\nmake deploy");
    let offered: Vec<(&str, &str)> = actions.iter().map(|a| (a.action.as_str(), a.label.as_str())).collect();
    assert_eq!(offered, [("answer:0", "Allow"), ("answer:1", "Deny")]);
    let stranger = Browser::new(8);
    let auth = web_push_native::Auth::clone_from_slice(&stranger.auth);
    assert!(web_push_native::decrypt(body.to_vec(), &stranger.secret, &auth).is_err(), "no other browser reads it");
    // Recorded as sent, and sent once.
    let store = Store::open_read_only(RuntimeConfig::new(dir.path()).database_path()).unwrap();
    assert_eq!(store.read().push_state(&endpoint, id.parse().unwrap()).unwrap(), Some((PushState::Sent, 1)));
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(service.received().len(), 1, "at most one push per device and question");
    beckon.shutdown().await;

    // The key is kept: a restart signs with the same one.
    let (again, _) = start(dir.path()).await;
    assert_eq!(again.push_devices().offer(), offer);
    again.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_is_one_push_and_a_subscription_the_service_forgot_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start_with(RuntimeConfig::new(dir.path())).await;
    let (service_url, service) = PushService::start().await;
    let browser = Browser::new(3);
    let endpoint = format!("{service_url}/push/ada");
    subscribed(&beckon, &browser, &endpoint).await;

    // Five approvals from one agent, one after another, each in a session of its own.
    for n in 0..5 {
        ask(&beckon, "claude-code", approval(&format!("make step-{n}"))).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (_, body) = service.wait_for(1).await.remove(0);
    let PushMessage::Waiting { title, .. } = browser.read(&body) else { panic!("{:?}", browser.read(&body)) };
    assert_eq!(title, "claude-code in shop: 5 approvals waiting");
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(service.received().len(), 1, "one push for the burst");

    // The browser unsubscribed: the push service answers 410, and the device is forgotten.
    *service.answer.lock().unwrap() = 410;
    ask(&beckon, "deploy", approval("make deploy")).await;
    service.wait_for(2).await;
    tokio::time::timeout(PATIENCE, async {
        let store = Store::open_read_only(RuntimeConfig::new(dir.path()).database_path()).unwrap();
        while store.read().push_device(&endpoint).unwrap().is_some() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the device is forgotten");
    ask(&beckon, "deploy", approval("make again")).await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(service.received().len(), 2, "nothing more goes to it");
    beckon.shutdown().await;
}
