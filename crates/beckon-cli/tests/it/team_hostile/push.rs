//! Pushes on two replicas: the replica holding push delivery is killed (SIGKILL) while a push is
//! on its way to the push service, and the other replica sends it again, under the same topic;
//! nothing is lost. Then the push service says the subscription is gone (410), and the device is
//! forgotten on both.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use web_push_native::p256::elliptic_curve::sec1::ToEncodedPoint as _;

use super::*;

/// A push service that holds the first push it gets unanswered (as one that is slow to answer),
/// answers every later one with `answer`, and records each push's `Topic`.
#[derive(Clone)]
struct PushService {
    topics: Arc<Mutex<Vec<String>>>,
    answer: Arc<Mutex<StatusCode>>,
}

impl PushService {
    async fn start() -> (String, PushService) {
        let service = PushService { topics: Arc::default(), answer: Arc::new(Mutex::new(StatusCode::CREATED)) };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/push/ada-phone", listener.local_addr().unwrap());
        let state = service.clone();
        let app = Router::new().route(
            "/push/{device}",
            post(move |headers: HeaderMap| {
                let state = state.clone();
                async move {
                    let topic = headers.get("topic").and_then(|t| t.to_str().ok()).unwrap_or_default().to_owned();
                    let first = {
                        let mut topics = state.topics.lock().unwrap();
                        topics.push(topic);
                        topics.len() == 1
                    };
                    if first {
                        std::future::pending::<()>().await;
                    }
                    *state.answer.lock().unwrap()
                }
            }),
        );
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (url, service)
    }

    fn topics(&self) -> Vec<String> {
        self.topics.lock().unwrap().clone()
    }

    async fn wait_for(&self, count: usize, patience: Duration) -> Vec<String> {
        let began = Instant::now();
        while self.topics().len() < count {
            assert!(began.elapsed() < patience, "{count} pushes did not come within {patience:?}: {:?}", self.topics());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.topics()
    }
}

/// A browser's push subscription to `endpoint`.
fn subscription(endpoint: &str) -> Value {
    let secret = web_push_native::p256::SecretKey::from_slice(&[9; 32]).unwrap();
    let point = secret.public_key().as_affine().to_encoded_point(false);
    json!({"endpoint": endpoint, "keys": {"p256dh": URL_SAFE_NO_PAD.encode(point.as_bytes()), "auth": URL_SAFE_NO_PAD.encode([4u8; 16])}})
}

/// The replica holding push delivery, by the lease's owner.
async fn holding_pushes<'r>(cluster: &TestCluster, a: &'r Replica, b: &'r Replica) -> (&'r Replica, &'r Replica) {
    let url = cluster.url("team");
    let owner = tokio::task::spawn_blocking(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        client.query_one("SELECT owner FROM leases WHERE work = 'push'", &[]).unwrap().get::<_, String>(0)
    })
    .await
    .unwrap();
    let id = |replica: &Replica| std::fs::read_to_string(replica._dir.path().join("data/replica-id")).unwrap();
    if id(a).trim() == owner { (a, b) } else { (b, a) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_replica_killed_while_pushing_loses_no_push_and_a_gone_subscription_is_dropped() {
    let (cluster, url) = database("team").await;
    let idp = provider().await;
    let more = ["--lease-seconds", "2", "--allow-callbacks-to", "127.0.0.1"];
    let (a, b) = replicas(&url, &idp, &more).await;
    let (endpoint, service) = PushService::start().await;
    let ada = Signed::sign_in(&a, "ada").await;
    let added = ada.request(&a, reqwest::Method::POST, "/v1/window/add_push_device").json(&subscription(&endpoint));
    assert_eq!(added.send().await.unwrap().status(), 200);
    let token = token_for(&a, &b, "person:ada").await;

    // The push is on its way (the service holds it) when the replica sending it dies.
    ask(&b, &token, &deploy_question()).await;
    let first = service.wait_for(1, Duration::from_secs(20)).await;
    let (holder, survivor) = holding_pushes(&cluster, &a, &b).await;
    holder.server.kill().await;
    // The survivor takes the work once the lease runs out, and sends the push in doubt again.
    let again = service.wait_for(2, Duration::from_secs(60)).await;
    assert_eq!(again[1], first[0], "the same push, under the same topic");
    let sent = "SELECT count(*) FROM push_messages WHERE state = 'sent'";
    let began = Instant::now();
    while count(&cluster, sent).await != 1 {
        assert!(began.elapsed() < Duration::from_secs(20), "the push is never recorded as sent");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // The browser dropped its subscription: the push service answers 410, the device goes.
    *service.answer.lock().unwrap() = StatusCode::GONE;
    ask(survivor, &token, &deploy_question()).await;
    service.wait_for(3, Duration::from_secs(20)).await;
    let began = Instant::now();
    while count(&cluster, "SELECT count(*) FROM push_devices").await != 0 {
        assert!(began.elapsed() < Duration::from_secs(20), "the device is never forgotten");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    ask(survivor, &token, &deploy_question()).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(service.topics().len(), 3, "nothing more goes to a forgotten device");
    survivor.server.stop().await;
}
