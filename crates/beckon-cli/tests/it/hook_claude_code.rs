//! `beckon hook claude-code` as Claude Code runs it (its JSON on stdin, its answer on stdout),
//! against `beckon serve`: an MCP server's form is asked as free-form questions and answered
//! with the form's content, declined as a decline, and withdrawn when Claude Code reports the
//! form was answered in its own dialog. A form, like Claude Code's own question, is asked of
//! the person: a script (the agent waiting on it) cannot answer it, only decline it.

use std::time::Duration;

use beckon_api::QuestionStatus;
use beckon_core::Outcome;
use beckon_gateway::ClientError;
use serde_json::{Value, json};

use crate::support::hook;
use crate::support::served;

fn form(id: &str) -> Value {
    json!({"session_id": "5b0c", "cwd": "/home/ada/shop", "hook_event_name": "Elicitation",
        "mcp_server_name": "deployer", "message": "Where should build 42 go?", "mode": "form", "elicitation_id": id,
        "requested_schema": {"type": "object", "required": ["environment"], "properties": {
            "environment": {"type": "string", "title": "Environment", "enum": ["staging", "production"]},
            "replicas": {"type": "integer", "title": "Replicas", "minimum": 1, "maximum": 9}}}})
}

/// Starts the hook with `event` on stdin; the running process.
async fn hook(served: &served::Served, event: &Value) -> tokio::process::Child {
    hook::start(&mut served.beckon(), event).await
}

async fn pending(served: &served::Served) -> Value {
    served.first_pending("the form reaching Beckon", Duration::from_secs(30)).await
}

async fn printed(child: tokio::process::Child) -> String {
    hook::ended(child, Duration::from_secs(30)).await.0
}

/// `beckon serve` where the person has let scripts answer for them, so a test can answer as
/// the person would in the window.
async fn served_for_the_person() -> served::Served {
    served::Served::start_with("hook-test", |command| {
        command.env("BECKON_SCRIPTS_MAY_APPROVE", "1");
    })
    .await
}

#[tokio::test]
async fn a_script_cannot_answer_a_form_or_claude_codes_own_question_but_can_decline() {
    let served = served::Served::start_with("hook-test", |command| {
        command.env_remove("BECKON_SCRIPTS_MAY_APPROVE");
    })
    .await;
    let own_question = json!({"session_id": "5b0c", "cwd": "/home/ada/shop", "permission_mode": "default",
        "hook_event_name": "PermissionRequest", "tool_name": "AskUserQuestion", "tool_input": {"questions": [
            {"question": "Which color?", "header": "Color", "multiSelect": false,
             "options": [{"label": "Red"}, {"label": "Blue"}]}]}});
    for (event, answer) in
        [(form("el-9"), vec!["staging".to_owned(), "3".to_owned()]), (own_question, vec!["Blue".to_owned()])]
    {
        let child = hook(&served, &event).await;
        let id = pending(&served).await["request_id"].as_str().unwrap().to_owned();
        match served.client.answer(&id, &answer).await.unwrap_err() {
            ClientError::Api { status, body } => {
                assert_eq!((status, body.kind.as_str()), (403, "person_only"), "{}", body.message);
                assert!(body.message.contains("only they can answer it"), "{}", body.message);
            }
            other => panic!("not refused as person-only: {other}"),
        }
        let view = served.client.question(&id, Duration::ZERO).await.unwrap();
        assert_eq!(view.status, QuestionStatus::Pending, "a refused answer decides nothing");
        served.client.decline(&id, None).await.unwrap();
        let view = served.client.question(&id, Duration::ZERO).await.unwrap();
        assert_eq!(view.status, QuestionStatus::Declined);
        printed(child).await;
    }
}

#[tokio::test]
async fn a_form_answered_in_beckon_goes_back_as_its_content() {
    let served = served_for_the_person().await;
    let child = hook(&served, &form("el-1")).await;
    let question = pending(&served).await;
    assert_eq!(question["agent"], "claude-code");
    assert_eq!(question["input"]["questions"][0]["question"], "Where should build 42 go?\n\nEnvironment");
    assert_eq!(question["input"]["questions"][1]["schema"]["maximum"], 9);
    let id = question["request_id"].as_str().unwrap();
    served.client.answer(id, &["staging".into(), "3".into()]).await.unwrap();
    let out: Value = serde_json::from_str(printed(child).await.trim()).unwrap();
    assert_eq!(
        out,
        json!({"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept",
            "content": {"environment": "staging", "replicas": 3}}})
    );
}

#[tokio::test]
async fn a_declined_form_is_declined_and_one_answered_in_the_terminal_is_withdrawn() {
    let served = served::Served::start("hook-test").await;
    let child = hook(&served, &form("el-2")).await;
    let id = pending(&served).await["request_id"].as_str().unwrap().to_owned();
    served.client.decline(&id, None).await.unwrap();
    let out: Value = serde_json::from_str(printed(child).await.trim()).unwrap();
    assert_eq!(out, json!({"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "decline"}}));

    let child = hook(&served, &form("el-3")).await;
    let id = pending(&served).await["request_id"].as_str().unwrap().to_owned();
    let result = json!({"session_id": "5b0c", "hook_event_name": "ElicitationResult", "mcp_server_name": "deployer",
        "elicitation_id": "el-3", "mode": "form", "action": "accept", "content": {"environment": "production"}});
    assert_eq!(printed(hook(&served, &result).await).await, "");
    assert_eq!(printed(child).await, "", "the waiting hook leaves the form to Claude Code");
    let view = served.client.question(&id, Duration::ZERO).await.unwrap();
    assert_eq!(view.status, QuestionStatus::Cancelled);
    assert_eq!(view.outcome, Some(Outcome::Cancelled { reason: Some("answered in the terminal".into()) }));
}
