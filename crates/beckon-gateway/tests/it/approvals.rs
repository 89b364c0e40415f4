//! Approvals over real loopback HTTP: created, listed and answered through the same routes as
//! questions; a script cannot allow one unless scripts may approve; the asker can withdraw it.

use beckon_core::AnsweredVia;
use beckon_core::GivenAnswers;
use beckon_runtime::Decision;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::served;

use served::Served;

fn bash() -> Value {
    json!({"agent": "claude-code", "session_key": "cc-5b0c", "approval": {"tool_name": "Bash",
        "input": {"command": "echo hi > f.txt", "description": "Write f.txt"},
        "suggestions": [{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "echo:*"}],
            "behavior": "allow", "destination": "localSettings"}],
        "project": "/home/ada/shop", "session": "5b0c"}})
}

async fn post(s: &Served, path: &str, body: Value) -> (StatusCode, Value) {
    let response =
        s.http.post(format!("{}{path}", s.gateway.url)).bearer_auth(&s.gateway.token).json(&body).send().await.unwrap();
    (response.status(), response.json().await.unwrap())
}

async fn ask(s: &Served) -> String {
    let (status, created) = post(s, "/v1/questions", bash()).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created["request_id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn an_approval_is_listed_as_a_question_of_allow_allow_always_and_deny() {
    let s = served::serve(|_| {}).await;
    let id = ask(&s).await;
    let response = s
        .http
        .get(format!("{}/v1/questions?status=pending", s.gateway.url))
        .bearer_auth(&s.gateway.token)
        .send()
        .await
        .unwrap();
    let listed: Value = response.json().await.unwrap();
    let question = &listed["questions"][0];
    assert_eq!(question["request_id"], id.as_str());
    let item = &question["questions"]["questions"][0];
    let labels: Vec<&str> = item["options"].as_array().unwrap().iter().map(|o| o["label"].as_str().unwrap()).collect();
    assert_eq!(labels, vec!["Allow", "Allow always", "Deny"]);
    assert_eq!(item["header"], "Bash");
    assert!(item["options"][0]["preview"].as_str().unwrap().contains("echo hi > f.txt"));
    assert_eq!(question["questions"]["approval"]["tool_name"], "Bash");
    assert_eq!(question["questions"]["approval"]["project"], "/home/ada/shop");
}

#[tokio::test]
async fn a_script_cannot_allow_but_can_deny_and_the_decision_carries_the_message() {
    let s = served::serve(|_| {}).await;
    let id = ask(&s).await;
    let (status, refused) = post(&s, &format!("/v1/questions/{id}/answer"), json!({"answer": "Allow"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert_eq!(refused["error"]["kind"], "person_only");
    assert!(refused["error"]["message"].as_str().unwrap().contains("BECKON_SCRIPTS_MAY_APPROVE=1"), "{refused}");
    let (status, _) = post(&s, &format!("/v1/questions/{id}/answer"), json!({"answer": "Allow always"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // Nothing was decided by the refused answers.
    assert_eq!(s.beckon.inbox().question(id.parse().unwrap()).await.unwrap().status.as_str(), "pending");
    let deny = json!({"answers": [{"selected": ["Deny"], "comment": "Use a temp folder"}]});
    let (status, denied) = post(&s, &format!("/v1/questions/{id}/answer"), deny).await;
    assert_eq!(status, StatusCode::OK, "{denied}");
    assert_eq!(denied["answered_via"], "http");
    assert_eq!(denied["decision"], json!({"behavior": "deny", "message": "Use a temp folder"}));
}

#[tokio::test]
async fn the_window_allows_with_an_edit_and_scripts_may_once_turned_on() {
    let s = served::serve(|_| {}).await;
    let id = ask(&s).await;
    let edited = json!([{"selected": ["Allow"], "value": "echo edited > g.txt"}]);
    s.beckon
        .resolve(id.parse().unwrap(), AnsweredVia::Window, Decision::Answer(GivenAnswers::Json(edited)))
        .await
        .unwrap();
    let response =
        s.http.get(format!("{}/v1/questions/{id}", s.gateway.url)).bearer_auth(&s.gateway.token).send().await.unwrap();
    let answered: Value = response.json().await.unwrap();
    assert_eq!(
        answered["decision"],
        json!({"behavior": "allow", "updatedInput": {"command": "echo edited > g.txt", "description": "Write f.txt"}})
    );

    s.beckon.configuration().set_scripts_may_approve(true);
    let second = ask(&s).await;
    let (status, allowed) =
        post(&s, &format!("/v1/questions/{second}/answer"), json!({"answer": "Allow always"})).await;
    assert_eq!(status, StatusCode::OK, "{allowed}");
    assert_eq!(allowed["decision"]["updatedPermissions"][0]["type"], "addRules");
}

#[tokio::test]
async fn the_asker_withdraws_its_approval_and_a_late_answer_learns_it() {
    let s = served::serve(|_| {}).await;
    let id = ask(&s).await;
    let (status, withdrawn) =
        post(&s, &format!("/v1/questions/{id}/cancel"), json!({"reason": "answered in the terminal"})).await;
    assert_eq!(status, StatusCode::OK, "{withdrawn}");
    assert_eq!(withdrawn["status"], "cancelled");
    assert_eq!(withdrawn["outcome"]["reason"], "answered in the terminal");
    let late = s
        .beckon
        .resolve(id.parse().unwrap(), AnsweredVia::Window, Decision::Answer(GivenAnswers::Texts(vec!["Deny".into()])))
        .await;
    assert!(matches!(late, Err(beckon_runtime::Error::AlreadyResolved(_))), "{late:?}");
}

#[tokio::test]
async fn a_bad_approval_is_refused_at_its_field_and_agents_cannot_smuggle_one_into_questions() {
    let s = served::serve(|_| {}).await;
    let (status, refused) = post(&s, "/v1/questions", json!({"agent": "cc", "approval": {"input": {}}})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(refused["error"]["field"], "approval.tool_name");
    let smuggled = json!({"agent": "cc", "questions": {"questions": [{"question": "Allow?", "header": "Bash",
        "options": [{"label": "Allow"}, {"label": "Deny"}]}], "approval": {"tool_name": "Bash"}}});
    let (status, refused) = post(&s, "/v1/questions", smuggled).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["error"]["field"], "approval");
    let (status, _) =
        post(&s, "/v1/questions", json!({"agent": "cc", "questions": [], "approval": {"tool_name": "Bash"}})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}
