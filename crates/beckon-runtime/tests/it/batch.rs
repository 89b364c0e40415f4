//! Deciding many questions at once: external agents' questions commit in one transaction, each
//! asker reads its own decision, and what cannot be decided is reported without stopping the
//! rest.

use beckon_core::GivenAnswers;
use std::time::Duration;

use beckon_core::{AnsweredVia, Answerer, Approval, Outcome, PermissionDecision, QuestionRequest, RequestId};
use beckon_runtime::api::ErrorKind;
use beckon_runtime::{BatchDecision, Beckon, Decision, ExternalAsk};
use beckon_store::{AuditDecision, AuditFilter, QuestionStatus};
use serde_json::json;

use crate::support::*;

fn approval(command: &str) -> Approval {
    Approval::parse(
        &json!({"tool_name": "Bash", "input": {"command": command}, "project": "/home/ada/shop"}),
        "approval",
    )
    .unwrap()
}

async fn ask_approval(beckon: &Beckon, command: &str) -> RequestId {
    let request = QuestionRequest::for_approval(approval(command));
    let ask = ExternalAsk { agent: "claude-code".into(), request: Some(request), ..ExternalAsk::default() };
    beckon.ask_external(ask).await.unwrap().request_id
}

async fn ask_question(beckon: &Beckon) -> RequestId {
    let request = QuestionRequest::parse(&json!({"questions": [{"question": "Deploy to prod?", "header": "Deploy",
        "options": [{"label": "Yes"}, {"label": "No"}]}]}))
    .unwrap();
    let ask = ExternalAsk { agent: "ci-bot".into(), request: Some(request), ..ExternalAsk::default() };
    beckon.ask_external(ask).await.unwrap().request_id
}

#[tokio::test]
async fn five_hundred_denials_commit_once_and_each_asker_reads_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start(dir.path()).await;
    let mut ids = Vec::new();
    for i in 0..500 {
        ids.push(ask_approval(&beckon, &format!("cargo run --bin job-{i}")).await);
    }
    let before = beckon.health().counts().await.unwrap();
    let message = BatchDecision::Deny { message: Some("not during the freeze".into()) };
    let receipt = beckon.resolve_batch(ids.clone(), AnsweredVia::Window, message).await.unwrap();
    let after = beckon.health().counts().await.unwrap();
    assert!(receipt.failed.is_empty(), "{:?}", receipt.failed);
    assert_eq!(receipt.resolved.len(), 500);
    assert_eq!(after.commits - before.commits, 1, "one transaction for the whole batch");
    assert_eq!(after.resolutions - before.resolutions, 500);

    for id in ids {
        let read = beckon.inbox().wait_for_resolution(id, Duration::from_secs(1)).await.unwrap();
        assert_eq!(read.status, QuestionStatus::Answered);
        let Some(Outcome::Answered { answers }) = &read.outcome else { panic!("{:?}", read.outcome) };
        assert_eq!(answers.items()[0].selected, ["Deny"], "the stored answer names the option");
        let decision = read.request.approval().unwrap().decision(&answers.items()[0]);
        assert_eq!(decision, PermissionDecision::Deny { message: "not during the freeze".into() });
        assert_eq!(read.answered_via, Some(AnsweredVia::Window));
    }
    let audit = beckon.audit().page(AuditFilter::default(), 1000).await.unwrap();
    assert_eq!(audit.len(), 500);
    assert!(
        audit
            .iter()
            .all(|row| row.decision == AuditDecision::Deny && row.message.as_deref() == Some("not during the freeze"))
    );
}

#[tokio::test]
async fn each_question_is_checked_and_failures_do_not_stop_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start(dir.path()).await;
    let first = ask_approval(&beckon, "npm test").await;
    let second = ask_approval(&beckon, "npm run lint").await;
    let question = ask_question(&beckon).await;
    let settled = ask_approval(&beckon, "npm run build").await;
    beckon
        .resolve(settled, AnsweredVia::Window, Decision::Answer(GivenAnswers::Texts(vec!["Deny".into()])))
        .await
        .unwrap();
    let unknown = RequestId::from_uuid(uuid::Uuid::now_v7());

    // A script cannot allow, even in bulk; nothing is decided.
    let ids = vec![first, second];
    let refused = beckon.resolve_batch(ids.clone(), AnsweredVia::Http, BatchDecision::AllowOnce).await.unwrap();
    assert!(refused.resolved.is_empty());
    assert!(refused.failed.iter().all(|f| f.error.kind == ErrorKind::PersonOnly), "{:?}", refused.failed);
    assert_eq!(beckon.inbox().question(first).await.unwrap().status, QuestionStatus::Pending);

    // The person allows once, from the window: the approvals go; the rest is reported.
    let ids = vec![first, question, second, settled, unknown, first];
    let slack = Answerer { via: AnsweredVia::Slack, by: Some("slack:U1 (ada)".into()), signed_in: None };
    let receipt = beckon.resolve_batch(ids, slack, BatchDecision::AllowOnce).await.unwrap();
    let resolved: Vec<_> = receipt.resolved.iter().map(|r| r.id).collect();
    assert_eq!(resolved, [first, second]);
    let failed: Vec<_> = receipt.failed.iter().map(|f| (f.request_id, f.error.kind)).collect();
    assert_eq!(
        failed,
        [(question, ErrorKind::InvalidInput), (settled, ErrorKind::AlreadyResolved), (unknown, ErrorKind::NotFound)]
    );
    let row = beckon.audit().page(AuditFilter::default(), 10).await.unwrap();
    let row = row.iter().find(|r| r.request_id == first).unwrap();
    assert_eq!((row.decision, row.by.as_deref()), (AuditDecision::Allow, Some("slack:U1 (ada)")));

    // Declining takes any question; an approval declined is left to the agent's own prompt.
    let again = ask_approval(&beckon, "npm ci").await;
    let receipt = beckon
        .resolve_batch(vec![question, again], AnsweredVia::Cli, BatchDecision::Decline { reason: Some("later".into()) })
        .await
        .unwrap();
    assert_eq!(receipt.resolved.iter().map(|r| r.id).collect::<Vec<_>>(), [question, again]);
    assert!(receipt.failed.is_empty(), "{:?}", receipt.failed);
    for id in [question, again] {
        let declined = beckon.inbox().question(id).await.unwrap();
        assert_eq!(declined.outcome, Some(Outcome::Declined { reason: Some("later".into()) }));
    }

    // Denying a mixed batch denies its approvals and declines its other questions, with the
    // message for both.
    let (tool_call, other) = (ask_approval(&beckon, "npm run e2e").await, ask_question(&beckon).await);
    let receipt = beckon
        .resolve_batch(
            vec![tool_call, other],
            AnsweredVia::Window,
            BatchDecision::Deny { message: Some("not today".into()) },
        )
        .await
        .unwrap();
    assert_eq!((receipt.resolved.len(), receipt.failed.len()), (2, 0), "{:?}", receipt.failed);
    let declined = beckon.inbox().question(other).await.unwrap();
    assert_eq!(declined.outcome, Some(Outcome::Declined { reason: Some("not today".into()) }));
    let denied = beckon.inbox().question(tool_call).await.unwrap();
    assert!(matches!(denied.outcome, Some(Outcome::Answered { .. })), "{:?}", denied.outcome);

    // Repeating a batch that already won is a success for each question.
    let repeat = beckon
        .resolve_batch(vec![question], AnsweredVia::Cli, BatchDecision::Decline { reason: Some("later".into()) })
        .await
        .unwrap();
    assert_eq!((repeat.resolved.len(), repeat.failed.len()), (1, 0));
}
