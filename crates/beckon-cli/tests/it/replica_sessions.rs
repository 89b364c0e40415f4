//! An in-app session on a team server is run by one replica at a time: a replica starting
//! again leaves a session another replica is running to it (its model call is not made twice),
//! and when the replica running it dies, another takes the session up once its lease runs out
//! and finishes it. Two real `beckon serve` replicas on a real PostgreSQL, a model on loopback
//! that answers slowly.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use beckon_testkit::eventually;
use beckon_testkit::scripted_model::{Request, ScriptedModel, Turn};
use serde_json::{Value, json};

use crate::support::postgres::database;
use crate::support::server::Server;

/// The replicas' lease, in seconds: short, so that the test waits little for one to run out.
const LEASE_SECONDS: u64 = 2;
/// How long the slow model holds its first reply back: longer than everything before the kill.
const SLOW_REPLY: Duration = Duration::from_secs(30);

/// A replica whose data folder has the agent `deployer` on the fake model.
async fn replica(home: &Path, name: &str, url: &str, model: &ScriptedModel) -> Server {
    let (data, logs) = (home.join(name).join("data"), home.join(name).join("logs"));
    std::fs::create_dir_all(data.join("agents")).unwrap();
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(
        data.join("agents/deployer.md"),
        "---\nname: deployer\ndescription: Deploys\nprovider: anthropic\n---\nDeploy what the webhook says.",
    )
    .unwrap();
    let settings = json!({"anthropic": {"api_key": "sk-ant-test", "base_url": model.url}});
    std::fs::write(data.join("settings.json"), settings.to_string()).unwrap();
    Server::start_pairing(&data, &logs, &["--database", url, "--lease-seconds", &LEASE_SECONDS.to_string()], false)
        .await
}

async fn call(server: &Server, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let endpoint = server.watch().borrow().endpoint.clone().expect("the replica is up");
    let mut request = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .request(method, format!("{}{path}", endpoint.url))
        .bearer_auth(&endpoint.token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_session_runs_on_one_replica_and_another_takes_it_up_when_that_one_dies() {
    let (cluster, url) = database("team").await;
    let model = ScriptedModel::start(Arc::new(|_: &Request| Turn::Text("Deployed.".into()))).await;
    model.set_delay(SLOW_REPLY);
    let home = tempfile::tempdir().unwrap();
    let a = replica(home.path(), "a", &url, &model).await;
    let b = replica(home.path(), "b", &url, &model).await;

    let (status, started) =
        call(&a, reqwest::Method::POST, "/v1/agents/deployer/trigger", Some(json!({"release": "1.4"}))).await;
    assert_eq!(status, 202, "{started}");
    let session = started["session_id"].as_str().unwrap().to_owned();
    eventually("replica A calling the model", Duration::from_secs(20), || async {
        (!model.requests().is_empty()).then_some(())
    })
    .await;

    // B starts again while A is mid-call: B finds the session running, and leaves it to A.
    b.kill().await;
    b.restart().await;
    tokio::time::sleep(Duration::from_secs(LEASE_SECONDS * 2)).await;
    assert_eq!(model.requests().len(), 1, "the model was called again while replica A still ran the session");
    let (_, view) = call(&b, reqwest::Method::GET, &format!("/v1/sessions/{session}"), None).await;
    assert_eq!(view["status"], "running", "{view}");

    // A dies for good mid-call; once its lease runs out, B takes the session up and finishes it.
    model.set_delay(Duration::ZERO);
    let killed = Instant::now();
    a.kill().await;
    let finished = loop {
        let (_, view) = call(&b, reqwest::Method::GET, &format!("/v1/sessions/{session}"), None).await;
        if view["status"] == "completed" {
            break killed.elapsed();
        }
        assert!(killed.elapsed() < Duration::from_secs(30), "replica B did not finish the session: {view}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(model.requests().len(), 2, "one call by A (lost with it) and one by B");
    // Not before A's lease could have run out (a second of slack for A's last renewal).
    assert!(
        finished >= Duration::from_secs(LEASE_SECONDS) - Duration::from_secs(1),
        "B took the session up {finished:?} after A died, before A's lease ran out"
    );
    b.stop().await;
    drop(cluster);
}
