//! The audit trail through the runtime: every resolution leaves a row, an export streams them
//! all, sessions pruned by retention keep their rows, and rows go after their own period even
//! with session retention off.

use beckon_core::GivenAnswers;
use std::sync::Arc;
use std::time::Duration;

use beckon_core::{AnsweredVia, Answerer, QuestionRequest};
use beckon_runtime::{Beckon, Decision, Error, ExternalAsk, ManualClock, RuntimeConfig};
use beckon_store::{AuditDecision, AuditFilter, AuditRow, AuditVia};
use serde_json::json;

use crate::support::*;

const START_MS: i64 = 1_795_500_000_000;
const DAY: Duration = Duration::from_secs(24 * 60 * 60);

fn deploy() -> QuestionRequest {
    QuestionRequest::parse(&json!({"questions": [{"question": "Deploy to prod?", "header": "Deploy", "options": [{"label": "Yes"}, {"label": "No"}]}]})).unwrap()
}

async fn exported(beckon: &Beckon, filter: AuditFilter) -> Vec<AuditRow> {
    let mut rows = Vec::new();
    let mut stream = beckon.audit().export(filter);
    while let Some(row) = stream.recv().await {
        rows.push(row.unwrap());
    }
    rows
}

/// Waits until `check` holds of the exported rows.
async fn until(beckon: &Beckon, what: &str, check: impl Fn(&[AuditRow]) -> bool) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !check(&exported(beckon, AuditFilter::default()).await) {
        assert!(tokio::time::Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn every_decision_is_exported_and_kept_for_its_own_period() {
    let dir = tempfile::tempdir().unwrap();
    let asked = {
        let (beckon, _) = start_on(RuntimeConfig::new(dir.path()), Arc::new(ManualClock::new(START_MS))).await;
        let mut asked = Vec::new();
        for i in 0..600 {
            let agent = if i % 3 == 0 { "deployer" } else { "ci-bot" };
            let ask = ExternalAsk { agent: agent.into(), request: Some(deploy()), ..ExternalAsk::default() };
            let id = beckon.ask_external(ask).await.unwrap().request_id;
            let slack = Answerer { via: AnsweredVia::Slack, by: Some("slack:U1 (ada)".into()), signed_in: None };
            beckon.resolve(id, slack, Decision::Answer(GivenAnswers::Texts(vec!["Yes".into()]))).await.unwrap();
            asked.push(id);
        }
        let rows = exported(&beckon, AuditFilter::default()).await;
        assert_eq!(rows.iter().map(|r| r.request_id).collect::<Vec<_>>(), asked, "all of them, in order");
        let row = &rows[0];
        assert_eq!(
            (row.decision, row.via, row.by.as_deref()),
            (AuditDecision::Answered, Some(AuditVia::Slack), Some("slack:U1 (ada)"))
        );
        assert_eq!(row.what, "Deploy: Deploy to prod?");
        let deployer = AuditFilter { agent: Some("deployer".into()), ..AuditFilter::default() };
        assert_eq!(exported(&beckon, deployer).await.len(), 200);
        let page = beckon.audit().page(AuditFilter { after_id: Some(rows[9].id), ..AuditFilter::default() }, 5).await;
        assert_eq!(
            page.unwrap().iter().map(|r| r.id).collect::<Vec<_>>(),
            rows[10..15].iter().map(|r| r.id).collect::<Vec<_>>()
        );
        beckon.shutdown().await;
        asked
    };

    // Two days on, finished sessions are kept a day: they go, their audit rows stay.
    let later = ManualClock::new(START_MS);
    later.advance(2 * DAY);
    let mut config = RuntimeConfig::new(dir.path());
    config.retention_days = Some(1);
    {
        let (beckon, _) = start_on(config, Arc::new(later)).await;
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while beckon.inbox().question(asked[599]).await.is_ok() {
            assert!(tokio::time::Instant::now() < deadline, "the finished sessions were not pruned");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(matches!(beckon.inbox().question(asked[0]).await, Err(Error::QuestionNotFound(_))));
        assert_eq!(exported(&beckon, AuditFilter::default()).await.len(), 600, "the audit outlives the sessions");
        beckon.shutdown().await;
    }

    // Ten days on, with session retention off and decisions kept a week: the rows go.
    let much_later = ManualClock::new(START_MS);
    much_later.advance(10 * DAY);
    let mut config = RuntimeConfig::new(dir.path());
    config.audit_days = 7;
    let (beckon, _) = start_on(config, Arc::new(much_later)).await;
    until(&beckon, "old audit rows were not pruned", <[AuditRow]>::is_empty).await;
}
