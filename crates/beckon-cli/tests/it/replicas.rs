//! Two `beckon serve` replicas on one PostgreSQL database (a real one, started by the test): a
//! question asked through one is answered through the other, and the first one's long-poll and
//! event stream see the answer; two different answers at once through both: exactly one wins,
//! the other is told who did; a deadline set through a replica that dies fires on the other; the
//! admin token, made once, works on both, and an agent's token made through one works on the
//! other until it is revoked through either; a person signed in through one replica is signed
//! in on the other (and out of both at once), and what a person's token asks through one is
//! theirs alone on the other; a replica is ready (`/readyz`) only while its database answers,
//! and live (`/livez`) while it runs.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::metrics;
use crate::support::postgres::database;
use crate::support::serve_start::free_port;
use crate::support::server::{Endpoint, Server};

/// Both replicas answer well within this in a debug build on a busy machine; the bench measures
/// how fast.
const PROMPTLY: Duration = Duration::from_secs(2);

struct Replica {
    server: Server,
    endpoint: Endpoint,
    _dir: tempfile::TempDir,
}

async fn replica(url: &str) -> Replica {
    replica_with(url, &[]).await
}

/// A replica started with more arguments.
async fn replica_with(url: &str, more: &[&str]) -> Replica {
    let dir = tempfile::tempdir().unwrap();
    let (data, logs) = (dir.path().join("data"), dir.path().join("logs"));
    std::fs::create_dir_all(&logs).unwrap();
    let args: Vec<&str> = ["--database", url].into_iter().chain(more.iter().copied()).collect();
    let server = Server::start_with(&data, &logs, &args).await;
    let endpoint = server.watch().borrow().endpoint.clone().unwrap();
    Replica { server, endpoint, _dir: dir }
}

impl Replica {
    /// A request with the person's token of this replica's own.
    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.with_token(method, path, &self.endpoint.token)
    }

    fn with_token(&self, method: reqwest::Method, path: &str, token: &str) -> reqwest::RequestBuilder {
        reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap()
            .request(method, format!("{}{path}", self.endpoint.url))
            .bearer_auth(token)
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = self.request(method, path);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    async fn ask(&self, key: &str) -> String {
        self.ask_with(key, json!({})).await
    }

    /// Asks with more fields in the body (`timeout`, `callback_url`).
    async fn ask_with(&self, key: &str, more: Value) -> String {
        let mut body = json!({
            "agent": "deployer",
            "session_key": key,
            "questions": [{
                "question": "Deploy to production?",
                "header": "Deploy",
                "multiSelect": false,
                "options": [
                    {"label": "Yes", "description": "Ship it"},
                    {"label": "No", "description": "Hold it"},
                ],
            }],
        });
        if let (Some(body), Some(more)) = (body.as_object_mut(), more.as_object()) {
            body.extend(more.clone());
        }
        let (status, asked) = self.call(reqwest::Method::POST, "/v1/questions", Some(body)).await;
        assert_eq!(status, 201, "{asked}");
        asked["request_id"].as_str().unwrap().to_owned()
    }

    async fn answer(&self, id: &str, label: &str) -> (u16, Value) {
        self.call(reqwest::Method::POST, &format!("/v1/questions/{id}/answer"), Some(json!({"answers": [label]}))).await
    }
}

