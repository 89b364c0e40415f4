//! The whole loop against fake Anthropic and OpenAI servers speaking the real wire format:
//! ask → the session stops (nothing more reaches the server) → answer → the next request
//! carries the tool_result for that exact tool_use_id → remaining calls run → completion.

use beckon_core::GivenAnswers;
use std::time::Duration;

use beckon_core::conversation::SessionStatus;
use beckon_core::{Answer, AnsweredVia, Answers};
use beckon_runtime::{
    Beckon, Clock, Decision, ManualClock, ProviderSettings, RecordingNotifier, RuntimeConfig, SystemClock,
};
use serde_json::{Value, json};

use crate::support::*;

/// Where a test's manual clock starts (Unix ms).
const START_MS: i64 = 1_795_500_000_000;

use beckon_testkit::fake_llm::{FakeLlm, Received, Reply, Wire};

fn question() -> Value {
    json!({"questions": [{"question": "Which region?", "header": "Region", "multiSelect": false,
        "options": [{"label": "eu-west", "description": "Ireland"}, {"label": "us-east", "description": "Virginia"}]}]})
}

async fn setup(wire: Wire, extra: &str) -> (tempfile::TempDir, FakeLlm, Beckon, std::sync::Arc<RecordingNotifier>) {
    setup_on(wire, extra, std::sync::Arc::new(SystemClock)).await
}

/// As [`setup`], on `clock`.
async fn setup_on(
    wire: Wire,
    extra: &str,
    clock: std::sync::Arc<dyn Clock>,
) -> (tempfile::TempDir, FakeLlm, Beckon, std::sync::Arc<RecordingNotifier>) {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeLlm::start().await;
    let provider = match wire {
        Wire::Anthropic => "anthropic",
        Wire::OpenAi => "openai",
    };
    let agents = dir.path().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("deployer.md"),
        format!("---\nname: deployer\nprovider: {provider}\nmodel: test-model\ntools: [read_file, write_file]\n{extra}\n---\nYou deploy things.\n"),
    )
    .unwrap();
    let mut config = RuntimeConfig::new(dir.path());
    match wire {
        Wire::Anthropic => {
            config.anthropic =
                ProviderSettings { api_key: Some("test-key".into()), base_url: Some(fake.url.clone()), model: None }
        }
        Wire::OpenAi => {
            config.openai = ProviderSettings {
                api_key: Some("test-key".into()),
                base_url: Some(format!("{}/v1", fake.url)),
                model: None,
            }
        }
    }
    let (beckon, notifier) = start_on(config, clock).await;
    (dir, fake, beckon, notifier)
}

/// The tool results a request carries, as (tool_use_id, content, is_error).
fn tool_results(request: &Received) -> Vec<(String, String, bool)> {
    let messages = match request.wire {
        Wire::Anthropic => request.body["messages"].as_array().unwrap().clone(),
        Wire::OpenAi => request.body["messages"].as_array().unwrap().clone(),
    };
    let mut out = Vec::new();
    for message in messages {
        match request.wire {
            Wire::Anthropic => {
                if let Some(blocks) = message["content"].as_array() {
                    for block in blocks.iter().filter(|b| b["type"] == "tool_result") {
                        let content = match &block["content"] {
                            Value::String(s) => s.clone(),
                            Value::Array(parts) => {
                                parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("")
                            }
                            other => other.to_string(),
                        };
                        out.push((
                            block["tool_use_id"].as_str().unwrap().to_owned(),
                            content,
                            block["is_error"].as_bool().unwrap_or(false),
                        ));
                    }
                }
            }
            Wire::OpenAi => {
                if message["role"] == "tool" {
                    out.push((
                        message["tool_call_id"].as_str().unwrap().to_owned(),
                        message["content"].as_str().unwrap_or_default().to_owned(),
                        false,
                    ));
                }
            }
        }
    }
    out
}

