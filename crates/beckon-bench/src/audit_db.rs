//! A data folder whose audit trail holds `questions` rows: every question and approval resolved
//! through the store's own write path (which writes each one's audit row), asked by three
//! agents, allowed, denied, answered and declined with reasons full of CSV's special
//! characters. Built once per size and schema version, then reused.

use std::path::{Path, PathBuf};

use beckon_core::conversation::{Origin, State};
use beckon_core::{AnsweredVia, Answers, Approval, Outcome, QuestionRequest, RequestId, SessionId, SessionOrigin};
use beckon_store::{NewQuestion, NewSession, Resolution, Store};
use serde_json::json;
use uuid::Uuid;

use crate::Failure;

/// The agents that ask, in turn.
pub const AGENTS: [&str; 3] = ["claude-code", "codex", "release-bot"];
/// Questions resolved per transaction while building.
const CHUNK: usize = 5_000;
/// When the first question was asked; each next one a second later.
const FIRST_MS: i64 = 1_790_000_000_000;

/// The data folder holding `questions` resolved questions under `cache`, built if missing.
pub fn data_dir(cache: &Path, questions: usize) -> Result<PathBuf, Failure> {
    let dir = cache.join(format!("audit-v{}-{questions}", beckon_store::SCHEMA_VERSION));
    if dir.join("beckon.db").exists() {
        return Ok(dir);
    }
    eprintln!("building an audit trail of {questions} resolved questions (kept for later runs)…");
    let partial = cache.join(format!("audit-v{}-{questions}.partial", beckon_store::SCHEMA_VERSION));
    let _ = std::fs::remove_dir_all(&partial);
    std::fs::create_dir_all(&partial)?;
    fill(&partial.join("beckon.db"), questions)?;
    // Everything in the main file, so the folder can be copied as one file.
    rusqlite::Connection::open(partial.join("beckon.db"))?.pragma_update(None, "wal_checkpoint", "TRUNCATE")?;
    std::fs::rename(&partial, &dir)?;
    Ok(dir)
}

/// Approval `i`: a build command with a quote and a comma in it, in one of five projects.
fn approval(i: usize) -> Result<QuestionRequest, Failure> {
    let command = format!("npm run build -- --shard {i} --note \"a, b\"");
    let approval = Approval::parse(
        &json!({"tool_name": "Bash", "input": {"command": command}, "project": format!("/home/ada/p{}", i % 5)}),
        "approval",
    )
    .map_err(|problems| format!("{problems:?}"))?;
    Ok(QuestionRequest::for_approval(approval))
}

/// Question `i`: ship or wait.
fn question(i: usize) -> Result<QuestionRequest, Failure> {
    QuestionRequest::parse(&json!({"questions": [{"question": format!("Ship build {i}?"), "header": "Ship",
        "options": [{"label": "Ship"}, {"label": "Wait"}]}]}))
    .map_err(|problems| format!("{problems:?}").into())
}

/// Question `i` and how it ends: approvals denied or allowed, questions declined or answered.
fn asked_and_resolved(i: usize) -> Result<(QuestionRequest, Outcome), Failure> {
    let request = if i.is_multiple_of(2) { approval(i)? } else { question(i)? };
    let answer =
        |text: &str| Answers::from_texts(&request, &[text.to_owned()]).map_err(|problems| format!("{problems:?}"));
    let outcome = match i % 4 {
        0 => Outcome::Answered { answers: answer("Deny")? },
        2 => Outcome::Answered { answers: answer("Allow")? },
        1 => Outcome::Declined { reason: Some(format!("not now,\n\"really\" ({i})")) },
        _ => Outcome::Answered { answers: answer("Wait")? },
    };
    Ok((request, outcome))
}

fn fill(path: &Path, questions: usize) -> Result<(), Failure> {
    let mut store = Store::open(path)?;
    let mut progress = crate::progress::Progress::new("questions resolved", questions);
    let all: Vec<usize> = (0..questions).collect();
    for chunk in all.chunks(CHUNK) {
        let planned =
            chunk.iter().map(|&i| asked_and_resolved(i).map(|plan| (i, plan))).collect::<Result<Vec<_>, _>>()?;
        store.write(|tx| {
            for (i, (request, outcome)) in planned {
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
                    via: Some(if i.is_multiple_of(3) { AnsweredVia::Slack } else { AnsweredVia::Window }),
                    by: i.is_multiple_of(3).then(|| "slack:U1 (ada)".to_owned()),
                    at_ms: at_ms + 500,
                    session_status: None,
                    callbacks: vec![],
                })?;
            }
            Ok(())
        })?;
        progress.update(chunk.last().map_or(0, |last| last + 1));
    }
    progress.finish();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use beckon_store::AuditFilter;

    #[test]
    fn every_question_leaves_one_audit_row_and_the_folder_is_reused() {
        let cache = tempfile::tempdir().unwrap();
        let dir = data_dir(cache.path(), 120).unwrap();
        let store = Store::open(dir.join("beckon.db")).unwrap();
        let rows = store.read().audit(&AuditFilter::default(), 1_000).unwrap();
        assert_eq!(rows.len(), 120);
        let agents: std::collections::HashSet<_> = rows.iter().map(|row| row.agent.as_str()).collect();
        assert_eq!(agents.len(), AGENTS.len());
        assert_eq!(data_dir(cache.path(), 120).unwrap(), dir, "built once, then reused");
    }
}
