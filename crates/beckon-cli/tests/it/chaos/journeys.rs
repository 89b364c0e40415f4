//! What each client does with a job: put the question (as an external agent, or by triggering
//! the in-app agent and finding the question its session asks), then answer it as the person,
//! through every kill, until the server acknowledges the answer.
//!
//! A lost ask is not simply sent again, since the server may have acted on it: the client
//! first looks for the question it may have made. A lost trigger is sent again under the same
//! idempotency key, which the server must honour. A lost answer is sent again as it
//! was; the server must then say it was taken (an idempotent repeat) or refuse with 409 and a
//! winning answer, which must be this client's own.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use super::approver;
use super::caller::{Attempt, Caller};
use super::plan::{EXPIRED, Job, JobKind};
use super::progress::Progress;

/// How long an in-app session may take to ask its question, kills included.
const ASK_PATIENCE: Duration = Duration::from_secs(90);
/// How often a client looks again.
const POLL: Duration = Duration::from_millis(40);

/// What a client knows of its job at the end.
#[derive(Debug, Clone)]
pub struct Record {
    /// The job.
    pub job: Job,
    /// Its question's id, once known.
    pub request_id: Option<String>,
    /// Its session's id, once known.
    pub session_id: Option<String>,
    /// The answer the server acknowledged to the client.
    pub acknowledged: Option<String>,
    /// Asks or triggers sent (more than one only after losses).
    pub puts: u32,
    /// Answers sent (more than one only after losses).
    pub answers_sent: u32,
    /// Answers the server called a repeat of one it already had.
    pub repeats: u32,
    /// Invariants this client saw broken.
    pub problems: Vec<String>,
}

impl Record {
    fn new(job: &Job) -> Record {
        Record {
            job: job.clone(),
            request_id: None,
            session_id: None,
            acknowledged: None,
            puts: 0,
            answers_sent: 0,
            repeats: 0,
            problems: Vec::new(),
        }
    }

    /// The job named with its ids, for messages.
    pub fn name(&self) -> String {
        let question = self.request_id.as_deref().unwrap_or("not known");
        match self.job.kind {
            JobKind::External { .. } => format!("{} (question {question})", self.job.marker()),
            JobKind::Expiring => format!("{} (question {question}, left to expire)", self.job.marker()),
            JobKind::InApp => {
                let session = self.session_id.as_deref().unwrap_or("not known");
                format!("{} (session {session}, question {question})", self.job.marker())
            }
        }
    }

    fn problem(&mut self, text: impl std::fmt::Display) {
        let name = self.name();
        self.problems.push(format!("{name}: {text}"));
    }
}

/// Drives `job` to an acknowledged answer.
pub async fn drive(caller: &mut Caller, job: &Job, callback_url: &str, progress: &Progress) -> Record {
    let mut record = Record::new(job);
    let marker = job.marker();
    tokio::time::sleep(job.before_asking).await;
    progress.stage(&marker, "asking");
    let asked = match job.kind {
        JobKind::External { callback } => ask_external(caller, &mut record, callback.then_some(callback_url)).await,
        JobKind::InApp => trigger(caller, &mut record, progress).await,
        JobKind::Expiring => ask_external(caller, &mut record, None).await,
    };
    if asked.is_some() && job.kind == JobKind::Expiring {
        progress.asked();
        progress.stage(&marker, "waiting for the deadline");
        await_expiry(caller, &mut record).await;
        if record.acknowledged.is_some() {
            progress.acknowledged();
        }
    } else if asked.is_some() {
        progress.asked();
        progress.stage(&marker, "pending: the person is thinking");
        tokio::time::sleep(job.before_answering).await;
        progress.stage(&marker, "answering");
        answer(caller, &mut record).await;
        if record.acknowledged.is_some() {
            progress.acknowledged();
        }
    }
    progress.finished(&marker);
    record
}

/// Every pending question (there are never more than a few hundred).
async fn pending(caller: &mut Caller) -> Vec<Value> {
    let (status, body) = caller.get("/v1/questions?status=pending&limit=500").await;
    assert_eq!(status, 200, "listing pending questions failed: {body}");
    body["questions"].as_array().cloned().unwrap_or_default()
}

fn question_text(question: &Value) -> &str {
    question["input"]["questions"][0]["question"].as_str().unwrap_or_default()
}

fn take_ids(record: &mut Record, question: &Value) {
    record.request_id = question["request_id"].as_str().map(str::to_owned);
    record.session_id = question["session_id"].as_str().map(str::to_owned);
}

async fn ask_external(caller: &mut Caller, record: &mut Record, callback_url: Option<&str>) -> Option<()> {
    let body = approver::external_ask(&record.job, callback_url);
    let text = approver::external_question(&record.job);
    loop {
        record.puts += 1;
        match caller.once(Method::POST, "/v1/questions", Some(&body)).await {
            Attempt::Replied { status: 201, body } => {
                take_ids(record, &body);
                return Some(());
            }
            Attempt::Replied { status, body } => {
                record.problem(format_args!("the ask was refused with {status}: {body}"));
                return None;
            }
            Attempt::Lost { generation } => {
                caller.after_loss(generation).await;
                // An ask commits whole or not at all, and only this client answers it: if it
                // was taken, it is pending now.
                let mine = pending(caller).await.into_iter().find(|q| question_text(q) == text);
                if let Some(question) = mine {
                    take_ids(record, &question);
                    return Some(());
                }
            }
        }
    }
}