/// Reads the event stream until a `question_resolved` event for `id` arrives.
async fn resolved_on_stream(response: reqwest::Response, id: &str) -> Instant {
    let mut response = response;
    let mut text = String::new();
    loop {
        let chunk = response.chunk().await.unwrap().expect("the stream stays open until the answer");
        text.push_str(&String::from_utf8_lossy(&chunk));
        if text.contains("question_resolved") && text.contains(id) {
            return Instant::now();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_question_asked_through_one_replica_is_answered_through_the_other() {
    let (_cluster, url) = database("team").await;
    let (a, b) = tokio::join!(replica(&url), replica(&url));
    let (_, health) = a.call(reqwest::Method::GET, "/v1/health", None).await;
    assert_eq!(health["database"], "postgresql", "{health}");

    let id = a.ask("release-1").await;
    let (_, listed) = b.call(reqwest::Method::GET, "/v1/questions?status=pending", None).await;
    let ids: Vec<&str> =
        listed["questions"].as_array().unwrap().iter().filter_map(|q| q["request_id"].as_str()).collect();
    assert_eq!(ids, [id.as_str()], "B lists what A was asked");

    // A holds a long-poll and an event stream open; B answers.
    let poll = tokio::spawn({
        let request = a.request(reqwest::Method::GET, &format!("/v1/questions/{id}?wait=60"));
        async move {
            let response = request.send().await.unwrap();
            let body: Value = response.json().await.unwrap();
            (Instant::now(), body)
        }
    });
    let stream =
        a.request(reqwest::Method::GET, "/v1/events").header("accept", "text/event-stream").send().await.unwrap();
    assert_eq!(stream.status(), 200);
    let streamed = tokio::spawn({
        let id = id.clone();
        async move { resolved_on_stream(stream, &id).await }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!poll.is_finished(), "the long-poll waits for the answer");

    let answered_at = Instant::now();
    let (status, answered) = b.answer(&id, "Yes").await;
    assert_eq!(status, 200, "{answered}");
    let (polled_at, polled) = tokio::time::timeout(PROMPTLY * 5, poll).await.unwrap().unwrap();
    assert_eq!(polled["status"], "answered", "{polled}");
    assert_eq!(polled["result"]["answers"]["Deploy to production?"], "Yes", "{polled}");
    let streamed_at = tokio::time::timeout(PROMPTLY * 5, streamed).await.unwrap().unwrap();
    let (poll_wake, stream_wake) = (polled_at - answered_at, streamed_at - answered_at);
    println!("answer on B → A's long-poll {poll_wake:?}, A's event stream {stream_wake:?}");
    assert!(poll_wake < PROMPTLY && stream_wake < PROMPTLY, "{poll_wake:?} {stream_wake:?}");

    a.server.stop().await;
    b.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn different_answers_at_once_through_both_replicas_have_one_winner() {
    let (_cluster, url) = database("team").await;
    let (a, b) = tokio::join!(replica(&url), replica(&url));
    for round in 0..5 {
        let id = a.ask(&format!("release-{round}")).await;
        let ((status_a, body_a), (status_b, body_b)) = tokio::join!(a.answer(&id, "Yes"), b.answer(&id, "No"));
        let mut statuses = [status_a, status_b];
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 409], "round {round}: {body_a} {body_b}");
        let (winner, loser) = if status_a == 200 { ("Yes", &body_b) } else { ("No", &body_a) };
        assert!(loser.to_string().contains(winner), "the refused one is told the winner: {loser}");
        // Both replicas read the same winner.
        for replica in [&a, &b] {
            let (_, question) = replica.call(reqwest::Method::GET, &format!("/v1/questions/{id}"), None).await;
            assert_eq!(question["result"]["answers"]["Deploy to production?"], winner, "{question}");
        }
    }
    a.server.stop().await;
    b.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_deadline_set_through_a_replica_that_dies_fires_on_the_other() {
    let (_cluster, url) = database("team").await;
    let b_metrics = format!("127.0.0.1:{}", free_port());
    let b_args = ["--metrics-listen", b_metrics.as_str()];
    let (a, b) = tokio::join!(replica(&url), replica_with(&url, &b_args));
    let id = a.ask_with("release-late", json!({"timeout": 3})).await;
    // Until it is due, B holds a long-poll; A is killed before then.
    let poll = tokio::spawn({
        let request = b.request(reqwest::Method::GET, &format!("/v1/questions/{id}?wait=60"));
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    });
    metrics::until_long_polls_open(&b_metrics, 1).await;
    a.server.kill().await;
    let expired = tokio::time::timeout(Duration::from_secs(20), poll).await.unwrap().unwrap();
    assert_eq!(expired["status"], "expired", "{expired}");
    assert_eq!(expired["outcome"]["outcome"], "expired", "{expired}");
    b.server.stop().await;
}

/// Calls `path` on `replica` with `token` until it answers `want` (each replica reloads the
/// agents' tokens every second), or gives up.
async fn until_status(replica: &Replica, token: &str, path: &str, want: u16) -> u16 {
    let began = Instant::now();
    loop {
        let status = replica.with_token(reqwest::Method::GET, path, token).send().await.unwrap().status();
        if status.as_u16() == want || began.elapsed() > Duration::from_secs(10) {
            return status.as_u16();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_admin_token_and_agents_tokens_hold_on_every_replica() {
    let (_cluster, url) = database("team").await;
    let (a, b) = tokio::join!(replica(&url), replica(&url));
    // Replicas starting together make one admin token between them, shown once.
    let shown: Vec<String> = [&a, &b]
        .iter()
        .filter_map(|replica| {
            let printed = replica.server.printed(1);
            printed.split_whitespace().find(|word| word.starts_with("bkn_admin_")).map(str::to_owned)
        })
        .collect();
    assert_eq!(shown.len(), 1, "exactly one replica shows the admin token: {shown:?}");
    for replica in [&a, &b] {
        let (printed, log) = (replica.server.printed(1), replica.server.log_tail(1));
        // The other says the token exists and where it was shown.
        assert!(printed.contains("bkn_admin_") || printed.contains("admin token already exists"), "{printed}");
        // A start says nothing of what it does not do, nor PostgreSQL's notices.
        assert!(!log.contains("already exists") && !log.contains("runs the channels"), "{log}");
    }
    let admin = &shown[0];
    for replica in [&a, &b] {
        assert_eq!(until_status(replica, admin, "/v1/tokens", 200).await, 200);
        assert_eq!(until_status(replica, "bkn_admin_wrong", "/v1/tokens", 401).await, 401);
    }

    // An agent's token made through A asks through B; revoked through B, A refuses it.
    let (status, made) =
        a.call(reqwest::Method::POST, "/v1/tokens", Some(json!({"name": "ci-runner", "kind": "ask_only"}))).await;
    assert_eq!(status, 201, "{made}");
    let secret = made["secret"].as_str().unwrap().to_owned();
    assert_eq!(until_status(&b, &secret, "/v1/health", 200).await, 200, "B learns of the token");
    let (status, _) = b.call(reqwest::Method::DELETE, "/v1/tokens/ci-runner", None).await;
    assert_eq!(status, 200);
    assert_eq!(until_status(&a, &secret, "/v1/health", 401).await, 401, "A learns it was revoked");
    a.server.stop().await;
    b.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_person_signed_in_through_one_replica_answers_their_own_question_through_the_other() {
    let (_cluster, url) = database("team").await;
    let person = |subject: &str| beckon_test_idp::Person {
        subject: subject.into(),
        email: format!("{subject}@example.com"),
        name: subject.into(),
        groups: vec![],
    };
    let client = beckon_test_idp::Client {
        id: "beckon".into(),
        secret: None,
        redirect_uris: vec!["http://127.0.0.1/auth/callback".into()],
    };
    let idp = beckon_test_idp::Provider::start(vec![client], vec![person("ada"), person("bo")]).await.unwrap();
    let oidc = ["--oidc-issuer", idp.issuer(), "--oidc-client-id", "beckon"];
    let (a, b) = tokio::join!(replica_with(&url, &oidc), replica_with(&url, &oidc));

    // Ada's token, made through A, asks through B.
    let body = json!({"name": "ada-laptop", "kind": "ask_only", "owner": "person:ada"});
    let (status, made) = a.call(reqwest::Method::POST, "/v1/tokens", Some(body)).await;
    assert_eq!(status, 201, "{made}");
    let secret = made["secret"].as_str().unwrap().to_owned();
    // Every replica reloads the tokens each second.
    let began = Instant::now();
    let asked = loop {
        let asked = b
            .with_token(reqwest::Method::POST, "/v1/questions", &secret)
            .json(&json!({"agent": "claude-code", "approval": {"tool_name": "Bash", "input": {"command": "make deploy"}}}))
            .send()
            .await
            .unwrap();
        if asked.status() != 401 || began.elapsed() > Duration::from_secs(10) {
            break asked;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(asked.status(), 201);
    let id = asked.json::<Value>().await.unwrap()["request_id"].as_str().unwrap().to_owned();

    // Ada and Bo sign in through A; their cookies hold on B (one origin behind a balancer).
    let signed_in = |who: &'static str| {
        let base = a.endpoint.url.clone();
        async move {
            let mut browser = beckon_test_idp::Browser::default();
            let done = browser.sign_in(&base, who, "/").await.unwrap().unwrap();
            assert_eq!(done.status, 303, "{}", done.body);
            browser.cookie(&base, "beckon_session").unwrap()
        }
    };
    let (ada, bo) = (signed_in("ada").await, signed_in("bo").await);
    let on_b = |method: reqwest::Method, path: &str, cookie: &str| {
        reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap()
            .request(method, format!("{}{path}", b.endpoint.url))
            .header("cookie", format!("beckon_session={cookie}"))
            .header("origin", &b.endpoint.url)
            .header("x-csrf-token", beckon_runtime::csrf_token(cookie))
    };
    let answer = format!("/v1/questions/{id}/answer");
    let refused = on_b(reqwest::Method::POST, &answer, &bo).json(&json!({"answer": "Allow"})).send().await.unwrap();
    assert_eq!(refused.status(), 404, "Bo cannot see Ada's approval");
    let allowed = on_b(reqwest::Method::POST, &answer, &ada).json(&json!({"answer": "Allow"})).send().await.unwrap();
    assert_eq!(allowed.status(), 200);
    assert_eq!(allowed.json::<Value>().await.unwrap()["answered_by"], "oidc:ada (ada <ada@example.com>)");

    // Signing out through B ends the session on A too.
    let out = on_b(reqwest::Method::POST, "/auth/logout", &ada).send().await.unwrap();
    assert_eq!(out.status(), 200);
    let me = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .get(format!("{}/v1/me", a.endpoint.url))
        .header("cookie", format!("beckon_session={ada}"))
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn readiness_follows_the_database_and_liveness_the_process() {
    let (cluster, url) = database("team").await;
    let a = replica(&url).await;
    let probe = |path: &'static str| {
        let url = format!("{}{path}", a.endpoint.url);
        async move {
            reqwest::Client::builder().no_proxy().build().unwrap().get(url).send().await.unwrap().status().as_u16()
        }
    };
    assert_eq!((probe("/livez").await, probe("/readyz").await), (200, 200));
    // The database goes away: not ready (within the probe's two seconds), still live.
    tokio::task::block_in_place(|| cluster.kill().unwrap());
    let began = Instant::now();
    while probe("/readyz").await != 503 {
        assert!(began.elapsed() < Duration::from_secs(10), "still ready without a database");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(probe("/livez").await, 200);
    // It comes back: ready again.
    tokio::task::block_in_place(|| cluster.restart().unwrap());
    let began = Instant::now();
    while probe("/readyz").await != 200 {
        assert!(began.elapsed() < Duration::from_secs(30), "not ready again after the database came back");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    a.server.stop().await;
}
