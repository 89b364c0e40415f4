//! A team server faces a network: two `beckon serve` replicas on one real PostgreSQL, people
//! signed in through an OpenID provider, and callers who hold nothing. Nobody unauthenticated
//! can stall a replica or spend what authenticated callers need, and nobody sees or answers what
//! is not theirs:
//!
//! - connections that send a sign-in route's head and then never their body hold only their
//!   address's share of the places, and only until the body's deadline;
//! - a flood of logins spends its own address's budget: agents' asks and people's answers go on,
//!   and the sign-ins kept stay bounded;
//! - random bearer tokens are refused without a database transaction each;
//! - every route answers 404 to another person's question, with nothing of it in the body;
//! - what is left of a session that is gone (its events) is nobody's;
//! - one person holds only their share of the event streams;
//! - a replica killed while pushing to a person's phone loses no push.

mod audit;
mod callbacks;

mod asking;
mod push;
mod revocation;
mod shares;

use std::net::IpAddr;
use std::time::{Duration, Instant};

use beckon_store::testing::TestCluster;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpSocket, TcpStream};

use crate::support::postgres::database;
use crate::support::server::{Endpoint, Server};

struct Replica {
    server: Server,
    endpoint: Endpoint,
    _dir: tempfile::TempDir,
}

/// One row of one number from `sql` on the team's database.
async fn count(cluster: &TestCluster, sql: &'static str) -> i64 {
    let url = cluster.url("team");
    tokio::task::spawn_blocking(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        client.query_one(sql, &[]).unwrap().get::<_, i64>(0)
    })
    .await
    .unwrap()
}

/// Sends `requests`, 32 at a time: each one's status (0 when the connection was refused).
async fn send_all(requests: impl Iterator<Item = reqwest::RequestBuilder>) -> Vec<u16> {
    use futures_util::StreamExt;
    let sent = requests.map(|request| async move { request.send().await.map(|r| r.status().as_u16()).unwrap_or(0) });
    futures_util::stream::iter(sent).buffer_unordered(32).collect().await
}

fn person(subject: &str, groups: &[&str]) -> beckon_test_idp::Person {
    beckon_test_idp::Person {
        subject: subject.into(),
        email: format!("{subject}@example.com"),
        name: subject.into(),
        groups: groups.iter().map(|group| (*group).to_owned()).collect(),
    }
}

async fn provider() -> beckon_test_idp::Provider {
    let client = beckon_test_idp::Client {
        id: "beckon".into(),
        secret: None,
        redirect_uris: vec!["http://127.0.0.1/auth/callback".into()],
    };
    let people = vec![person("ada", &["eng"]), person("bo", &["eng"]), person("root", &["beckon-admins"])];
    beckon_test_idp::Provider::start(vec![client], people).await.unwrap()
}

/// Two replicas on `url`, signing people in at `idp`, started with `more` arguments.
async fn replicas(url: &str, idp: &beckon_test_idp::Provider, more: &[&str]) -> (Replica, Replica) {
    let start = || async {
        let dir = tempfile::tempdir().unwrap();
        let (data, logs) = (dir.path().join("data"), dir.path().join("logs"));
        std::fs::create_dir_all(&logs).unwrap();
        let args: Vec<&str> = ["--database", url, "--oidc-issuer", idp.issuer(), "--oidc-client-id", "beckon"]
            .into_iter()
            .chain(more.iter().copied())
            .collect();
        let server = Server::start_pairing(&data, &logs, &args, false).await;
        let endpoint = server.watch().borrow().endpoint.clone().unwrap();
        Replica { server, endpoint, _dir: dir }
    };
    // One after the other: the first migrates the database and makes the admin token.
    let a = start().await;
    let b = start().await;
    (a, b)
}

/// An HTTP client whose connections come from `address` (any of 127.0.0.0/8 reaches loopback).
fn client_from(address: [u8; 4]) -> reqwest::Client {
    let builder = reqwest::Client::builder().no_proxy().redirect(reqwest::redirect::Policy::none());
    builder.local_address(IpAddr::from(address)).build().unwrap()
}

fn http() -> reqwest::Client {
    client_from([127, 0, 0, 1])
}

/// A person's browser session on a replica, by its cookie.
struct Signed {
    cookie: String,
}

