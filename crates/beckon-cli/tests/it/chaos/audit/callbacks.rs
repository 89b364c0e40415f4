//! Checks on what the callback receiver saw: every delivery signed with the install's secret
//! (`Beckon-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`), each callback under one
//! idempotency key (the outbox's) with one body across retries and restarts, every callback
//! delivered at least once, and the answered callback carrying the acknowledged answer.

use std::collections::{HashMap, HashSet};

use hmac::{Hmac, KeyInit, Mac};
use serde_json::Value;
use sha2::Sha256;

use super::snapshot::Snapshot;
use crate::chaos::journeys::{Record, selected};
use crate::chaos::receiver::Delivery;

/// How far a signature's time may be from the delivery's arrival.
const CLOCK_TOLERANCE_SECONDS: i64 = 300;

/// One callback: a question and the event reported.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallbackGroup {
    /// The question.
    pub request_id: String,
    /// `question_pending`, `question_answered`, …
    pub event: String,
}

impl CallbackGroup {
    /// The callback a delivery's body reports.
    pub fn of(body: &[u8]) -> Option<CallbackGroup> {
        let value: Value = serde_json::from_slice(body).ok()?;
        Some(CallbackGroup {
            request_id: value["request_id"].as_str()?.to_owned(),
            event: value["event"].as_str()?.to_owned(),
        })
    }
}

/// Checks `Beckon-Signature` against `secret`; what is wrong with it, if anything.
fn signature_problem(secret: &str, delivery: &Delivery) -> Option<String> {
    let Some(header) = delivery.signature.as_deref() else { return Some("no Beckon-Signature header".into()) };
    let mut t = None;
    let mut v1 = None;
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", value)) => t = value.parse::<i64>().ok(),
            Some(("v1", value)) => v1 = hex::decode(value).ok(),
            _ => {}
        }
    }
    let (Some(t), Some(v1)) = (t, v1) else { return Some(format!("malformed Beckon-Signature {header:?}")) };
    if (t - delivery.at_unix).abs() > CLOCK_TOLERANCE_SECONDS {
        return Some(format!("signed at {t} but delivered at {}", delivery.at_unix));
    }
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(format!("{t}.").as_bytes());
    mac.update(&delivery.body);
    mac.verify_slice(&v1)
        .err()
        .map(|_| format!("Beckon-Signature {header:?} does not verify with the install's secret"))
}

/// Figures on the deliveries, for the summary.
#[derive(Debug, Default)]
pub struct CallbackFigures {
    /// Deliveries received.
    pub deliveries: usize,
    /// Deliveries answered with 500.
    pub refused: usize,
    /// Callbacks delivered more than once (after a refusal or a kill).
    pub repeated: usize,
}

/// Every finding on `deliveries`; and figures.
pub fn check(deliveries: &[Delivery], snapshot: &Snapshot, records: &[Record]) -> (Vec<String>, CallbackFigures) {
    let mut findings = Vec::new();
    let secret = snapshot.secret.as_deref().unwrap_or_default();
    if secret.is_empty() {
        findings.push("the database holds no callback secret".to_owned());
    }
    let outbox_keys: HashMap<CallbackGroup, &str> = snapshot
        .outbox
        .iter()
        .map(|row| (CallbackGroup { request_id: row.request_id.clone(), event: row.kind.clone() }, row.key.as_str()))
        .collect();
    let mut groups: HashMap<CallbackGroup, Vec<&Delivery>> = HashMap::new();
    let mut key_groups: HashMap<&str, HashSet<CallbackGroup>> = HashMap::new();
    for delivery in deliveries {
        let Some(group) = CallbackGroup::of(&delivery.body) else {
            findings.push(format!(
                "a callback's body is not a question event: {}",
                String::from_utf8_lossy(&delivery.body)
            ));
            continue;
        };
        let about = format!("the {} callback of question {}", group.event, group.request_id);
        if !secret.is_empty()
            && let Some(problem) = signature_problem(secret, delivery)
        {
            findings.push(format!("{about}: {problem}"));
        }
        if delivery.event.as_deref() != Some(group.event.as_str()) {
            findings.push(format!("{about}: Beckon-Event says {:?}", delivery.event));
        }
        match delivery.key.as_deref() {
            None => findings.push(format!("{about}: delivered without an Idempotency-Key")),
            Some(key) => {
                key_groups.entry(key).or_default().insert(group.clone());
            }
        }
        groups.entry(group).or_default().push(delivery);
    }
    for (key, reported) in &key_groups {
        if reported.len() > 1 {
            findings.push(format!("the idempotency key {key:?} was used for {} different callbacks", reported.len()));
        }
    }
    for (group, received) in &groups {
        let about = format!("the {} callback of question {}", group.event, group.request_id);
        let keys: HashSet<Option<&str>> = received.iter().map(|delivery| delivery.key.as_deref()).collect();
        if keys.len() > 1 {
            findings.push(format!("{about}: delivered under {} idempotency keys: {keys:?}", keys.len()));
        }
        if let (Some(Some(key)), Some(queued)) = (keys.iter().next(), outbox_keys.get(group))
            && key != queued
        {
            findings.push(format!("{about}: delivered as {key:?} but queued as {queued:?}"));
        }
        let bodies: HashSet<&[u8]> = received.iter().map(|delivery| delivery.body.as_ref()).collect();
        if bodies.len() > 1 {
            findings.push(format!(
                "{about}: its {} deliveries carry {} different bodies",
                received.len(),
                bodies.len()
            ));
        }
    }
    let mut expected: HashSet<String> = HashSet::new();
    for record in records.iter().filter(|record| record.job.has_callback()) {
        let Some(id) = &record.request_id else { continue };
        expected.insert(id.clone());
        let name = record.name();
        for event in ["question_pending", "question_answered"] {
            let group = CallbackGroup { request_id: id.clone(), event: event.to_owned() };
            let received = groups.get(&group).map(Vec::as_slice).unwrap_or_default();
            if !received.iter().any(|delivery| (200..300).contains(&delivery.answered)) {
                findings.push(format!(
                    "{name}: the {event} callback was never delivered ({} attempts reached the receiver)",
                    received.len()
                ));
            }
            if event == "question_answered"
                && let (Some(delivery), Some(acknowledged)) = (received.first(), record.acknowledged.as_deref())
            {
                let body: Value = serde_json::from_slice(&delivery.body).unwrap_or(Value::Null);
                if selected(&body["outcome"]) != Some(acknowledged) {
                    findings.push(format!(
                        "{name}: the answered callback carries {} but {acknowledged:?} was acknowledged",
                        body["outcome"]
                    ));
                }
            }
        }
    }
    for group in groups.keys().filter(|group| !expected.contains(&group.request_id)) {
        findings.push(format!(
            "the {} callback of question {} was sent, but that question has no callback URL",
            group.event, group.request_id
        ));
    }
    let figures = CallbackFigures {
        deliveries: deliveries.len(),
        refused: deliveries.iter().filter(|delivery| delivery.answered >= 500).count(),
        repeated: groups.values().filter(|received| received.len() > 1).count(),
    };
    (findings, figures)
}
