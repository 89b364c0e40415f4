//! Callbacks to Slack incoming webhooks, as Slack messages with blocks.

use beckon_store::OutboxEntry;
use serde_json::{Value, json};

/// A Slack incoming-webhook message: the question, who asks, and a link to answer.
pub(super) fn message(entry: &OutboxEntry) -> Value {
    let payload = &entry.payload;
    let agent = payload["origin"].as_str().or(payload["agent"].as_str()).unwrap_or("An agent");
    if entry.kind == "question_pending" {
        let questions: Vec<String> = payload["questions"]["questions"]
            .as_array()
            .map(|items| items.iter().filter_map(|q| q["question"].as_str()).map(|q| format!("• {q}")).collect())
            .unwrap_or_default();
        let link = payload["deep_link"].as_str().unwrap_or_default();
        json!({
            "text": format!("{agent} asks: {}", questions.join(" ")),
            "blocks": [
                {"type": "section", "text": {"type": "mrkdwn", "text": format!("*{agent} asks*\n{}", questions.join("\n"))}},
                {"type": "actions", "elements": [
                    {"type": "button", "text": {"type": "plain_text", "text": "Answer in Beckon"}, "url": link}
                ]}
            ]
        })
    } else {
        let status = entry.kind.trim_start_matches("question_");
        json!({"text": format!("{agent}'s question was {status}."), "blocks": [
            {"type": "context", "elements": [{"type": "mrkdwn", "text": format!("{agent}'s question was *{status}*.")}]}
        ]})
    }
}
