//! Sessions across answers, declines, expiries, cancels, restarts and conflicts, through the
//! service API, on a real data folder.

use beckon_core::GivenAnswers;
use std::sync::Arc;
use std::time::Duration;

use beckon_core::conversation::SessionStatus;
use beckon_core::{Answer, AnsweredVia, Answers, Outcome, RequestId};
use beckon_runtime::{Beckon, Decision, Error, ManualClock, Recorded, RuntimeConfig, StartOptions};
use beckon_store::QuestionStatus;

use crate::support::*;

/// Where the tests' manual clocks start (2026-11-24, Unix ms).
const START_MS: i64 = 1_795_500_000_000;

fn yes(notice: &beckon_runtime::PendingNotice) -> Answers {
    Answers::new(vec![Answer::select(["Yes"])], &notice.request).unwrap()
}

#[tokio::test]
async fn a_second_runtime_on_the_same_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_first, _) = start(dir.path()).await;
    let mut config = RuntimeConfig::new(dir.path());
    config.holder = "beckon serve".into();
    let err = Beckon::start(config, StartOptions::default()).await.unwrap_err();
    assert!(matches!(err, Error::DataDirLocked { .. }), "{err}");
    assert!(err.to_string().contains("already in use by Beckon (pid "), "{err}");
}

#[tokio::test]
async fn a_waiting_session_survives_a_restart_and_resumes_when_answered() {
    let dir = tempfile::tempdir().unwrap();
    asker_agent(dir.path(), "asker", "");
    let (session, request_id) = {
        let (beckon, notifier) = start(dir.path()).await;
        let session = beckon.start_session("asker", "go").await.unwrap();
        let notice = pending_in(&notifier, session).await;
        wait_status(&beckon, session, SessionStatus::WaitingForInput).await;
        beckon.shutdown().await;
        (session, notice.request_id)
    };
    // The first runtime is gone: its lock is released and nothing of it runs.
    let (beckon, _) = start(dir.path()).await;
    assert_eq!(beckon.inbox().pending().await.unwrap()[0].id, request_id);
    let question = beckon.inbox().question(request_id).await.unwrap();
    let answers = Answers::new(vec![Answer::select(["Yes"])], &question.request).unwrap();
    beckon.resolve(request_id, AnsweredVia::Cli, Decision::Answer(GivenAnswers::Typed(answers))).await.unwrap();
    wait_status(&beckon, session, SessionStatus::Completed).await;
    assert_eq!(last_words(&beckon, session).await, "outcome=answered answer=Yes");
    assert_every_tool_use_answered_once(&beckon, session).await;
    assert_eq!(beckon.inbox().question(request_id).await.unwrap().answered_via, Some(AnsweredVia::Cli));
}

#[tokio::test]
async fn a_repeat_answer_is_idempotent_and_a_different_one_conflicts() {
    let dir = tempfile::tempdir().unwrap();
    asker_agent(dir.path(), "asker", "");
    let (beckon, notifier) = start(dir.path()).await;
    let session = beckon.start_session("asker", "go").await.unwrap();
    let notice = pending_in(&notifier, session).await;
    let first = beckon
        .resolve(notice.request_id, AnsweredVia::Window, Decision::Answer(GivenAnswers::Typed(yes(&notice))))
        .await
        .unwrap();
    assert!(!first.repeat);
    let again = beckon
        .resolve(notice.request_id, AnsweredVia::Http, Decision::Answer(GivenAnswers::Typed(yes(&notice))))
        .await
        .unwrap();
    assert!(again.repeat);
    assert_eq!(again.question.answered_via, Some(AnsweredVia::Window), "the first answer's record stands");
    let no = Answers::new(vec![Answer::select(["No"])], &notice.request).unwrap();
    let err = beckon
        .resolve(notice.request_id, AnsweredVia::Http, Decision::Answer(GivenAnswers::Typed(no)))
        .await
        .unwrap_err();
    let Error::AlreadyResolved(winner) = err else { panic!("{err}") };
    assert_eq!(winner.outcome, Outcome::Answered { answers: yes(&notice) });
    let err = beckon.resolve(notice.request_id, AnsweredVia::Tray, Decision::Decline(None)).await.unwrap_err();
    assert!(matches!(err, Error::AlreadyResolved(_)));
    wait_status(&beckon, session, SessionStatus::Completed).await;
    assert_every_tool_use_answered_once(&beckon, session).await;
}

