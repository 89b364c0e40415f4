//! How a question ends, and the tool result the agent's model receives for it.
//!
//! Outcomes are typed, never an empty answer: answered, declined (the person chose not to
//! answer), expired (the deadline passed), cancelled (the session was cancelled).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::answer::Answers;
use crate::limits::REASON_MAX_BYTES;
use crate::problem::Problems;
use crate::question::{QuestionItem, QuestionRequest};
use crate::text::{self, Lines};

/// Checks a reason given for declining or cancelling, whichever front end it comes from: at
/// most [`REASON_MAX_BYTES`], and no control characters but newlines and tabs (no bidi
/// controls either). A reason is shown to the person and printed in terminals.
pub fn check_reason(reason: Option<&str>) -> Result<(), Problems> {
    let mut problems = Problems::new();
    if let Some(reason) = reason {
        text::check_size_and_characters("reason", reason, Lines::Multi, REASON_MAX_BYTES, &mut problems);
    }
    problems.into_result(())
}

/// The way a question was resolved.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case", deny_unknown_fields)]
pub enum Outcome {
    /// The person answered.
    Answered {
        /// One answer per question.
        answers: Answers,
    },
    /// The person chose not to answer; the agent goes on without.
    Declined {
        /// Why, if the person said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// The deadline passed with no answer.
    Expired {
        /// The agent's default answer, when its policy is to use one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        default_answer: Option<Answers>,
    },
    /// The session was cancelled while the question waited.
    Cancelled {
        /// Why, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

/// The outcome's kind, which is also the question's final status.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    /// See [`Outcome::Answered`].
    Answered,
    /// See [`Outcome::Declined`].
    Declined,
    /// See [`Outcome::Expired`].
    Expired,
    /// See [`Outcome::Cancelled`].
    Cancelled,
}

impl OutcomeKind {
    /// The lower-case name, as stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Answered => "answered",
            Self::Declined => "declined",
            Self::Expired => "expired",
            Self::Cancelled => "cancelled",
        }
    }

    /// Reads the lower-case name.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::Answered, Self::Declined, Self::Expired, Self::Cancelled].into_iter().find(|k| k.as_str() == text)
    }
}

impl fmt::Display for OutcomeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Outcome {
    /// Which kind of outcome this is.
    pub fn kind(&self) -> OutcomeKind {
        match self {
            Self::Answered { .. } => OutcomeKind::Answered,
            Self::Declined { .. } => OutcomeKind::Declined,
            Self::Expired { .. } => OutcomeKind::Expired,
            Self::Cancelled { .. } => OutcomeKind::Cancelled,
        }
    }
}

/// A tool result's text and whether it reports an error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResultText {
    /// The content the model reads: always a JSON object.
    pub content: String,
    /// True when the call did not achieve its purpose (the session was cancelled).
    pub is_error: bool,
}

/// Renders the tool result the model receives for `request` resolved with `outcome`.
///
/// Answered, as Claude Code's AskUserQuestion returns it plus `outcome`:
/// `{"outcome":"answered","questions":[…as asked…],"answers":{"<question text>":"Label" |
/// "A, B" | "<other text>"},"annotations":{"<question text>":{"notes":…,"preview":…}}}` —
/// answers keyed by the full question text, multi-select labels comma-joined, and an
/// annotation for each question the person commented on or whose chosen option has a preview
/// (`annotations` is left out when there is none). Other outcomes carry `outcome`, the
/// questions and one sentence saying what happened and what to do.
pub fn render_tool_result(request: &QuestionRequest, outcome: &Outcome) -> ToolResultText {
    // Serialising plain data into a Value cannot fail.
    let questions = serde_json::to_value(request.items()).unwrap_or(Value::Null);
    let mut value = Map::new();
    value.insert("outcome".into(), Value::String(outcome.kind().as_str().to_owned()));
    value.insert("questions".into(), questions);
    let answered = |answers: &Answers, value: &mut Map<String, Value>| {
        let (answers, annotations) = keyed_answers(request, answers);
        value.insert("answers".into(), Value::Object(answers));
        if !annotations.is_empty() {
            value.insert("annotations".into(), Value::Object(annotations));
        }
    };
    let (message, is_error) = match outcome {
        Outcome::Answered { answers } => {
            answered(answers, &mut value);
            (None, false)
        }
        Outcome::Declined { reason } => {
            let mut message = String::from("The person chose not to answer.");
            if let Some(reason) = reason.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
                message.push_str(&format!(" Their reason: {reason}"));
            }
            message.push_str(
                " Continue without their input: make a reasonable choice and say which you made, or stop if you cannot go on without it. Do not ask the same question again.",
            );
            (Some(message), false)
        }
        Outcome::Expired { default_answer: Some(answers) } => {
            answered(answers, &mut value);
            let message = "Nobody answered before the deadline, so the default answer configured for you was used. Continue with it, and mention in your result that it was a default.";
            (Some(message.to_owned()), false)
        }
        Outcome::Expired { default_answer: None } => {
            let message = "Nobody answered before the deadline. Continue without their input: make a reasonable choice and say which you made, or stop if you cannot go on without it.";
            (Some(message.to_owned()), false)
        }
        Outcome::Cancelled { reason } => {
            let mut message = String::from("The session was cancelled while this question waited for an answer.");
            if let Some(reason) = reason.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
                message.push_str(&format!(" Reason: {reason}"));
            }
            message.push_str(" Stop working on this task.");
            (Some(message), true)
        }
    };
    if let Some(message) = message {
        value.insert("message".into(), Value::String(message));
    }
    ToolResultText { content: Value::Object(value).to_string(), is_error }
}

