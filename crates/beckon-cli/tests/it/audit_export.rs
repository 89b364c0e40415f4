//! `beckon audit` against a real `beckon serve`: a data folder with 10,000 resolved questions
//! and approvals (resolved through the store, which writes their audit rows) exports as CSV
//! that a CSV reader parses back into exactly the rows the store holds, as JSON Lines with the
//! same rows, filtered by agent and time, and to a file written whole. (How little memory the
//! export takes is measured in the bench.)

use std::path::Path;

use beckon_core::conversation::{Origin, State};
use beckon_core::{AnsweredVia, Answers, Approval, Outcome, QuestionRequest, RequestId, SessionId, SessionOrigin};
use beckon_store::{AuditFilter, AuditRow, NewQuestion, NewSession, Resolution, Store};
use serde_json::json;
use uuid::Uuid;

use crate::support::served;

/// Enough for several pages of the store's reads and of the stream; the bench exports 100,000
/// from a release build and measures the memory it takes.
const QUESTIONS: usize = 10_000;
const AGENTS: [&str; 3] = ["claude-code", "codex", "release-bot"];
/// When the first question was asked; each next one a second later.
const FIRST_MS: i64 = 1_790_000_000_000;

fn approval(i: usize) -> QuestionRequest {
    let command = format!("npm run build -- --shard {i} --note \"a, b\"");
    let approval = Approval::parse(
        &json!({"tool_name": "Bash", "input": {"command": command}, "project": format!("/home/ada/p{}", i % 5)}),
        "approval",
    )
    .unwrap();
    QuestionRequest::for_approval(approval)
}

fn question(i: usize) -> QuestionRequest {
    QuestionRequest::parse(&json!({"questions": [{"question": format!("Ship build {i}?"), "header": "Ship",
        "options": [{"label": "Ship"}, {"label": "Wait"}]}]}))
    .unwrap()
}

/// Fills the database in `dir` with `QUESTIONS` questions, every one resolved: approvals allowed
/// or denied, questions answered or declined with a reason full of CSV's special characters.
fn fill(dir: &Path) {
    let mut store = Store::open(dir.join("beckon.db")).unwrap();
    for chunk in (0..QUESTIONS).collect::<Vec<_>>().chunks(2_500) {
        store
            .write(|tx| {
                for &i in chunk {
                    let at_ms = FIRST_MS + i as i64 * 1_000;
                    let agent = AGENTS[i % AGENTS.len()];
                    let (session, id) = (SessionId::from_uuid(Uuid::now_v7()), RequestId::from_uuid(Uuid::now_v7()));
                    tx.start_session(&NewSession {
                        id: session,
                        agent: agent.into(),
                        origin: SessionOrigin::External,
                        parent: None,
                        external_key: None,
                        title: String::new(),
                        state: State::Idle,
                        payload: None,
                        at_ms,
                    })?;
                    let request = if i % 2 == 0 { approval(i) } else { question(i) };
                    let outcome = match i % 4 {
                        0 | 2 => Outcome::Answered {
                            answers: Answers::from_texts(&request, &[if i % 4 == 0 { "Deny" } else { "Allow" }.into()])
                                .unwrap(),
                        },
                        1 => Outcome::Declined { reason: Some(format!("not now,\n\"really\" ({i})")) },
                        _ => Outcome::Answered { answers: Answers::from_texts(&request, &["Wait".into()]).unwrap() },
                    };
                    tx.ask(&NewQuestion {
                        id,
                        session_id: session,
                        tool_use_id: format!("toolu_{i}"),
                        agent: agent.into(),
                        origin: Origin::agent(agent),
                        request,
                        callback_url: None,
                        expires_at_ms: None,
                        expiry_policy: None,
                        at_ms,
                        callbacks: vec![],
                    })?;
                    tx.resolve(&Resolution {
                        request_id: id,
                        outcome,
                        via: Some(if i % 3 == 0 { AnsweredVia::Slack } else { AnsweredVia::Window }),
                        by: (i % 3 == 0).then(|| "slack:U1 (ada)".to_owned()),
                        at_ms: at_ms + 500,
                        session_status: None,
                        callbacks: vec![],
                    })?;
                }
                Ok(())
            })
            .unwrap();
    }
}