#[tokio::test]
async fn concurrent_answers_have_one_winner_and_the_session_resumes_once() {
    let dir = tempfile::tempdir().unwrap();
    asker_agent(dir.path(), "asker", "");
    let (beckon, notifier) = start(dir.path()).await;
    let session = beckon.start_session("asker", "go").await.unwrap();
    let notice = pending_in(&notifier, session).await;
    let mut handles = Vec::new();
    for i in 0..8 {
        let (beckon, request) = (beckon.clone(), notice.request.clone());
        let label = if i % 2 == 0 { "Yes" } else { "No" };
        handles.push(tokio::spawn(async move {
            let answers = Answers::new(vec![Answer::select([label])], &request).unwrap();
            (
                label,
                beckon
                    .resolve(notice.request_id, AnsweredVia::Http, Decision::Answer(GivenAnswers::Typed(answers)))
                    .await,
            )
        }));
    }
    let mut winners = Vec::new();
    for handle in handles {
        let (label, result) = handle.await.unwrap();
        match result {
            Ok(receipt) if !receipt.repeat => winners.push(label),
            Ok(_) => {}
            Err(Error::AlreadyResolved(_)) => {}
            Err(other) => panic!("{other}"),
        }
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    wait_status(&beckon, session, SessionStatus::Completed).await;
    assert_eq!(last_words(&beckon, session).await, format!("outcome=answered answer={}", winners[0]));
    assert_every_tool_use_answered_once(&beckon, session).await;
}

#[tokio::test]
async fn an_invalid_answer_is_refused_with_paths_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    asker_agent(dir.path(), "asker", "");
    let (beckon, notifier) = start(dir.path()).await;
    let session = beckon.start_session("asker", "go").await.unwrap();
    let notice = pending_in(&notifier, session).await;
    let err = beckon
        .resolve(
            notice.request_id,
            AnsweredVia::Http,
            Decision::Answer(GivenAnswers::Json(serde_json::json!([{"selected": ["Maybe"]}]))),
        )
        .await
        .unwrap_err();
    let Error::InvalidAnswer(problems) = err else { panic!("{err}") };
    assert_eq!(problems.first_path(), Some("answers[0].selected[0]"));
    assert_eq!(beckon.inbox().question(notice.request_id).await.unwrap().status, QuestionStatus::Pending);
    assert!(matches!(
        beckon
            .resolve(
                RequestId::parse("0190f1d2-0000-7000-8000-0000000000ff").unwrap(),
                AnsweredVia::Http,
                Decision::Answer(GivenAnswers::Json(serde_json::json!(["Yes"])))
            )
            .await,
        Err(Error::QuestionNotFound(_))
    ));
}

#[tokio::test]
async fn cancelling_a_waiting_session_cancels_its_question_and_closes_the_call() {
    let dir = tempfile::tempdir().unwrap();
    asker_agent(dir.path(), "asker", "");
    let (beckon, notifier) = start(dir.path()).await;
    let session = beckon.start_session("asker", "go").await.unwrap();
    let notice = pending_in(&notifier, session).await;
    beckon.cancel(session, Some("changed my mind".into())).await.unwrap();
    wait_status(&beckon, session, SessionStatus::Cancelled).await;
    assert_eq!(beckon.inbox().question(notice.request_id).await.unwrap().status, QuestionStatus::Cancelled);
    assert_every_tool_use_answered_once(&beckon, session).await;
    let err = beckon
        .resolve(notice.request_id, AnsweredVia::Window, Decision::Answer(GivenAnswers::Typed(yes(&notice))))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::AlreadyResolved(_)), "{err}");
    let err = beckon.cancel(session, None).await.unwrap_err();
    assert!(matches!(err, Error::WrongState { .. }), "{err}");
    assert!(notifier.calls().iter().any(|c| matches!(c, Recorded::Resolved(r) if r.request_id == notice.request_id && r.status == QuestionStatus::Cancelled)));
}

/// A question with a one-hour deadline on a clock that moves only when told: it stays pending
/// a minute short of the hour, and expires the moment the hour is up.
async fn expire_with(extra: &str) -> (String, QuestionStatus, SessionStatus) {
    let dir = tempfile::tempdir().unwrap();
    asker_agent(dir.path(), "asker", &format!("question_timeout: 1h\n{extra}"));
    let clock = ManualClock::new(START_MS);
    let (beckon, notifier) = start_on(RuntimeConfig::new(dir.path()), Arc::new(clock.clone())).await;
    let session = beckon.start_session("asker", "go").await.unwrap();
    let notice = pending_in(&notifier, session).await;
    assert_eq!(notice.expires_at_ms, Some(START_MS + 3_600_000));
    clock.advance(Duration::from_secs(59 * 60));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        beckon.inbox().question(notice.request_id).await.unwrap().status,
        QuestionStatus::Pending,
        "not yet due"
    );
    clock.advance(Duration::from_secs(60));
    let wanted = if extra.contains("fail") { SessionStatus::Failed } else { SessionStatus::Completed };
    wait_status(&beckon, session, wanted).await;
    assert_every_tool_use_answered_once(&beckon, session).await;
    let status = beckon.inbox().question(notice.request_id).await.unwrap().status;
    (last_words(&beckon, session).await, status, beckon.inbox().session(session).await.unwrap().session.status)
}