/// Triggers the in-app agent under the job's delivery key. A lost trigger is sent again as
/// it was: the key makes the server return the session the first delivery started, if it did.
async fn trigger(caller: &mut Caller, record: &mut Record, progress: &Progress) -> Option<()> {
    let payload = approver::trigger_payload(&record.job);
    let ticket = approver::ticket_text(&record.job);
    let key = record.job.marker();
    let path = format!("/v1/agents/{}/trigger", approver::AGENT);
    loop {
        record.puts += 1;
        match caller.once_with(Method::POST, &path, Some(&payload), &[("idempotency-key", &key)]).await {
            Attempt::Replied { status: 202, body } => {
                if body["repeat"] == true && record.puts == 1 {
                    record.problem(format_args!("the first trigger was taken as a repeat: {body}"));
                }
                record.session_id = body["session_id"].as_str().map(str::to_owned);
                break;
            }
            Attempt::Replied { status, body } => {
                record.problem(format_args!("the trigger was refused with {status}: {body}"));
                return None;
            }
            Attempt::Lost { generation } => {
                caller.after_loss(generation).await;
                progress.stage(&record.job.marker(), "sending a lost trigger again");
            }
        }
    }
    progress.stage(&record.job.marker(), "waiting for the session's question");
    await_question(caller, record, &ticket).await
}

/// Waits for a triggered session to ask its question.
async fn await_question(caller: &mut Caller, record: &mut Record, ticket: &str) -> Option<()> {
    let session = record.session_id.clone()?;
    let began = Instant::now();
    loop {
        let (status, view) = caller.get(&format!("/v1/sessions/{session}")).await;
        if status != 200 {
            record.problem(format_args!("reading the session answered {status}: {view}"));
            return None;
        }
        let question = &view["pending_question"];
        if question.is_object() {
            if !question_text(question).contains(ticket) {
                record.problem(format_args!("the session asks someone else's question: {}", question_text(question)));
            }
            take_ids(record, question);
            return Some(());
        }
        let state = view["status"].as_str().unwrap_or_default();
        if state != "running" {
            record.problem(format_args!("the session is {state} without having asked its question: {view}"));
            return None;
        }
        if began.elapsed() > ASK_PATIENCE {
            record.problem(format_args!("the session did not ask its question within {ASK_PATIENCE:?}: {view}"));
            return None;
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Waits for an unanswered question to expire; its record then says [`EXPIRED`].
async fn await_expiry(caller: &mut Caller, record: &mut Record) {
    let Some(id) = record.request_id.clone() else { return };
    let began = Instant::now();
    loop {
        let (status, question) = caller.get(&format!("/v1/questions/{id}")).await;
        match (status, question["status"].as_str()) {
            (200, Some("pending")) => {}
            (200, Some(EXPIRED)) => {
                record.acknowledged = Some(EXPIRED.to_owned());
                return;
            }
            _ => {
                record.problem(format_args!("the question left to expire is {status}: {question}"));
                return;
            }
        }
        if began.elapsed() > ASK_PATIENCE {
            record.problem(format_args!("the question did not expire within {ASK_PATIENCE:?}: {question}"));
            return;
        }
        tokio::time::sleep(POLL).await;
    }
}

/// The label a resolved question's outcome selected.
pub fn selected(outcome: &Value) -> Option<&str> {
    outcome["answers"][0]["selected"][0].as_str()
}

async fn answer(caller: &mut Caller, record: &mut Record) {
    let Some(id) = record.request_id.clone() else { return };
    let path = format!("/v1/questions/{id}/answer");
    let label = record.job.label;
    let body = json!({"answer": label});
    loop {
        record.answers_sent += 1;
        match caller.once(Method::POST, &path, Some(&body)).await {
            Attempt::Replied { status: 200, body } => {
                let taken = selected(&body["outcome"]);
                if body["status"] != "answered" || taken != Some(label) {
                    record.problem(format_args!("the answer {label:?} was acknowledged as {body}"));
                }
                if body["repeat"] == true {
                    record.repeats += 1;
                }
                record.acknowledged = Some(label.to_owned());
                return;
            }
            Attempt::Replied { status: 409, body } => {
                let winner = selected(&body["error"]["winner"]["outcome"]);
                if record.answers_sent == 1 {
                    record.problem(format_args!("the first answer {label:?} was refused as already resolved: {body}"));
                } else if winner == Some(label) {
                    record.acknowledged = Some(label.to_owned());
                } else {
                    record.problem(format_args!(
                        "answering {label:?} again after a lost attempt was refused with another winner: {body}"
                    ));
                }
                return;
            }
            Attempt::Replied { status, body } => {
                record.problem(format_args!("the answer {label:?} was refused with {status}: {body}"));
                return;
            }
            Attempt::Lost { generation } => caller.after_loss(generation).await,
        }
    }
}