async fn the_whole_loop(wire: Wire) {
    let (dir, fake, beckon, notifier) = setup(wire, "").await;
    fake.push(Reply::tools(
        "Let me check first.",
        &[
            ("write_file", json!({"path": "plan.txt", "content": "step one"})),
            ("ask_user_question", question()),
            ("read_file", json!({"path": "plan.txt"})),
        ],
    ));
    fake.push(Reply::text("Deployed to the chosen region."));
    let session = beckon.start_session("deployer", "Deploy the service").await.unwrap();
    let notice = pending_in(&notifier, session).await;
    wait_status(&beckon, session, SessionStatus::WaitingForInput).await;
    let first = fake.wait_for(1, PATIENCE).await;
    assert_eq!(first[0].body["model"], "test-model");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(fake.received().len(), 1, "nothing reaches the provider while the session waits");

    let answers =
        Answers::new(vec![Answer::select(["us-east"]).with_comment("closer to users")], &notice.request).unwrap();
    beckon
        .resolve(notice.request_id, AnsweredVia::Window, Decision::Answer(GivenAnswers::Typed(answers)))
        .await
        .unwrap();
    wait_status(&beckon, session, SessionStatus::Completed).await;
    let requests = fake.wait_for(2, PATIENCE).await;
    assert_eq!(requests.len(), 2);
    let results = tool_results(&requests[1]);
    assert_eq!(results.len(), 3, "every tool_use got its result before the model was asked again: {results:?}");
    let view = beckon.inbox().session(session).await.unwrap();
    let ask_id = view.questions[0].tool_use_id.clone();
    let (id, content, is_error) = &results[1];
    assert_eq!(id, &ask_id, "the answer is the result of that exact tool call");
    assert!(!is_error);
    let rendered: Value = serde_json::from_str(content).unwrap();
    assert_eq!(rendered["outcome"], "answered");
    assert_eq!(rendered["answers"], json!({"Which region?": "us-east"}));
    assert_eq!(rendered["annotations"], json!({"Which region?": {"notes": "closer to users"}}));
    assert_eq!(rendered["questions"][0]["question"], "Which region?", "the questions are echoed");
    assert_eq!(results[2].1, "step one", "the call after the question ran after the answer");
    assert_eq!(last_words(&beckon, session).await, "Deployed to the chosen region.");
    assert_every_tool_use_answered_once(&beckon, session).await;
    assert!(dir.path().join("workspaces").join(session.to_string()).join("plan.txt").exists());
}

#[tokio::test]
async fn the_whole_loop_with_anthropic() {
    the_whole_loop(Wire::Anthropic).await;
}

#[tokio::test]
async fn the_whole_loop_with_openai() {
    the_whole_loop(Wire::OpenAi).await;
}

/// Asks the deployer's question on a manual clock, lets `act` answer it or move the clock, and
/// reads the tool result the model was sent.
async fn resolve_and_read(
    wire: Wire,
    extra: &str,
    act: impl AsyncFnOnce(&Beckon, &beckon_runtime::PendingNotice, &ManualClock),
) -> (Value, SessionStatus, usize) {
    let clock = ManualClock::new(START_MS);
    let (_dir, fake, beckon, notifier) = setup_on(wire, extra, std::sync::Arc::new(clock.clone())).await;
    fake.push(Reply::tools("", &[("ask_user_question", question())]));
    fake.push(Reply::text("ok"));
    let session = beckon.start_session("deployer", "go").await.unwrap();
    let notice = pending_in(&notifier, session).await;
    act(&beckon, &notice, &clock).await;
    let end = if extra.contains("fail") { SessionStatus::Failed } else { SessionStatus::Completed };
    wait_status(&beckon, session, end).await;
    assert_every_tool_use_answered_once(&beckon, session).await;
    let view = beckon.inbox().session(session).await.unwrap();
    let result = view
        .timeline
        .iter()
        .find_map(|e| match &e.message {
            beckon_core::conversation::Message::ToolResult { result } => Some(result.content.clone()),
            _ => None,
        })
        .unwrap();
    (serde_json::from_str(&result).unwrap(), view.session.status, fake.received().len())
}

#[tokio::test]
async fn a_decline_reaches_the_model_as_a_declined_result() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let (result, _, requests) = resolve_and_read(wire, "", async |b, n, _| {
            b.resolve(n.request_id, AnsweredVia::Window, Decision::Decline(Some("not now".into()))).await.unwrap();
        })
        .await;
        assert_eq!(result["outcome"], "declined");
        assert!(result["message"].as_str().unwrap().contains("not now"));
        assert_eq!(requests, 2);
    }
}

#[tokio::test]
async fn expiry_follows_each_policy_against_a_real_provider() {
    // Nobody answers; the clock passes the question's second.
    let expire = async |_: &Beckon, _: &beckon_runtime::PendingNotice, clock: &ManualClock| {
        clock.advance(Duration::from_secs(1));
    };
    let (result, _, requests) =
        resolve_and_read(Wire::Anthropic, "question_timeout: 1s\non_timeout: decline", expire).await;
    assert_eq!((result["outcome"].as_str(), requests), (Some("expired"), 2));
    let (result, _, _) =
        resolve_and_read(Wire::Anthropic, "question_timeout: 1s\non_timeout: default\ndefault_answer: eu-west", expire)
            .await;
    assert_eq!(result["answers"]["Which region?"], "eu-west");
    let (result, status, requests) =
        resolve_and_read(Wire::OpenAi, "question_timeout: 1s\non_timeout: fail", expire).await;
    assert_eq!(result["outcome"], "expired");
    assert_eq!(status, SessionStatus::Failed);
    assert_eq!(requests, 1, "a failed session does not ask the model again");
}