#[tokio::test]
async fn an_expired_question_follows_the_decline_policy() {
    let (words, question, _) = expire_with("on_timeout: decline").await;
    assert_eq!(question, QuestionStatus::Expired);
    assert_eq!(words, "outcome=expired answer=");
}

#[tokio::test]
async fn an_expired_question_follows_the_default_answer_policy() {
    let (words, question, _) = expire_with("on_timeout: default\ndefault_answer: No").await;
    assert_eq!(question, QuestionStatus::Expired);
    assert_eq!(words, "outcome=expired answer=No", "the default answer reaches the model");
}

#[tokio::test]
async fn an_expired_question_follows_the_fail_policy() {
    let (_, question, session) = expire_with("on_timeout: fail").await;
    assert_eq!(question, QuestionStatus::Expired);
    assert_eq!(session, SessionStatus::Failed);
}

#[tokio::test]
async fn a_deadline_that_passed_while_closed_fires_at_start() {
    let dir = tempfile::tempdir().unwrap();
    asker_agent(dir.path(), "asker", "question_timeout: 1h");
    let session = {
        let (beckon, notifier) = start_on(RuntimeConfig::new(dir.path()), Arc::new(ManualClock::new(START_MS))).await;
        let session = beckon.start_session("asker", "go").await.unwrap();
        pending_in(&notifier, session).await;
        beckon.shutdown().await;
        session
    };
    // Started again two hours later: the deadline passed while it was closed.
    let later = ManualClock::new(START_MS + 2 * 3_600_000);
    let (beckon, _) = start_on(RuntimeConfig::new(dir.path()), Arc::new(later)).await;
    wait_status(&beckon, session, SessionStatus::Completed).await;
    assert_eq!(last_words(&beckon, session).await, "outcome=expired answer=");
}

#[tokio::test]
async fn follow_up_messages_continue_a_completed_session() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, notifier) = start(dir.path()).await;
    let session = beckon.start_session("poet", "a poem about rain").await.unwrap();
    let first = pending_in(&notifier, session).await;
    beckon.resolve(first.request_id, AnsweredVia::Window, Decision::Decline(None)).await.unwrap();
    wait_status(&beckon, session, SessionStatus::Completed).await;
    beckon.send_message(session, "now one about snow").await.unwrap();
    let second = notifier
        .wait_for(
            PATIENCE,
            |c| matches!(c, Recorded::Pending(n) if n.session_id == session && n.request_id != first.request_id),
        )
        .await
        .unwrap();
    let Recorded::Pending(second) = second else { unreachable!() };
    assert_eq!(second.request.items()[0].question(), "Which style should the poem about snow take?");
    let err = beckon.send_message(session, "and another").await.unwrap_err();
    assert!(matches!(err, Error::WrongState { status: SessionStatus::WaitingForInput, .. }), "{err}");
    assert!(matches!(beckon.send_message(session, "  ").await, Err(Error::InvalidInput(_))));
}

#[tokio::test]
async fn unknown_agents_and_sessions_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start(dir.path()).await;
    let err = beckon.start_session("nobody", "hi").await.unwrap_err();
    assert!(matches!(&err, Error::AgentNotFound { .. }), "{err}");
    assert!(err.to_string().contains("poet"), "lists the agents: {err}");
    let missing = beckon_core::SessionId::parse("0190f1d2-0000-7000-8000-000000000abc").unwrap();
    assert!(matches!(beckon.cancel(missing, None).await, Err(Error::SessionNotFound(_))));
    assert!(matches!(beckon.inbox().session(missing).await, Err(Error::SessionNotFound(_))));
}

#[tokio::test]
async fn an_agent_without_a_configured_provider_fails_with_a_clear_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start(dir.path()).await;
    assert_eq!(beckon.agents().default(), "poet", "with no key the demo agent is the default");
    let session = beckon.start_session("assistant", "hello").await.unwrap();
    wait_status(&beckon, session, SessionStatus::Failed).await;
    let beckon_core::conversation::State::Failed { reason } =
        beckon.inbox().session(session).await.unwrap().session.state
    else {
        panic!()
    };
    assert!(reason.contains("no LLM provider is configured"), "{reason}");
}
