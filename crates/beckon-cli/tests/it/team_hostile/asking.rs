//! Who asked is recorded and shown, people address only themselves and their groups, and only
//! the asker withdraws (and is recorded as having done so).

use serde_json::{Value, json};

use super::{DEPLOY, Replica, Signed, ask, database, deploy_question, http, provider, replicas, token_for};

const BO: &str = "oidc:bo (bo <bo@example.com>)";

/// `who` asks `body` from their page on `replica`: the status and what came back.
async fn ask_as(who: &Signed, replica: &Replica, body: Value) -> (u16, Value) {
    let asked = who.request(replica, reqwest::Method::POST, "/v1/questions").json(&body).send().await.unwrap();
    (asked.status().as_u16(), asked.json().await.unwrap_or(Value::Null))
}

async fn read(who: &Signed, replica: &Replica, id: &str) -> (u16, Value) {
    let read = who.request(replica, reqwest::Method::GET, &format!("/v1/questions/{id}")).send().await.unwrap();
    (read.status().as_u16(), read.json().await.unwrap_or(Value::Null))
}

async fn withdraw(request: reqwest::RequestBuilder) -> (u16, Value) {
    let done = request.json(&json!({"reason": "done elsewhere"})).send().await.unwrap();
    (done.status().as_u16(), done.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_person_asks_only_for_themselves_or_their_groups_and_is_shown_as_the_asker() {
    let (_cluster, url) = database("team").await;
    let idp = provider().await;
    let (a, b) = replicas(&url, &idp, &[]).await;
    let (ada, bo) = (Signed::sign_in(&a, "ada").await, Signed::sign_in(&b, "bo").await);

    // Bo cannot put a question in Ada's inbox under an agent's name.
    let mut for_ada = deploy_question();
    for_ada["agent"] = json!("claude-code");
    for_ada["audience"] = json!("person:ada");
    let (status, refused) = ask_as(&bo, &b, for_ada).await;
    assert_eq!(status, 422, "{refused}");
    assert!(refused.to_string().contains("audience"), "{refused}");

    // Without an audience his question is his own, and shows him as its asker.
    let (status, asked) = ask_as(&bo, &b, deploy_question()).await;
    assert_eq!(status, 201, "{asked}");
    let own = asked["request_id"].as_str().unwrap().to_owned();
    let (status, view) = read(&bo, &a, &own).await;
    assert_eq!((status, view["asked_by"].as_str()), (200, Some(BO)), "{view}");
    assert_eq!(read(&ada, &a, &own).await.0, 404, "his own question is not Ada's");

    // Addressed to a group he is in, Ada (in it too) sees it, with who asked.
    let mut for_eng = deploy_question();
    for_eng["audience"] = json!("group:eng");
    let (status, asked) = ask_as(&bo, &a, for_eng).await;
    assert_eq!(status, 201, "{asked}");
    let engs = asked["request_id"].as_str().unwrap().to_owned();
    let (status, view) = read(&ada, &b, &engs).await;
    assert_eq!((status, view["asked_by"].as_str()), (200, Some(BO)), "{view}");
    let (status, card) = ada
        .request(&a, reqwest::Method::POST, "/v1/window/get_question")
        .json(&json!({"requestId": engs}))
        .send()
        .await
        .map(|r| (r.status().as_u16(), r))
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(card.json::<Value>().await.unwrap()["asked_by"], BO, "the window's card names him too");

    // An agent's token is shown as the asker of what it asks.
    let ada_token = token_for(&a, &b, "person:ada").await;
    let asked = ask(&a, &ada_token, &deploy_question()).await;
    let (_, view) = read(&ada, &b, &asked).await;
    assert_eq!(view["asked_by"], "token person-ada (for person:ada)", "{view}");
    assert_eq!(view["input"]["questions"][0]["question"], DEPLOY);
    a.server.stop().await;
    b.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn only_the_asker_withdraws_and_who_withdrew_is_recorded() {
    let (_cluster, url) = database("team").await;
    let idp = provider().await;
    let (a, b) = replicas(&url, &idp, &[]).await;
    let (ada, bo, root) =
        (Signed::sign_in(&a, "ada").await, Signed::sign_in(&b, "bo").await, Signed::sign_in(&a, "root").await);

    // Bo's question to his group, and everyone's question an agent's token asked.
    let mut for_eng = deploy_question();
    for_eng["audience"] = json!("group:eng");
    let (_, asked) = ask_as(&bo, &b, for_eng).await;
    let bos = asked["request_id"].as_str().unwrap().to_owned();
    let ci = token_for(&a, &b, "group:eng").await;
    let tokens = ask(&b, &ci, &deploy_question()).await;

    let cancel = |id: &str| format!("/v1/questions/{id}/cancel");
    let admin_token = |replica: &Replica, id: &str| {
        http().post(format!("{}{}", replica.endpoint.url, cancel(id))).bearer_auth(&replica.endpoint.token)
    };
    for id in [&bos, &tokens] {
        let (status, body) = withdraw(ada.request(&b, reqwest::Method::POST, &cancel(id))).await;
        assert_eq!(status, 403, "Ada did not ask it: {body}");
        let (status, body) = withdraw(root.request(&a, reqwest::Method::POST, &cancel(id))).await;
        assert_eq!(status, 403, "nor did the admin: {body}");
        let (status, body) = withdraw(admin_token(&a, id)).await;
        assert_eq!(status, 403, "nor the admin token: {body}");
    }
    // Nor does anyone cancel the session under it.
    let (_, view) = read(&ada, &a, &bos).await;
    let session = view["session_id"].as_str().unwrap();
    let cancelled = ada.request(&a, reqwest::Method::POST, &format!("/v1/sessions/{session}/cancel")).send().await;
    assert_eq!(cancelled.unwrap().status(), 403);
    let cancelled =
        ada.request(&b, reqwest::Method::POST, "/v1/window/cancel").json(&json!({"sessionId": session})).send().await;
    assert_eq!(cancelled.unwrap().status(), 403);
    assert_eq!(read(&ada, &b, &bos).await.1["status"], "pending");

    // The askers withdraw, and are named for it.
    let (status, done) = withdraw(bo.request(&a, reqwest::Method::POST, &cancel(&bos))).await;
    assert_eq!(status, 200, "{done}");
    let (_, view) = read(&ada, &b, &bos).await;
    assert_eq!((view["status"].as_str(), view["answered_by"].as_str()), (Some("cancelled"), Some(BO)), "{view}");
    let by_token = http().post(format!("{}{}", a.endpoint.url, cancel(&tokens))).bearer_auth(&ci);
    let (status, done) = withdraw(by_token).await;
    assert_eq!(status, 200, "{done}");
    let (_, view) = read(&ada, &b, &tokens).await;
    assert_eq!((view["status"].as_str(), view["answered_by"].as_str()), (Some("cancelled"), Some("token group-eng")));
    a.server.stop().await;
    b.server.stop().await;
}
