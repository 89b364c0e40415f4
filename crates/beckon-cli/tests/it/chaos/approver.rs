//! The agents of a chaos run: `approver`, a scripted in-app agent that asks one single-select
//! question about the webhook that started it and then finishes quoting the answer, and
//! `release-bot`, the external agent that asks through `POST /v1/questions`.

use std::path::Path;

use serde_json::{Value, json};

use super::plan::{EXPIRES_AFTER_SECONDS, Job, JobKind, LABELS};

/// The in-app agent's name.
pub const AGENT: &str = "approver";
/// The external agent's name.
pub const EXTERNAL_AGENT: &str = "release-bot";
/// The header of every question.
const HEADER: &str = "Channel";

/// The options, as a question takes them.
fn options() -> Value {
    LABELS.iter().map(|label| json!({"label": label, "description": format!("Release to {label}")})).collect()
}

/// Writes `approver` into the data folder's `agents/`.
pub fn install(data_dir: &Path) {
    let agents = data_dir.join("agents");
    std::fs::create_dir_all(&agents).expect("the agents folder can be made");
    let file = format!(
        "---\nname: {AGENT}\ndescription: Asks which channel a webhook's release goes to\nprovider: scripted\nscript: {AGENT}.json\n---\nAsk, then report the choice.\n"
    );
    std::fs::write(agents.join(format!("{AGENT}.md")), file).expect("the agent file can be written");
    // The question quotes the whole webhook message, so it carries the payload's ticket.
    let script = json!({"turns": [
        {"text": "Checking with a person.", "tool_calls": [{"name": "ask_user_question", "input": {"questions": [{
            "question": "Which channel should this release go to?\n\n{{message}}",
            "header": HEADER,
            "multiSelect": false,
            "options": options(),
        }]}}]},
        {"text": "Done: the person chose {{answer:0}}."}
    ]});
    std::fs::write(agents.join(format!("{AGENT}.json")), script.to_string()).expect("the script can be written");
}

/// The webhook payload that starts an in-app job's session.
pub fn trigger_payload(job: &Job) -> Value {
    json!({"ticket": job.marker()})
}

/// What an in-app job's question text contains: its payload's ticket, as the message shows it.
pub fn ticket_text(job: &Job) -> String {
    format!("\"ticket\": \"{}\"", job.marker())
}

/// The text of an external job's question.
pub fn external_question(job: &Job) -> String {
    format!("Ship build {} to which channel?", job.marker())
}

/// The body of an external job's `POST /v1/questions`.
pub fn external_ask(job: &Job, callback_url: Option<&str>) -> Value {
    let mut body = json!({
        "agent": EXTERNAL_AGENT,
        "session_key": job.marker(),
        "questions": [{
            "question": external_question(job),
            "header": HEADER,
            "multiSelect": false,
            "options": options(),
        }],
    });
    if let Some(url) = callback_url {
        body["callback_url"] = json!(url);
    }
    if job.kind == JobKind::Expiring {
        body["timeout"] = json!(EXPIRES_AFTER_SECONDS);
    }
    body
}

/// What an in-app session says last once it has the answer.
pub fn final_words(label: &str) -> String {
    format!("Done: the person chose {label}.")
}