impl Signed {
    async fn sign_in(replica: &Replica, who: &str) -> Signed {
        let mut browser = beckon_test_idp::Browser::default();
        let done = browser.sign_in(&replica.endpoint.url, who, "/").await.unwrap().unwrap();
        assert_eq!(done.status, 303, "{}", done.body);
        Signed { cookie: browser.cookie(&replica.endpoint.url, "beckon_session").unwrap() }
    }

    /// A request from this person's page on `replica`.
    fn request(&self, replica: &Replica, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        http()
            .request(method, format!("{}{path}", replica.endpoint.url))
            .header("cookie", format!("beckon_session={}", self.cookie))
            .header("origin", &replica.endpoint.url)
            .header("x-csrf-token", beckon_runtime::csrf_token(&self.cookie))
    }
}

/// Makes an ask-only token for `owner` through `replica`; its secret, once both replicas know it.
async fn token_for(replica: &Replica, other: &Replica, owner: &str) -> String {
    let made = http()
        .post(format!("{}/v1/tokens", replica.endpoint.url))
        .bearer_auth(&replica.endpoint.token)
        .json(&json!({"name": owner.replace(':', "-"), "kind": "ask_only", "owner": owner}))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), 201);
    let secret = made.json::<Value>().await.unwrap()["secret"].as_str().unwrap().to_owned();
    // Every replica reloads the tokens each second.
    let began = Instant::now();
    while http().get(format!("{}/v1/health", other.endpoint.url)).bearer_auth(&secret).send().await.unwrap().status()
        != 200
    {
        assert!(began.elapsed() < Duration::from_secs(10), "the other replica never learnt the token");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    secret
}

const DEPLOY: &str = "Deploy the secret project to production?";

fn deploy_question() -> Value {
    json!({"agent": "deployer", "questions": [{"question": DEPLOY, "header": "Deploy", "multiSelect": false,
        "options": [{"label": "Ship it"}, {"label": "Hold it"}]}]})
}