#[tokio::test]
async fn cancel_records_an_error_result_and_asks_nothing_more() {
    let (_dir, fake, beckon, notifier) = setup(Wire::Anthropic, "").await;
    fake.push(Reply::tools("", &[("ask_user_question", question()), ("read_file", json!({"path": "x"}))]));
    let session = beckon.start_session("deployer", "go").await.unwrap();
    let notice = pending_in(&notifier, session).await;
    beckon.cancel(session, None).await.unwrap();
    wait_status(&beckon, session, SessionStatus::Cancelled).await;
    assert_every_tool_use_answered_once(&beckon, session).await;
    let view = beckon.inbox().session(session).await.unwrap();
    let errors = view
        .timeline
        .iter()
        .filter(|e| matches!(&e.message, beckon_core::conversation::Message::ToolResult { result } if result.is_error))
        .count();
    assert_eq!(errors, 2);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(fake.received().len(), 1);
    let stale = Answers::new(vec![Answer::select(["eu-west"])], &notice.request).unwrap();
    assert!(matches!(
        beckon.resolve(notice.request_id, AnsweredVia::Window, Decision::Answer(GivenAnswers::Typed(stale))).await,
        Err(beckon_runtime::Error::AlreadyResolved(_))
    ));
}

#[tokio::test]
async fn a_cancel_while_the_model_is_thinking_stops_the_turn() {
    let (_dir, fake, beckon, _) = setup(Wire::OpenAi, "").await;
    fake.push(Reply::Hold);
    let session = beckon.start_session("deployer", "go").await.unwrap();
    fake.wait_for(1, PATIENCE).await;
    beckon.cancel(session, None).await.unwrap();
    wait_status(&beckon, session, SessionStatus::Cancelled).await;
}

#[tokio::test]
async fn rate_limits_are_retried_after_retry_after() {
    let clock = ManualClock::new(1_795_500_000_000);
    let (_dir, fake, beckon, _) = setup_on(Wire::Anthropic, "", std::sync::Arc::new(clock.clone())).await;
    fake.push(Reply::Status {
        status: 429,
        body: json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
        retry_after: Some("1".into()),
    });
    fake.push(Reply::text("made it"));
    let session = beckon.start_session("deployer", "go").await.unwrap();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while fake.received().is_empty() {
        assert!(tokio::time::Instant::now() < deadline, "the model was never asked");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // A second short of the server's retry-after, the model is not asked again.
    clock.advance(Duration::from_millis(999));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(fake.received().len(), 1, "asked again before retry-after");
    clock.advance(Duration::from_millis(1));
    wait_status(&beckon, session, SessionStatus::Completed).await;
    assert_eq!(fake.received().len(), 2);
    assert_eq!(last_words(&beckon, session).await, "made it");
}

#[tokio::test]
async fn a_server_error_is_retried_then_succeeds() {
    let clock = ManualClock::new(START_MS);
    let (_dir, fake, beckon, _) = setup_on(Wire::OpenAi, "", std::sync::Arc::new(clock.clone())).await;
    fake.push(Reply::Status {
        status: 500,
        body: json!({"error": {"message": "boom", "type": "server_error"}}),
        retry_after: None,
    });
    fake.push(Reply::text("second time lucky"));
    let session = beckon.start_session("deployer", "go").await.unwrap();
    // The retry waits a second of the runtime's clock: moved on until the model is asked again.
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while fake.received().len() < 2 {
        assert!(tokio::time::Instant::now() < deadline, "the model was not asked again");
        clock.advance(Duration::from_secs(1));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    wait_status(&beckon, session, SessionStatus::Completed).await;
    assert_eq!(fake.received().len(), 2);
}

#[tokio::test]
async fn a_bad_key_fails_the_session_with_a_clear_reason() {
    let (_dir, fake, beckon, _) = setup(Wire::Anthropic, "").await;
    fake.push(Reply::Status {
        status: 401,
        body: json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
        retry_after: None,
    });
    let session = beckon.start_session("deployer", "go").await.unwrap();
    wait_status(&beckon, session, SessionStatus::Failed).await;
    let beckon_core::conversation::State::Failed { reason } =
        beckon.inbox().session(session).await.unwrap().session.state
    else {
        panic!()
    };
    assert!(reason.contains("401") && reason.contains("invalid x-api-key"), "{reason}");
    assert_eq!(fake.received().len(), 1, "a bad key is not retried");
    assert_eq!(fake.received()[0].headers["x-api-key"], "test-key");
}

#[tokio::test]
async fn a_malformed_stream_fails_the_session_with_a_readable_reason() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let (_dir, fake, beckon, _) = setup(wire, "").await;
        fake.push(Reply::Malformed);
        let session = beckon.start_session("deployer", "go").await.unwrap();
        wait_status(&beckon, session, SessionStatus::Failed).await;
        let beckon_core::conversation::State::Failed { reason } =
            beckon.inbox().session(session).await.unwrap().session.state
        else {
            panic!()
        };
        assert!(!reason.is_empty() && reason.len() < 2_000, "{reason}");
        assert_eq!(fake.received().len(), 1, "{wire:?}: a malformed reply is not retried");
    }
}