/// The answers and annotations keyed by full question text: an annotation holds the person's
/// comment as `notes` and the chosen option's `preview`, when there is either.
fn keyed_answers(request: &QuestionRequest, answers: &Answers) -> (Map<String, Value>, Map<String, Value>) {
    let mut by_question = Map::new();
    let mut annotations = Map::new();
    for (item, answer) in request.items().iter().zip(answers.items()) {
        let mut annotation = Map::new();
        let value = match item {
            QuestionItem::Choice(choice) => {
                let mut parts: Vec<&str> = answer.selected.iter().map(String::as_str).collect();
                parts.extend(answer.other.as_deref().map(str::trim));
                // A preview belongs to one chosen option; with several chosen none is "the" one.
                if let [only] = answer.selected.as_slice()
                    && let Some(preview) =
                        choice.options.iter().find(|o| &o.label == only).and_then(|o| o.preview.clone())
                {
                    annotation.insert("preview".into(), Value::String(preview));
                }
                Value::String(parts.join(", "))
            }
            QuestionItem::FreeForm(_) => answer.value.clone().unwrap_or(Value::Null),
        };
        by_question.insert(item.question().to_owned(), value);
        if let Some(comment) = answer.comment.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
            annotation.insert("notes".into(), Value::String(comment.to_owned()));
        }
        if !annotation.is_empty() {
            annotations.insert(item.question().to_owned(), Value::Object(annotation));
        }
    }
    (by_question, annotations)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::answer::Answer;

    fn request() -> QuestionRequest {
        QuestionRequest::parse(&json!({"questions": [
            {"question": "Which style?", "header": "Style", "options": [{"label": "Haiku", "preview": "An old pond…"}, {"label": "Sonnet"}]},
            {"question": "Which tones?", "header": "Tone", "multiSelect": true, "options": [{"label": "Warm"}, {"label": "Wry"}, {"label": "Dark"}]},
            {"question": "How many lines?", "schema": {"type": "integer"}}
        ]}))
        .unwrap()
    }

    fn rendered(outcome: &Outcome) -> Value {
        serde_json::from_str(&render_tool_result(&request(), outcome).content).unwrap()
    }

    #[test]
    fn answers_are_keyed_by_question_text_and_multi_select_is_comma_joined() {
        let answers = Answers::new(
            vec![
                Answer::select(["Haiku"]).with_comment("short please"),
                Answer {
                    selected: vec!["Warm".into(), "Dark".into()],
                    other: Some("hopeful".into()),
                    ..Answer::default()
                },
                Answer::value(json!(3)),
            ],
            &request(),
        )
        .unwrap();
        assert_eq!(
            rendered(&Outcome::Answered { answers }),
            json!({
                "outcome": "answered",
                "questions": request().to_value()["questions"],
                "answers": {"Which style?": "Haiku", "Which tones?": "Warm, Dark, hopeful", "How many lines?": 3},
                "annotations": {"Which style?": {"notes": "short please", "preview": "An old pond…"}}
            })
        );
        let plain = Answers::new(
            vec![Answer::select(["Sonnet"]), Answer::select(["Wry"]), Answer::value(json!(1))],
            &request(),
        )
        .unwrap();
        assert!(rendered(&Outcome::Answered { answers: plain }).get("annotations").is_none(), "no notes, no preview");
    }

    #[test]
    fn other_text_stands_alone_when_nothing_is_selected() {
        let answers =
            Answers::new(vec![Answer::other("Limerick"), Answer::select(["Wry"]), Answer::value(json!(5))], &request())
                .unwrap();
        assert_eq!(rendered(&Outcome::Answered { answers })["answers"]["Which style?"], json!("Limerick"));
    }

    #[test]
    fn other_outcomes_carry_one_sentence_and_never_an_empty_answer() {
        for outcome in [
            Outcome::Declined { reason: Some("not my call".into()) },
            Outcome::Expired { default_answer: None },
            Outcome::Cancelled { reason: None },
        ] {
            let value = rendered(&outcome);
            assert_eq!(value["outcome"], json!(outcome.kind().as_str()));
            assert!(value.get("answers").is_none(), "{value}");
            let message = value["message"].as_str().unwrap();
            assert!(message.len() > 40, "{message}");
        }
        assert!(
            rendered(&Outcome::Declined { reason: Some("not my call".into()) })["message"]
                .as_str()
                .unwrap()
                .contains("not my call")
        );
        assert!(render_tool_result(&request(), &Outcome::Cancelled { reason: None }).is_error);
        assert!(!render_tool_result(&request(), &Outcome::Declined { reason: None }).is_error);
    }

    #[test]
    fn an_expiry_with_a_default_answer_says_so() {
        let default = Answers::new(
            vec![Answer::select(["Sonnet"]), Answer::select(["Warm"]), Answer::value(json!(14))],
            &request(),
        )
        .unwrap();
        let value = rendered(&Outcome::Expired { default_answer: Some(default) });
        assert_eq!(value["answers"]["Which style?"], json!("Sonnet"));
        assert!(value["message"].as_str().unwrap().contains("default"));
    }

    #[test]
    fn outcomes_serialize_with_their_kind() {
        let outcome = Outcome::Declined { reason: None };
        assert_eq!(serde_json::to_value(&outcome).unwrap(), json!({"outcome": "declined"}));
        let back: Outcome =
            serde_json::from_value(json!({"outcome": "answered", "answers": [{"selected": ["A"]}]})).unwrap();
        assert_eq!(back.kind(), OutcomeKind::Answered);
        assert_eq!(OutcomeKind::parse("expired"), Some(OutcomeKind::Expired));
        assert_eq!(OutcomeKind::parse("pending"), None);
    }
}
