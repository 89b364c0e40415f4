//! How a question ended, in the words a channel's message shows: the answer as the person
//! reads it, or what happened instead.

use beckon_core::{Outcome, QuestionItem, QuestionRequest};
use beckon_store::QuestionRecord;
use serde_json::Value;

use crate::channel::Settled;

/// The most characters a summary keeps.
const SUMMARY_MAX_CHARS: usize = 500;

/// The answer to each question, joined: "Postgres", "Auth, Billing", the person's own text.
pub fn summary(request: &QuestionRequest, outcome: &Outcome) -> String {
    let text = match outcome {
        Outcome::Answered { answers } | Outcome::Expired { default_answer: Some(answers) } => answers
            .items()
            .iter()
            .zip(request.items())
            .map(|(answer, item)| {
                let mut parts: Vec<String> = answer.selected.clone();
                parts.extend(answer.other.clone());
                if let (QuestionItem::FreeForm(_), Some(value)) = (item, &answer.value) {
                    parts.push(match value {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    });
                }
                let mut text = parts.join(", ");
                if let Some(comment) = &answer.comment {
                    text.push_str(&format!(" (“{comment}”)"));
                }
                text
            })
            .collect::<Vec<_>>()
            .join(" · "),
        Outcome::Declined { reason: Some(reason) } | Outcome::Cancelled { reason: Some(reason) } => reason.clone(),
        Outcome::Declined { reason: None } => "skipped".into(),
        Outcome::Cancelled { reason: None } => "the session was cancelled".into(),
        Outcome::Expired { default_answer: None } => "nobody answered in time".into(),
    };
    cut(&text)
}

fn cut(text: &str) -> String {
    if text.chars().count() > SUMMARY_MAX_CHARS {
        format!("{}…", text.chars().take(SUMMARY_MAX_CHARS - 1).collect::<String>())
    } else {
        text.to_owned()
    }
}

/// How `question` ended, for its message; `None` while it is pending.
pub fn settled(question: &QuestionRecord) -> Option<Settled> {
    let outcome = question.outcome.as_ref()?;
    Some(Settled {
        status: question.status,
        summary: summary(&question.request, outcome),
        via: question.answered_via,
        by: question.answered_by.as_ref().map(|by| person_name(by)),
    })
}

/// A stored identity ("slack:U123 (ada)", "oidc:0a1b (Ada Lovelace <ada@example.com>)") as a
/// message names the person ("ada", "Ada Lovelace").
fn person_name(identity: &str) -> String {
    match identity.rsplit_once(" (") {
        Some((_, name)) => {
            let name = name.trim_end_matches(')');
            // A name with an address after it: the name.
            match name.rsplit_once(" <") {
                Some((name, address)) if address.ends_with('>') && !name.is_empty() => name.to_owned(),
                _ => name.to_owned(),
            }
        }
        None => identity.split_once(':').map_or(identity, |(_, id)| id).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use beckon_core::{Answer, Answers};
    use serde_json::json;

    use super::*;

    fn request() -> QuestionRequest {
        QuestionRequest::parse(&json!({"questions": [
            {"question": "Areas?", "header": "Areas", "multiSelect": true, "options": [{"label": "Auth"}, {"label": "Billing"}]},
            {"question": "How many?", "schema": {"type": "integer"}}
        ]}))
        .unwrap()
    }

    #[test]
    fn answers_read_as_labels_values_and_comments() {
        let answers =
            Answers::unchecked(vec![Answer::select(["Auth", "Billing"]).with_comment("both"), Answer::value(json!(3))]);
        assert_eq!(summary(&request(), &Outcome::Answered { answers }), "Auth, Billing (“both”) · 3");
    }

    #[test]
    fn other_outcomes_say_what_happened() {
        assert_eq!(summary(&request(), &Outcome::Declined { reason: None }), "skipped");
        assert_eq!(summary(&request(), &Outcome::Expired { default_answer: None }), "nobody answered in time");
        assert_eq!(
            summary(&request(), &Outcome::Cancelled { reason: Some("answered in the terminal".into()) }),
            "answered in the terminal"
        );
    }

    #[test]
    fn people_are_named_by_their_handle() {
        assert_eq!(person_name("slack:U123 (ada)"), "ada");
        assert_eq!(person_name("telegram:42"), "42");
        assert_eq!(person_name("oidc:0a1b (Ada Lovelace <ada@example.com>)"), "Ada Lovelace");
        assert_eq!(person_name("oidc:0a1b (ada@example.com)"), "ada@example.com");
    }
}
