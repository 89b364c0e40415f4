//! What the window counts and the notices agents post are each person's share on a team server;
//! an admin sees them all.

use serde_json::{Value, json};

use super::{Signed, ask, database, deploy_question, http, provider, replicas, token_for};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn metrics_and_notices_are_each_persons_share() {
    let (_cluster, url) = database("team").await;
    let idp = provider().await;
    let (a, b) = replicas(&url, &idp, &[]).await;
    let (ada_token, bo_token) = (token_for(&a, &b, "person:ada").await, token_for(&a, &b, "person:bo").await);
    let mut adas = deploy_question();
    adas["agent"] = json!("ada-agent");
    let mut bos = deploy_question();
    bos["agent"] = json!("bo-agent");
    ask(&a, &ada_token, &adas).await;
    ask(&b, &ada_token, &adas).await;
    ask(&a, &bo_token, &bos).await;
    let notice = |token: &str, key: &str, agent: &str| {
        http()
            .put(format!("{}/v1/notices/{key}", a.endpoint.url))
            .bearer_auth(token)
            .json(&json!({"agent": agent, "message": "waiting at its prompt"}))
    };
    for (token, agent) in [(&ada_token, "ada-agent"), (&bo_token, "bo-agent"), (&a.endpoint.token, "admins-agent")] {
        assert_eq!(notice(token, "k1", agent).send().await.unwrap().status(), 200);
    }
    let (bo, root) = (Signed::sign_in(&b, "bo").await, Signed::sign_in(&a, "root").await);

    let agents = |metrics: &Value| -> Vec<String> {
        metrics["agents"].as_array().unwrap().iter().map(|a| a["agent"].as_str().unwrap().to_owned()).collect()
    };
    let window = |who: &Signed, replica, command: &str| {
        let call = who.request(replica, reqwest::Method::POST, &format!("/v1/window/{command}")).json(&json!({}));
        async move { call.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let his = window(&bo, &a, "metrics").await;
    assert_eq!((his["pending"].as_u64(), agents(&his)), (Some(1), vec!["bo-agent".to_owned()]), "{his}");
    let boot = window(&bo, &b, "bootstrap").await;
    assert_eq!(agents(&boot["metrics"]), ["bo-agent"], "the window's first figures are his too");
    let all = window(&root, &b, "metrics").await;
    assert_eq!((all["pending"].as_u64(), agents(&all).len()), (Some(3), 2), "{all}");

    let listed = |who: &Signed| {
        let call = who.request(&a, reqwest::Method::GET, "/v1/notices").send();
        async move {
            let notices = call.await.unwrap().json::<Value>().await.unwrap();
            let mut agents: Vec<String> = notices["notices"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n["agent"].as_str().unwrap().to_owned())
                .collect();
            agents.sort();
            agents
        }
    };
    assert_eq!(listed(&bo).await, ["bo-agent"]);
    assert_eq!(listed(&root).await, ["ada-agent", "admins-agent", "bo-agent"]);
    a.server.stop().await;
    b.server.stop().await;
}