/// Every audit row the store holds matching `filter`, read in pages.
fn stored(dir: &Path, mut filter: AuditFilter) -> Vec<AuditRow> {
    let store = Store::open(dir.join("beckon.db")).unwrap();
    let mut rows = Vec::new();
    loop {
        let page = store.read().audit(&filter, 1_000).unwrap();
        let Some(last) = page.last() else { return rows };
        filter.after_id = Some(last.id);
        rows.extend(page);
    }
}

fn from_csv(bytes: &[u8]) -> Vec<AuditRow> {
    csv::Reader::from_reader(bytes).deserialize().collect::<Result<_, _>>().unwrap()
}

#[tokio::test]
async fn ten_thousand_resolved_questions_export_and_read_back_as_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    fill(dir.path());
    let expected = stored(dir.path(), AuditFilter::default());
    assert_eq!(expected.len(), QUESTIONS, "one audit row per resolved question");
    let served = served::Served::start_on(dir, "audit-test", |_| {}).await;

    let csv = served::output(served.beckon().args(["audit", "--format", "csv"])).await;
    assert!(csv.status.success(), "{}", served::text(&csv.stderr));
    assert!(csv.stdout.starts_with(b"id,request_id,kind,agent,project,machine,session,what,"));
    assert_eq!(from_csv(&csv.stdout), expected);

    let jsonl = served::output(served.beckon().args(["audit"])).await;
    assert!(jsonl.status.success(), "{}", served::text(&jsonl.stderr));
    let lines: Vec<AuditRow> =
        served::text(&jsonl.stdout).lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(lines, expected);

    // By agent and time: the second hour's questions from codex.
    let (since, until) = (FIRST_MS + 3_600_000, FIRST_MS + 7_200_000);
    let filtered = served::output(served.beckon().args([
        "audit",
        "--format",
        "csv",
        "--agent",
        "codex",
        "--since",
        &since.to_string(),
        "--until",
        &until.to_string(),
    ]))
    .await;
    assert!(filtered.status.success(), "{}", served::text(&filtered.stderr));
    let rows = from_csv(&filtered.stdout);
    let wanted: Vec<AuditRow> = expected
        .iter()
        .filter(|row| row.agent == "codex" && (since..until).contains(&row.resolved_at_ms))
        .cloned()
        .collect();
    assert_eq!(wanted.len(), 1_200);
    assert_eq!(rows, wanted);

    // To a file: whole, and nothing left beside it.
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("audit.csv");
    let written =
        served::output(served.beckon().args(["audit", "--format", "csv", "--agent", "claude-code", "-o"]).arg(&file))
            .await;
    assert!(written.status.success(), "{}", served::text(&written.stderr));
    assert!(served::text(&written.stderr).contains("Wrote the audit trail to"));
    let rows = from_csv(&std::fs::read(&file).unwrap());
    assert_eq!(rows.len(), expected.iter().filter(|row| row.agent == "claude-code").count());
    assert_eq!(std::fs::read_dir(folder.path()).unwrap().count(), 1, "only the export itself");
}

#[tokio::test]
async fn bad_times_and_formats_are_refused_before_anything_is_asked() {
    let served = served::Served::start("audit-test").await;
    let refused = served::output(served.beckon().args(["audit", "--since", "yesterday"])).await;
    assert!(!refused.status.success());
    assert!(served::text(&refused.stderr).contains("span back from now"), "{}", served::text(&refused.stderr));
    let backwards =
        served::output(served.beckon().args(["audit", "--since", "2026-11-02", "--until", "2026-11-01"])).await;
    assert!(!backwards.status.success());
    assert!(served::text(&backwards.stderr).contains("--since is after --until"));
    let format = served::output(served.beckon().args(["audit", "--format", "xml"])).await;
    assert!(!format.status.success());

    // Over HTTP, a format it does not know is a 400 naming the ones it does.
    let response = reqwest::Client::new()
        .get(format!("{}/v1/audit?format=xml", served.client.endpoint().url))
        .bearer_auth(&served.client.endpoint().token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), reqwest::StatusCode::BAD_REQUEST);
    assert!(response.text().await.unwrap().contains("format must be jsonl or csv"));

    // An empty trail is a CSV of its header alone.
    let empty = served::output(served.beckon().args(["audit", "--format", "csv"])).await;
    assert!(empty.status.success());
    assert_eq!(served::text(&empty.stdout).lines().count(), 1);
}
