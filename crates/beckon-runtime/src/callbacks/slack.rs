//! Callbacks to Slack incoming webhooks, as Slack messages with blocks.
//!
//! Slack reads `<…>` in message text as control sequences: `<!channel>` pings everyone in the
//! channel and `<https://…|Answer in Beckon>` is a link with any label. Everything an agent
//! wrote (its name, its questions) is escaped as Slack documents — `&`, `<` and `>` as
//! `&amp;`, `&lt;` and `&gt;` — so it shows as the text it is; only Beckon's own markup (bold,
//! bullets, the answer button) is Slack markup.

use beckon_store::{CallbackKind, OutboxEntry};
use serde_json::{Value, json};

/// `text` as Slack shows it literally in a message.
pub(super) fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// A Slack incoming-webhook message: the question, who asks, and a link to answer.
pub(super) fn message(entry: &OutboxEntry) -> Value {
    let payload = &entry.payload;
    let agent = escape(payload["origin"].as_str().or(payload["agent"].as_str()).unwrap_or("An agent"));
    if let CallbackKind::Resolved(outcome) = entry.kind {
        let status = outcome.as_str();
        json!({"text": format!("{agent}'s question was {status}."), "blocks": [
            {"type": "context", "elements": [{"type": "mrkdwn", "text": format!("{agent}'s question was *{status}*.")}]}
        ]})
    } else {
        let questions: Vec<String> = payload["questions"]["questions"]
            .as_array()
            .map(|items| {
                items.iter().filter_map(|q| q["question"].as_str()).map(|q| format!("• {}", escape(q))).collect()
            })
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
    }
}

#[cfg(test)]
mod tests {
    use beckon_store::CallbackFormat;

    use super::*;
    use beckon_core::OutcomeKind;
    use beckon_testkit::corpus;

    const HOSTILE: &str = "<!channel> <https://evil.example|Answer in Beckon> & <@U123>";
    const ESCAPED: &str = "&lt;!channel&gt; &lt;https://evil.example|Answer in Beckon&gt; &amp; &lt;@U123&gt;";

    fn entry(kind: CallbackKind, payload: Value) -> OutboxEntry {
        OutboxEntry {
            id: 1,
            idempotency_key: "q:pending".into(),
            target: "https://hooks.slack.com/services/T/B/X".into(),
            format: CallbackFormat::Slack,
            kind,
            payload,
            attempts: 0,
            next_attempt_at_ms: 0,
            created_at_ms: 0,
        }
    }

    /// Every text Slack reads as markup in a message.
    fn texts(message: &Value) -> Vec<String> {
        let mut texts = vec![message["text"].as_str().unwrap().to_owned()];
        for block in message["blocks"].as_array().unwrap() {
            if let Some(text) = block["text"]["text"].as_str() {
                texts.push(text.to_owned());
            }
            for element in block["elements"].as_array().into_iter().flatten() {
                // A context's elements are text objects; a button's label is one.
                texts.extend(element["text"].as_str().or(element["text"]["text"].as_str()).map(str::to_owned));
            }
        }
        texts
    }

    #[test]
    fn slack_control_characters_are_escaped_and_nothing_else() {
        assert_eq!(escape(HOSTILE), ESCAPED);
        assert_eq!(escape("Deploy *v2* to prod? — “yes”"), "Deploy *v2* to prod? — “yes”");
        assert_eq!(escape("&amp;"), "&amp;amp;", "already-escaped text shows as written");
    }

    /// Slack's reading of message text: `&lt;`, `&gt;` and `&amp;` are the characters they
    /// stand for, and a `<` or `>` left as it is would start or end a control sequence.
    fn as_slack_shows(text: &str) -> Option<String> {
        if text.contains(['<', '>']) {
            return None;
        }
        Some(text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
    }

    #[test]
    fn every_hostile_text_shows_in_slack_as_written() {
        for (name, text) in corpus::texts("accepted") {
            let pending = message(&entry(
                CallbackKind::Pending,
                json!({"origin": text, "questions": {"questions": [{"question": text}]}, "deep_link": "beckon://question/q"}),
            ));
            let shown = texts(&pending);
            assert_eq!(as_slack_shows(&shown[0]), Some(format!("{text} asks: • {text}")), "{name}");
            assert_eq!(as_slack_shows(&shown[1]), Some(format!("*{text} asks*\n• {text}")), "{name}");
            let resolved = message(&entry(CallbackKind::Resolved(OutcomeKind::Declined), json!({"agent": text})));
            for shown in texts(&resolved) {
                assert!(as_slack_shows(&shown).is_some_and(|s| s.starts_with(&format!("{text}'s question"))), "{name}");
            }
        }
    }

    #[test]
    fn an_agents_words_cannot_ping_or_fake_a_link() {
        let pending = message(&entry(
            CallbackKind::Pending,
            json!({
                "origin": HOSTILE,
                "questions": {"questions": [{"question": HOSTILE}, {"question": "<!here> second?"}]},
                "deep_link": "beckon://question/q",
            }),
        ));
        let shown = texts(&pending);
        assert_eq!(shown[0], format!("{ESCAPED} asks: • {ESCAPED} • &lt;!here&gt; second?"));
        assert_eq!(shown[1], format!("*{ESCAPED} asks*\n• {ESCAPED}\n• &lt;!here&gt; second?"));
        assert_eq!(shown[2], "Answer in Beckon");
        assert_eq!(pending["blocks"][1]["elements"][0]["url"], "beckon://question/q", "Beckon's own link stays");

        let resolved = message(&entry(CallbackKind::Resolved(OutcomeKind::Answered), json!({"agent": HOSTILE})));
        for text in texts(&resolved) {
            assert!(text.starts_with(&format!("{ESCAPED}'s question was ")), "{text}");
            assert!(!text.contains("<!") && !text.contains("<http"), "{text}");
        }
    }
}
