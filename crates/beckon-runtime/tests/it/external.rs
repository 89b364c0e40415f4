//! Questions from agents Beckon does not run: asked, grouped, answered, waited on, expired.

use beckon_core::GivenAnswers;
use std::time::Duration;

use beckon_core::agent::OnTimeout;
use beckon_core::conversation::SessionStatus;
use beckon_core::{AnsweredVia, Outcome, QuestionRequest, SessionOrigin};
use beckon_runtime::{Decision, Error, ExternalAsk};
use beckon_store::QuestionStatus;
use serde_json::json;

use crate::support::*;

fn deploy() -> QuestionRequest {
    QuestionRequest::parse(&json!({"questions": [{"question": "Deploy to prod?", "header": "Deploy", "options": [{"label": "Yes"}, {"label": "No"}]}]})).unwrap()
}

fn ask(agent: &str) -> ExternalAsk {
    ExternalAsk { agent: agent.into(), request: Some(deploy()), ..ExternalAsk::default() }
}

#[tokio::test]
async fn an_external_question_waits_and_a_long_poll_wakes_on_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, notifier) = start(dir.path()).await;
    let asked = beckon.ask_external(ask("ci-bot")).await.unwrap();
    let notice = pending_in(&notifier, asked.session_id).await;
    assert_eq!(notice.agent, "ci-bot");
    let view = beckon.inbox().session(asked.session_id).await.unwrap();
    assert_eq!(view.session.origin, SessionOrigin::External);
    assert_eq!(view.session.status, SessionStatus::WaitingForInput);

    let waiter = {
        let beckon = beckon.clone();
        tokio::spawn(async move { beckon.inbox().wait_for_resolution(asked.request_id, Duration::from_secs(30)).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!waiter.is_finished(), "the long-poll waits for the person");
    beckon
        .resolve(asked.request_id, AnsweredVia::Cli, Decision::Answer(GivenAnswers::Texts(vec!["No".into()])))
        .await
        .unwrap();
    let resolved = tokio::time::timeout(Duration::from_secs(5), waiter).await.unwrap().unwrap().unwrap();
    assert_eq!(resolved.status, QuestionStatus::Answered);
    assert_eq!(beckon.inbox().session(asked.session_id).await.unwrap().session.status, SessionStatus::Completed);
    let quick = beckon.inbox().wait_for_resolution(asked.request_id, Duration::from_secs(30)).await.unwrap();
    assert_eq!(quick.status, QuestionStatus::Answered, "an already resolved question returns at once");
}

#[tokio::test]
async fn a_long_poll_returns_the_pending_question_when_it_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start(dir.path()).await;
    let asked = beckon.ask_external(ask("ci-bot")).await.unwrap();
    let still = beckon.inbox().wait_for_resolution(asked.request_id, Duration::from_millis(150)).await.unwrap();
    assert_eq!(still.status, QuestionStatus::Pending);
}

#[tokio::test]
async fn a_session_key_groups_questions_one_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start(dir.path()).await;
    let keyed = || ExternalAsk { external_key: Some("run-42".into()), ..ask("ci-bot") };
    let first = beckon.ask_external(keyed()).await.unwrap();
    let err = beckon.ask_external(keyed()).await.unwrap_err();
    assert!(matches!(&err, Error::WrongState { .. }), "{err}");
    assert!(err.to_string().contains(&first.request_id.to_string()), "{err}");
    beckon
        .resolve(first.request_id, AnsweredVia::Http, Decision::Answer(GivenAnswers::Texts(vec!["Yes".into()])))
        .await
        .unwrap();
    let second = beckon.ask_external(keyed()).await.unwrap();
    assert_eq!(second.session_id, first.session_id);
    assert_eq!(beckon.inbox().session(first.session_id).await.unwrap().questions.len(), 2);
    let other =
        beckon.ask_external(ExternalAsk { external_key: Some("run-43".into()), ..ask("ci-bot") }).await.unwrap();
    assert_ne!(other.session_id, first.session_id);
}

#[tokio::test]
async fn external_expiry_uses_the_default_answer_or_fails() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start(dir.path()).await;
    let with_default = beckon
        .ask_external(ExternalAsk {
            timeout: Some(Duration::from_millis(200)),
            on_timeout: OnTimeout::Default,
            default_answer: Some("No".into()),
            ..ask("ci-bot")
        })
        .await
        .unwrap();
    let failing = beckon
        .ask_external(ExternalAsk {
            timeout: Some(Duration::from_millis(200)),
            on_timeout: OnTimeout::Fail,
            ..ask("ci-bot")
        })
        .await
        .unwrap();
    let expired = beckon.inbox().wait_for_resolution(with_default.request_id, PATIENCE).await.unwrap();
    assert_eq!(expired.status, QuestionStatus::Expired);
    let Some(Outcome::Expired { default_answer: Some(answers) }) = expired.outcome else { panic!("{expired:?}") };
    assert_eq!(answers.items()[0].selected, ["No"]);
    let failed = beckon.inbox().wait_for_resolution(failing.request_id, PATIENCE).await.unwrap();
    assert_eq!(failed.status, QuestionStatus::Expired);
    assert_eq!(beckon.inbox().session(failing.session_id).await.unwrap().session.status, SessionStatus::Failed);
}

#[tokio::test]
async fn cancelling_an_external_session_cancels_its_question() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start(dir.path()).await;
    let asked = beckon.ask_external(ask("ci-bot")).await.unwrap();
    beckon.cancel(asked.session_id, Some("pipeline aborted".into())).await.unwrap();
    assert_eq!(beckon.inbox().question(asked.request_id).await.unwrap().status, QuestionStatus::Cancelled);
    assert_eq!(beckon.inbox().session(asked.session_id).await.unwrap().session.status, SessionStatus::Cancelled);
    let err = beckon.send_message(asked.session_id, "hello").await.unwrap_err();
    assert!(matches!(err, Error::WrongState { .. }));
}

#[tokio::test]
async fn bad_external_input_is_refused_with_field_names() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start(dir.path()).await;
    let err = beckon
        .ask_external(ExternalAsk {
            agent: "bad agent!".into(),
            callback_url: Some("ftp://x".into()),
            timeout: Some(Duration::ZERO),
            on_timeout: OnTimeout::Default,
            ..ask("x")
        })
        .await
        .unwrap_err();
    let Error::InvalidInput(problems) = err else { panic!("{err}") };
    let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["agent", "callback_url", "timeout", "default_answer"]);
    let err = beckon.ask_external(ExternalAsk { request: None, ..ask("ci") }).await.unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)));
    for (timeout, refused) in [
        (Duration::from_nanos(1), false),
        (Duration::from_millis(500), false),
        (Duration::from_secs(365 * 86_400), false),
        (Duration::from_secs(365 * 86_400 + 1), true),
    ] {
        let outcome = beckon.ask_external(ExternalAsk { timeout: Some(timeout), ..ask("timer") }).await;
        match outcome {
            Err(Error::InvalidInput(problems)) => {
                assert!(refused, "{timeout:?} was refused: {problems}");
                assert_eq!(problems.iter().map(|p| p.path.as_str()).collect::<Vec<_>>(), ["timeout"]);
                assert!(problems.to_string().contains("more than zero and at most 365 days"), "{problems}");
            }
            Ok(_) => assert!(!refused, "{timeout:?} was accepted"),
            Err(err) => panic!("{timeout:?}: {err}"),
        }
    }
}
