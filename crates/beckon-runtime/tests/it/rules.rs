//! Rules: after the person allows the same call three times Beckon offers a rule; once made,
//! the next such approval is allowed at once by the rule — never pending, never notified, and
//! recorded as the rule's doing — until the rule is revoked. A destructive variant is always
//! put to the person.

use beckon_core::GivenAnswers;
use std::time::Duration;

use beckon_core::{AnsweredVia, Approval, Outcome, QuestionRequest, RequestId};
use beckon_runtime::{Beckon, Decision, ExternalAsk, Recorded, RecordingNotifier};
use beckon_store::{AuditDecision, AuditFilter, AuditVia, QuestionStatus, RuleSource};
use serde_json::json;

use crate::support::*;

fn approval(command: &str) -> QuestionRequest {
    let approval =
        Approval::parse(&json!({"tool_name": "Bash", "input": {"command": command}, "project": "/home/ada/shop"}), "a")
            .unwrap();
    QuestionRequest::for_approval(approval)
}

async fn ask(beckon: &Beckon, command: &str) -> beckon_runtime::ExternalAsked {
    let ask = ExternalAsk { agent: "claude-code".into(), request: Some(approval(command)), ..ExternalAsk::default() };
    beckon.ask_external(ask).await.unwrap()
}

async fn allow(beckon: &Beckon, id: RequestId) {
    beckon.resolve(id, AnsweredVia::Window, Decision::Answer(GivenAnswers::Texts(vec!["Allow".into()]))).await.unwrap();
}

fn notified(notifier: &RecordingNotifier, id: RequestId) -> bool {
    notifier.calls().iter().any(|call| matches!(call, Recorded::Pending(notice) if notice.request_id == id))
}

#[tokio::test]
async fn an_offered_rule_allows_at_once_until_it_is_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, notifier) = start(dir.path()).await;
    for _ in 0..2 {
        let asked = ask(&beckon, "npm test").await;
        allow(&beckon, asked.request_id).await;
    }
    assert!(beckon.rules().offers().await.unwrap().is_empty(), "two allows are not enough");
    let third = ask(&beckon, "npm test -- --watch").await;
    allow(&beckon, third.request_id).await;
    let offers = beckon.rules().offers().await.unwrap();
    assert_eq!(offers.len(), 1, "{offers:?}");
    assert_eq!((offers[0].allowed, offers[0].description.as_str()), (3, "`npm test` in shop"));

    let rule = beckon.rules().create(offers[0].spec.clone(), RuleSource::Offered).await.unwrap();
    assert_eq!(rule.key, offers[0].key);
    assert!(beckon.rules().offers().await.unwrap().is_empty(), "a live rule is not offered again");
    let same = beckon.rules().create(offers[0].spec.clone(), RuleSource::Hand).await.unwrap();
    assert_eq!(same.id, rule.id, "one live rule per key");

    // The fourth is allowed by the rule before anyone sees it.
    let fourth = ask(&beckon, "npm test").await;
    assert_eq!(fourth.allowed_by_rule, Some(rule.id));
    let read = beckon.inbox().wait_for_resolution(fourth.request_id, Duration::from_secs(1)).await.unwrap();
    assert_eq!(read.status, QuestionStatus::Answered);
    assert_eq!(read.answered_via, Some(AnsweredVia::Rule));
    assert_eq!(read.answered_by, Some(format!("rule {}", rule.id)));
    let Some(Outcome::Answered { answers }) = &read.outcome else { panic!("{:?}", read.outcome) };
    assert!(read.request.approval().unwrap().decision(&answers.items()[0]).allows());
    assert!(beckon.inbox().pending().await.unwrap().is_empty(), "it never waited");
    let rows = beckon.audit().page(AuditFilter::default(), 100).await.unwrap();
    let row = rows.iter().find(|r| r.request_id == fourth.request_id).unwrap();
    assert_eq!(
        (row.decision, row.via, row.by.clone(), row.rule_id),
        (AuditDecision::Allow, Some(AuditVia::Rule), Some(format!("rule {}", rule.id)), Some(rule.id))
    );
    let listed = beckon.rules().list(false).await.unwrap();
    assert_eq!((listed.len(), listed[0].fired), (1, 1));
    assert!(listed[0].last_fired_at_ms.is_some());

    // Chained with something destructive, the call goes to the person.
    let destructive = ask(&beckon, "npm test && rm -rf /").await;
    assert_eq!(destructive.allowed_by_rule, None);
    assert_eq!(beckon.inbox().question(destructive.request_id).await.unwrap().status, QuestionStatus::Pending);
    beckon
        .resolve(
            destructive.request_id,
            AnsweredVia::Window,
            Decision::Answer(GivenAnswers::Texts(vec!["Deny".into()])),
        )
        .await
        .unwrap();

    // Revoked, the rule allows nothing more.
    let revoked = beckon.rules().revoke(rule.id).await.unwrap();
    assert!(revoked.revoked_at_ms.is_some());
    let fifth = ask(&beckon, "npm test").await;
    assert_eq!(fifth.allowed_by_rule, None);
    assert_eq!(beckon.inbox().question(fifth.request_id).await.unwrap().status, QuestionStatus::Pending);
    pending_in(&notifier, fifth.session_id).await;
    assert!(!notified(&notifier, fourth.request_id), "the rule's allow notified no one");
    assert!(beckon.rules().list(false).await.unwrap().is_empty());
    assert_eq!(beckon.rules().list(true).await.unwrap().len(), 1, "a revoked rule is kept");
    assert!(beckon.rules().revoke(rule.id + 100).await.is_err());
}

#[tokio::test]
async fn rules_last_across_restarts_and_a_dismissed_offer_stays_away() {
    let dir = tempfile::tempdir().unwrap();
    let rule = {
        let (beckon, _) = start(dir.path()).await;
        for command in ["cargo build", "cargo build --release", "cargo build -p app"] {
            let asked = ask(&beckon, command).await;
            allow(&beckon, asked.request_id).await;
        }
        for _ in 0..3 {
            let asked = ask(&beckon, "make lint").await;
            allow(&beckon, asked.request_id).await;
        }
        let offers = beckon.rules().offers().await.unwrap();
        assert_eq!(offers.len(), 2, "{offers:?}");
        let lint = offers.iter().find(|o| o.description.contains("make lint")).unwrap();
        beckon.rules().dismiss_offer(lint.key.clone()).await.unwrap();
        let offers = beckon.rules().offers().await.unwrap();
        assert_eq!(offers.len(), 1);
        let rule = beckon.rules().create(offers[0].spec.clone(), RuleSource::Offered).await.unwrap();
        beckon.shutdown().await;
        rule
    };
    let (beckon, _) = start(dir.path()).await;
    let asked = ask(&beckon, "cargo build --offline").await;
    assert_eq!(asked.allowed_by_rule, Some(rule.id), "rules are loaded at start");
    assert!(beckon.rules().offers().await.unwrap().is_empty(), "the dismissed offer stays away");
}
