//! Checks on the database the stopped server left: intact; each job asked once and resolved
//! once with the acknowledged answer (or expired once, for a question left to expire); every session accounted for and completed; every
//! tool_use with exactly one tool_result; every callback queued once per event and delivered.

use std::collections::HashMap;

use serde_json::Value;

use super::by_marker;
use super::snapshot::{SessionRow, Snapshot};
use crate::chaos::journeys::{Record, selected};
use crate::chaos::plan::{EXPIRED, JobKind, marker_in};

use crate::chaos::approver;

/// Every finding on `snapshot` against what the clients were told.
pub fn check(snapshot: &Snapshot, records: &[Record]) -> Vec<String> {
    let mut findings = Vec::new();
    if snapshot.integrity != ["ok"] {
        findings.push(format!("PRAGMA integrity_check found: {}", snapshot.integrity.join("; ")));
    }
    if snapshot.foreign_key_violations > 0 {
        findings.push(format!("PRAGMA foreign_key_check found {} violations", snapshot.foreign_key_violations));
    }
    questions(snapshot, records, &mut findings);
    sessions(snapshot, records, &mut findings);
    outbox(snapshot, records, &mut findings);
    findings
}

fn questions(snapshot: &Snapshot, records: &[Record], findings: &mut Vec<String>) {
    let jobs = by_marker(records);
    let mut asked: HashMap<String, Vec<&super::snapshot::QuestionRow>> = HashMap::new();
    for question in &snapshot.questions {
        match marker_in(&question.text).filter(|marker| jobs.contains_key(marker)) {
            Some(marker) => asked.entry(marker).or_default().push(question),
            None => findings.push(format!(
                "question {} (session {}) belongs to no client's job: {:?}",
                question.id, question.session_id, question.text
            )),
        }
    }
    for record in records {
        let name = record.name();
        let rows = asked.get(&record.job.marker()).map(Vec::as_slice).unwrap_or_default();
        let ids: Vec<&str> = rows.iter().map(|row| row.id.as_str()).collect();
        match rows {
            [] if record.request_id.is_some() => findings.push(format!("{name}: the question is not in the database")),
            [] => {}
            [row] => {
                if record.request_id.as_deref() != Some(row.id.as_str()) {
                    findings.push(format!("{name}: the database's question for this job is {}", row.id));
                }
                let stored_as_told = |acknowledged: &str| match record.job.kind {
                    JobKind::Expiring => row.status == EXPIRED,
                    _ => row.status == "answered" && selected(&row.outcome) == Some(acknowledged),
                };
                if let Some(acknowledged) = record.acknowledged.as_deref()
                    && !stored_as_told(acknowledged)
                {
                    findings.push(format!(
                        "{name}: acknowledged {acknowledged:?} but stored as {} with outcome {}",
                        row.status, row.outcome
                    ));
                }
                let asked = snapshot.asked_events.get(&row.id).copied().unwrap_or(0);
                let resolved = snapshot.resolved_events.get(&row.id).copied().unwrap_or(0);
                if asked != 1 || resolved != 1 {
                    findings.push(format!(
                        "{name}: the event log has {asked} question_pending and {resolved} question_resolved events for it (expected one each)"
                    ));
                }
            }
            _ => findings.push(format!("{name}: asked {} times (questions {})", rows.len(), ids.join(", "))),
        }
    }
}

/// The job a session belongs to: a webhook session by its payload's ticket, an external one by
/// its key.
fn session_marker(session: &SessionRow) -> Option<String> {
    match session.origin.as_str() {
        "webhook" => session.payload["ticket"].as_str().map(str::to_owned),
        "external" => session.external_key.clone(),
        _ => None,
    }
}

