//! Checks made over HTTP while the server runs, once everything has had time to settle.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::callbacks::CallbackGroup;
use crate::chaos::caller::Caller;
use crate::chaos::journeys::{Record, selected};
use crate::chaos::plan::{EXPIRED, JobKind};
use crate::chaos::receiver::Receiver;

use crate::chaos::approver;

/// How often settling looks again.
const POLL: Duration = Duration::from_millis(200);

/// What has not settled yet: in-app sessions not completed, callbacks not yet delivered.
async fn unsettled(caller: &mut Caller, records: &[Record], receiver: &Receiver) -> Vec<String> {
    let mut waiting = Vec::new();
    for record in records {
        if let (JobKind::InApp, Some(session), Some(_)) = (record.job.kind, &record.session_id, &record.acknowledged) {
            let (_, view) = caller.get(&format!("/v1/sessions/{session}")).await;
            if view["status"] != "completed" {
                waiting.push(format!("{}: session {}", record.name(), view["status"]));
            }
        }
    }
    let delivered: HashSet<CallbackGroup> = receiver
        .deliveries()
        .iter()
        .filter(|delivery| (200..300).contains(&delivery.answered))
        .filter_map(|delivery| CallbackGroup::of(&delivery.body))
        .collect();
    for record in records.iter().filter(|record| record.job.has_callback()) {
        let Some(id) = &record.request_id else { continue };
        for event in ["question_pending", "question_answered"] {
            if !delivered.contains(&CallbackGroup { request_id: id.clone(), event: event.to_owned() }) {
                waiting.push(format!("{}: {event} callback not delivered", record.name()));
            }
        }
    }
    waiting
}

/// Waits until every in-app session has completed and every callback was delivered, or
/// `patience` passes; how long it took.
pub async fn settle(caller: &mut Caller, records: &[Record], receiver: &Receiver, patience: Duration) -> Duration {
    let began = Instant::now();
    loop {
        let waiting = unsettled(caller, records, receiver).await;
        if waiting.is_empty() || began.elapsed() > patience {
            if !waiting.is_empty() {
                println!(
                    "chaos: still unsettled after {patience:?} (the checks will say more): {}",
                    waiting.join("; ")
                );
            }
            return began.elapsed();
        }
        tokio::time::sleep(POLL).await;
    }
}

fn answer_in_result(question: &Value) -> Option<&str> {
    let text = question["input"]["questions"][0]["question"].as_str()?;
    question["result"]["answers"][text].as_str()
}

/// Every job's question as the API shows it, its session's end, and an empty inbox.
pub async fn check(caller: &mut Caller, records: &[Record]) -> Vec<String> {
    let mut findings = Vec::new();
    for record in records {
        let name = record.name();
        let Some(acknowledged) = record.acknowledged.as_deref() else {
            if record.problems.is_empty() {
                findings.push(format!("{name}: its answer was never acknowledged"));
            }
            continue;
        };
        let Some(id) = &record.request_id else { continue };
        let (status, question) = caller.get(&format!("/v1/questions/{id}")).await;
        if status != 200 {
            findings.push(format!("{name}: GET /v1/questions/{id} answered {status}: {question}"));
            continue;
        }
        if record.job.kind == JobKind::Expiring {
            if question["status"] != EXPIRED || question["outcome"]["outcome"] != EXPIRED {
                findings.push(format!("{name}: left to expire, the question is {}", question["status"]));
            }
            continue;
        }
        if question["status"] != "answered" || selected(&question["outcome"]) != Some(acknowledged) {
            findings.push(format!(
                "{name}: acknowledged {acknowledged:?} but the question is {} with outcome {}",
                question["status"], question["outcome"]
            ));
        }
        if answer_in_result(&question) != Some(acknowledged) {
            findings
                .push(format!("{name}: the agent's result does not carry {acknowledged:?}: {}", question["result"]));
        }
        if let (JobKind::InApp, Some(session)) = (record.job.kind, &record.session_id) {
            let (_, view) = caller.get(&format!("/v1/sessions/{session}")).await;
            let expected = approver::final_words(acknowledged);
            if view["status"] != "completed" || view["result"] != expected.as_str() {
                findings.push(format!(
                    "{name}: the session is {} with result {} (expected completed with {expected:?})",
                    view["status"], view["result"]
                ));
            }
            if view["questions_asked"] != 1 || view["questions_answered"] != 1 {
                findings.push(format!(
                    "{name}: the session asked {} and had {} answered (expected one of each)",
                    view["questions_asked"], view["questions_answered"]
                ));
            }
        }
    }
    let (_, listed) = caller.get("/v1/questions?status=pending&limit=500").await;
    for question in listed["questions"].as_array().into_iter().flatten() {
        findings.push(format!(
            "question {} (session {}) is still pending after the run: {}",
            question["request_id"], question["session_id"], question["input"]["questions"][0]["question"]
        ));
    }
    findings
}