async fn ask(replica: &Replica, token: &str, body: &Value) -> String {
    let asked = http()
        .post(format!("{}/v1/questions", replica.endpoint.url))
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .unwrap();
    assert_eq!(asked.status(), 201);
    asked.json::<Value>().await.unwrap()["request_id"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn connections_that_never_send_their_body_leave_new_requests_served() {
    let (_cluster, url) = database("team").await;
    let idp = provider().await;
    let limits = ["--body-timeout", "2", "--max-connections", "64", "--stranger-connections", "32"];
    let (a, b) = replicas(&url, &idp, &limits).await;
    let address = a.endpoint.url.trim_start_matches("http://").to_owned();
    // 64 connections from one address send the head of the app's token route, a large body
    // promised, and then nothing.
    let head = format!(
        "POST /auth/app/token HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{{"
    );
    let mut held = Vec::new();
    for _ in 0..64 {
        let socket = TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let mut stream: TcpStream = socket.connect(address.parse().unwrap()).await.unwrap();
        let _ = stream.write_all(head.as_bytes()).await;
        held.push(stream);
    }
    // Another address is served at once: the flood holds only its own address's share.
    let health = |client: reqwest::Client, replica: &Replica| {
        let request = client.get(format!("{}/v1/health", replica.endpoint.url)).bearer_auth(&replica.endpoint.token);
        async move { tokio::time::timeout(Duration::from_secs(1), request.send()).await }
    };
    let elsewhere = health(client_from([127, 0, 0, 2]), &a).await;
    assert_eq!(elsewhere.expect("served within a second").unwrap().status(), 200);
    // The flooding address itself is served again once the body's deadline has passed.
    let began = Instant::now();
    loop {
        if let Ok(Ok(response)) = health(http(), &a).await
            && response.status() == 200
        {
            break;
        }
        assert!(began.elapsed() < Duration::from_secs(4), "the flood's address was not served within the deadline");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(health(http(), &b).await.unwrap().unwrap().status(), 200, "the other replica is untouched");
    drop(held);
    a.server.stop().await;
    b.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_login_flood_spends_its_own_budget_and_leaves_sign_ins_bounded() {
    let (cluster, url) = database("team").await;
    let idp = provider().await;
    let (a, b) = replicas(&url, &idp, &[]).await;
    let ada = Signed::sign_in(&a, "ada").await;
    let ada_token = token_for(&a, &b, "person:ada").await;
    // One address sends 1,200 logins at once, more than the writes' shared bucket holds.
    let flooder = http();
    let statuses = send_all((0..1200).map(|_| flooder.get(format!("{}/auth/login", a.endpoint.url)))).await;
    let refused = statuses.iter().filter(|status| **status == 429).count();
    assert!(refused >= 1100, "the flood's address is held to its own budget ({refused} of 1200 refused)");
    // Agents still ask and people still answer, on both replicas, at once.
    for replica in [&a, &b] {
        for _ in 0..20 {
            let id = ask(replica, &ada_token, &deploy_question()).await;
            let answered = ada
                .request(replica, reqwest::Method::POST, &format!("/v1/questions/{id}/answer"))
                .json(&json!({"answers": ["Ship it"]}))
                .send()
                .await
                .unwrap();
            assert_eq!(answered.status(), 200);
        }
    }
    // Logins from many addresses: the sign-ins kept stay bounded, the oldest dropped first.
    let addresses: Vec<reqwest::Client> = (0..60u8).map(|n| client_from([127, 0, 1, 1 + n])).collect();
    let spread = (0..1500usize).map(|n| {
        let replica = if n % 2 == 0 { &a } else { &b };
        addresses[n % addresses.len()].get(format!("{}/auth/login", replica.endpoint.url))
    });
    let statuses = send_all(spread).await;
    let begun = statuses.iter().filter(|status| (300..400).contains(*status)).count();
    assert!(begun > 1000, "logins from many addresses are each within their budget ({begun} begun)");
    let kept = count(&cluster, "SELECT count(*) FROM sign_ins").await;
    assert!(kept <= 1000, "{kept} sign-ins kept");
    a.server.stop().await;
    b.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn random_bearer_tokens_cost_no_transaction_each() {
    let (cluster, url) = database("team").await;
    let idp = provider().await;
    let (a, b) = replicas(&url, &idp, &[]).await;
    let transactions = "SELECT (xact_commit + xact_rollback)::bigint FROM pg_stat_database WHERE datname = 'team'";
    let before = count(&cluster, transactions).await;
    let mut statuses = Vec::new();
    for n in 0..300 {
        let replica = if n % 2 == 0 { &a } else { &b };
        let secret = hex::encode(rand::random::<[u8; 32]>());
        let response =
            http().get(format!("{}/v1/health", replica.endpoint.url)).bearer_auth(secret).send().await.unwrap();
        statuses.push(response.status().as_u16());
    }
    // Statistics reach pg_stat_database within about half a second.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let spent = count(&cluster, transactions).await - before;
    assert!(statuses.iter().all(|status| *status == 401 || *status == 429), "{statuses:?}");
    assert!(statuses.contains(&429), "failed authentication is limited per address");
    // The replicas' own background work (leases, token reloads) takes some; 300 lookups would be
    // 300 more.
    assert!(spent < 150, "{spent} transactions for 300 wrong tokens");
    a.server.stop().await;
    b.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_route_answers_404_to_another_persons_question_with_nothing_of_it() {
    let (_cluster, url) = database("team").await;
    let idp = provider().await;
    let (a, b) = replicas(&url, &idp, &[]).await;
    let ada_token = token_for(&a, &b, "person:ada").await;
    let id = ask(&a, &ada_token, &deploy_question()).await;
    let (ada, bo) = (Signed::sign_in(&a, "ada").await, Signed::sign_in(&b, "bo").await);
    let post = reqwest::Method::POST;
    let probes = |round: &'static str| {
        let id = id.clone();
        let question = format!("/v1/questions/{id}");
        vec![
            (round, reqwest::Method::GET, question.clone(), None),
            (round, reqwest::Method::GET, format!("{question}?wait=1"), None),
            (round, post.clone(), format!("{question}/answer"), Some(json!({"answers": ["Ship it"]}))),
            (round, post.clone(), format!("{question}/answer"), Some(json!({"answers": ["Hold it"]}))),
            (round, post.clone(), format!("{question}/answer"), Some(json!({"answers": ["Nope"]}))),
            (round, post.clone(), format!("{question}/decline"), Some(json!({"reason": "no"}))),
            (round, post.clone(), format!("{question}/cancel"), Some(json!({}))),
            (round, post.clone(), "/v1/window/get_question".to_owned(), Some(json!({"requestId": id}))),
            (
                round,
                post.clone(),
                "/v1/window/answer".to_owned(),
                Some(json!({"requestId": id, "answers": [{"selected": ["Hold it"]}]})),
            ),
            (round, post.clone(), "/v1/window/decline".to_owned(), Some(json!({"requestId": id}))),
        ]
    };
    let check = |replica: &'static str, status: u16, body: &str, path: &str| {
        assert_eq!(status, 404, "{replica} {path}: {body}");
        for secret in [DEPLOY, "Ship it", "Hold it", "Deploy", "deployer", "ada"] {
            assert!(!body.contains(secret), "{replica} {path} tells {secret:?}: {body}");
        }
    };
    for (round, method, path, body) in probes("pending").into_iter().chain(std::iter::empty()) {
        for (name, replica) in [("A", &a), ("B", &b)] {
            let mut request = bo.request(replica, method.clone(), &path);
            if let Some(body) = &body {
                request = request.json(body);
            }
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            check(name, status, &format!("{round}: {}", response.text().await.unwrap()), &path);
        }
    }
    // Ada answers; the winner is hers alone to know.
    let answered = ada
        .request(&b, post.clone(), &format!("/v1/questions/{id}/answer"))
        .json(&json!({"answers": ["Ship it"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), 200);
    for (round, method, path, body) in probes("answered") {
        for (name, replica) in [("A", &a), ("B", &b)] {
            let mut request = bo.request(replica, method.clone(), &path);
            if let Some(body) = &body {
                request = request.json(body);
            }
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            check(name, status, &format!("{round}: {}", response.text().await.unwrap()), &path);
        }
    }
    a.server.stop().await;
    b.server.stop().await;
}

/// Reads `response`'s event stream for `window`: the text it carried by then.
async fn stream_text(response: reqwest::Response, window: Duration) -> String {
    let mut response = response;
    let mut text = String::new();
    let until = tokio::time::Instant::now() + window;
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout_at(until, response.chunk()).await {
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn what_outlives_a_session_is_nobodys_and_streams_are_shared_per_person() {
    let (cluster, url) = database("team").await;
    let idp = provider().await;
    let shares = ["--max-event-streams", "4", "--event-streams-per-caller", "2"];
    let (a, b) = replicas(&url, &idp, &shares).await;
    let ada_token = token_for(&a, &b, "person:ada").await;
    let id = ask(&a, &ada_token, &deploy_question()).await;
    let (ada, bo) = (Signed::sign_in(&a, "ada").await, Signed::sign_in(&b, "bo").await);
    let answered = ada
        .request(&a, reqwest::Method::POST, &format!("/v1/questions/{id}/answer"))
        .json(&json!({"answers": ["Ship it"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), 200);

    // Bo holds his share of B's streams; a third is refused, and Ada still gets hers.
    let events = |who: &Signed| who.request(&b, reqwest::Method::GET, "/v1/events?after=0").send();
    let (first, second) = (events(&bo).await.unwrap(), events(&bo).await.unwrap());
    assert_eq!((first.status().as_u16(), second.status().as_u16()), (200, 200));
    let third = events(&bo).await.unwrap();
    assert_eq!(third.status(), 429, "a third stream of Bo's");
    drop(third);
    let adas = events(&ada).await.unwrap();
    assert_eq!(adas.status(), 200, "one person's streams leave others theirs");
    assert!(stream_text(adas, Duration::from_millis(1500)).await.contains(&id), "Ada's stream carries her question");
    drop((first, second));

    // The session goes (as retention on an older replica left it: its audience gone, its events
    // kept). Bo replaying every event reads nothing of it.
    let session = {
        let (url, id) = (cluster.url("team"), id.clone());
        tokio::task::spawn_blocking(move || {
            let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
            let row = client.query_one("SELECT session_id FROM questions WHERE id = $1", &[&id]).unwrap();
            let session: String = row.get(0);
            client.execute("DELETE FROM sessions WHERE id = $1", &[&session]).unwrap();
            session
        })
        .await
        .unwrap()
    };
    let replay = stream_text(events(&bo).await.unwrap(), Duration::from_millis(1500)).await;
    assert!(!replay.contains(&session) && !replay.contains(&id), "Bo's replay holds Ada's session: {replay}");
    assert!(!replay.contains(DEPLOY), "{replay}");
    a.server.stop().await;
    b.server.stop().await;
}