fn sessions(snapshot: &Snapshot, records: &[Record], findings: &mut Vec<String>) {
    let jobs = by_marker(records);
    let mut made: HashMap<String, Vec<&SessionRow>> = HashMap::new();
    for session in &snapshot.sessions {
        let entries = snapshot.timelines.get(&session.id).map_or(0, Vec::len);
        match session_marker(session).filter(|marker| jobs.contains_key(marker)) {
            Some(marker) => made.entry(marker).or_default().push(session),
            None => findings.push(format!(
                "session {} ({} {}, {}, {entries} timeline entries, payload {}) belongs to no client's job",
                session.id, session.origin, session.agent, session.status, session.payload
            )),
        }
    }
    for record in records {
        let name = record.name();
        let rows = made.get(&record.job.marker()).map(Vec::as_slice).unwrap_or_default();
        match rows {
            [] if record.session_id.is_some() => findings.push(format!("{name}: the session is not in the database")),
            [] => {}
            [session] => {
                if record.session_id.as_deref() != Some(session.id.as_str()) {
                    findings.push(format!("{name}: the database's session for this job is {}", session.id));
                }
                if record.acknowledged.is_some() && session.status != "completed" {
                    findings.push(format!("{name}: the session ended {}, not completed", session.status));
                }
                if record.job.kind == JobKind::InApp {
                    let timeline = snapshot.timelines.get(&session.id).map(Vec::as_slice).unwrap_or_default();
                    timeline_findings(&name, timeline, record.acknowledged.as_deref(), findings);
                }
            }
            _ => {
                let ids: Vec<&str> = rows.iter().map(|row| row.id.as_str()).collect();
                findings.push(format!("{name}: {} sessions were made for it ({})", rows.len(), ids.join(", ")));
            }
        }
    }
}

/// An in-app session's timeline: the webhook message, one question asked and answered, every
/// tool_use with exactly one tool_result, and last words quoting the acknowledged answer.
fn timeline_findings(name: &str, timeline: &[Value], acknowledged: Option<&str>, findings: &mut Vec<String>) {
    let kind = |entry: &Value| entry["kind"].as_str().unwrap_or_default().to_owned();
    let kinds: Vec<String> = timeline.iter().map(kind).collect();
    let count = |wanted: &str| kinds.iter().filter(|k| *k == wanted).count();
    let mut results: HashMap<&str, usize> = HashMap::new();
    for entry in timeline.iter().filter(|entry| entry["kind"] == "tool_result") {
        *results.entry(entry["tool_use_id"].as_str().unwrap_or_default()).or_default() += 1;
    }
    for entry in timeline.iter().filter(|entry| entry["kind"] == "tool_use") {
        let id = entry["id"].as_str().unwrap_or_default();
        match results.remove(id) {
            Some(1) => {}
            found => findings.push(format!(
                "{name}: tool_use {id} has {} tool_results (timeline: {})",
                found.unwrap_or(0),
                kinds.join(", ")
            )),
        }
    }
    for (id, found) in results {
        findings.push(format!("{name}: {found} tool_result(s) for {id}, which no tool_use made"));
    }
    if count("user") != 1 || count("question") != 1 || count("answer") != 1 {
        findings
            .push(format!("{name}: the timeline is not one message, one question, one answer: {}", kinds.join(", ")));
    }
    if let Some(label) = acknowledged {
        let last = timeline.iter().rev().find(|entry| entry["kind"] == "assistant");
        let expected = approver::final_words(label);
        if last.and_then(|entry| entry["text"].as_str()) != Some(expected.as_str()) {
            findings.push(format!(
                "{name}: the last words are {} (expected {expected:?})",
                last.map_or(Value::Null, |entry| entry["text"].clone())
            ));
        }
    }
}

fn outbox(snapshot: &Snapshot, records: &[Record], findings: &mut Vec<String>) {
    let mut queued: HashMap<&str, Vec<&super::snapshot::OutboxRow>> = HashMap::new();
    for row in &snapshot.outbox {
        queued.entry(row.request_id.as_str()).or_default().push(row);
    }
    for record in records {
        let Some(id) = record.request_id.as_deref() else { continue };
        let name = record.name();
        let rows = queued.remove(id).unwrap_or_default();
        if !record.job.has_callback() {
            if !rows.is_empty() {
                findings.push(format!(
                    "{name}: {} callbacks were queued for a question without a callback URL",
                    rows.len()
                ));
            }
            continue;
        }
        for event in ["question_pending", "question_answered"] {
            let of_event: Vec<_> = rows.iter().filter(|row| row.kind == event).collect();
            match of_event.as_slice() {
                [row] if row.state == "delivered" => {}
                [row] => findings.push(format!(
                    "{name}: the {event} callback {} is {} after {} attempts",
                    row.key, row.state, row.attempts
                )),
                _ => findings.push(format!("{name}: {} {event} callbacks were queued (expected one)", of_event.len())),
            }
        }
        if rows.len() != 2 {
            let kinds: Vec<&str> = rows.iter().map(|row| row.kind.as_str()).collect();
            findings.push(format!("{name}: the outbox holds {} callbacks for it: {}", rows.len(), kinds.join(", ")));
        }
    }
    for (id, rows) in queued {
        findings.push(format!("{} callback(s) queued for question {id}, which is no job's", rows.len()));
    }
}
