//! `ask_user_question` input: any bytes, read as the JSON text an agent sends, go through
//! `QuestionRequest::parse_str` (and `parse` on the same JSON value); a request that is
//! accepted is then summarised, answered and rendered as a tool result.
//!
//! Invariants: both readers agree; a refusal lists at least one problem, each with a message,
//! and the tool error names them all; an accepted request has 1–4 questions with unique
//! texts, reads back unchanged from its own JSON (through `parse`, serde and `new`), has a
//! short non-empty summary, schema defaults that satisfy their schema, options that can be
//! chosen, and a tool result for every outcome that is a JSON object naming that outcome.

#![no_main]

use beckon_core::answer::{Answer, Answers};
use beckon_core::limits::{HEADER_MAX_CHARS, MAX_QUESTIONS, MIN_QUESTIONS};
use beckon_core::outcome::{Outcome, render_tool_result};
use beckon_core::question::{FieldKind, QuestionItem, QuestionRequest, tool_error_text};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

/// A summary is a header, or up to 40 characters of words, a space and an ellipsis.
const SUMMARY_MAX_CHARS: usize = 42;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    let parsed = QuestionRequest::parse_str(text);
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        assert_eq!(QuestionRequest::parse(&value), parsed, "parse and parse_str disagree");
    }
    match parsed {
        Ok(request) => check_accepted(&request),
        Err(problems) => {
            assert!(!problems.is_empty(), "refused without a problem");
            let message = tool_error_text(&problems);
            for problem in &problems {
                assert!(!problem.message.is_empty(), "a problem at {:?} without a message", problem.path);
                assert!(message.contains(&problem.to_string()), "the tool error leaves out {problem}");
            }
        }
    }
});

fn check_accepted(request: &QuestionRequest) {
    let items = request.items();
    assert!((MIN_QUESTIONS..=MAX_QUESTIONS).contains(&items.len()), "{} questions", items.len());
    for (i, item) in items.iter().enumerate() {
        let text = item.question().trim();
        assert!(!text.is_empty(), "question {i} is blank");
        assert!(items[..i].iter().all(|earlier| earlier.question().trim() != text), "question {i} repeats");
        if let Some(header) = item.header() {
            assert!(header.chars().count() <= HEADER_MAX_CHARS, "header {header:?}");
        }
    }

    assert_eq!(QuestionRequest::parse(&request.to_value()).as_ref(), Ok(request), "to_value does not read back");
    let json = serde_json::to_string(request).expect("a request serialises");
    let back: QuestionRequest = serde_json::from_str(&json).expect("a serialised request deserialises");
    assert_eq!(&back, request, "serde does not round-trip");
    assert_eq!(QuestionRequest::new(items.to_vec()).as_ref(), Ok(request), "new does not rebuild the request");

    let summary = request.summary();
    assert!(!summary.is_empty(), "an empty summary");
    assert!(summary.chars().count() <= SUMMARY_MAX_CHARS, "summary {summary:?}");

    for item in items {
        if let QuestionItem::FreeForm(question) = item
            && let Some(default) = &question.schema.default
        {
            let mut problems = beckon_core::Problems::new();
            question.schema.check_value(default, "default", &mut problems);
            assert!(problems.is_empty(), "the default {default} breaks its own schema: {problems}");
        }
    }

    if let [QuestionItem::Choice(question)] = items {
        for option in &question.options {
            assert!(Answers::from_text(request, &option.label).is_some(), "option {:?} cannot be chosen", option.label);
        }
    }

    let answers = canonical_answers(request);
    if let Some(answers) = &answers {
        let rendered = rendered(request, &Outcome::Answered { answers: answers.clone() }, "answered");
        let by_question = rendered["answers"].as_object().expect("answers are an object");
        assert_eq!(by_question.len(), items.len(), "answers are not keyed one per question: {rendered}");
        for item in items {
            assert!(by_question.contains_key(item.question()), "no answer keyed by {:?}", item.question());
        }
    }
    rendered(request, &Outcome::Declined { reason: Some("not now".into()) }, "declined");
    rendered(request, &Outcome::Expired { default_answer: answers }, "expired");
    rendered(request, &Outcome::Cancelled { reason: None }, "cancelled");
}

/// An answer every question can take (the first option, the schema's default or a bound),
/// checked; `None` when a free-form string question has no default to fall back on.
fn canonical_answers(request: &QuestionRequest) -> Option<Answers> {
    let mut answers = Vec::new();
    for item in request.items() {
        let answer = match item {
            QuestionItem::Choice(question) => Answer::select([question.options[0].label.clone()]),
            QuestionItem::FreeForm(question) => {
                Answer::value(match (&question.schema.default, &question.schema.kind) {
                    (Some(default), _) => default.clone(),
                    (None, FieldKind::Number { minimum, maximum, .. }) => json!(minimum.or(*maximum).unwrap_or(0.0)),
                    (None, FieldKind::Boolean) => json!(true),
                    (None, FieldKind::Enum { values, .. }) => json!(values[0]),
                    (None, FieldKind::String { .. }) => return None,
                })
            }
        };
        answers.push(answer);
    }
    match Answers::new(answers, request) {
        Ok(answers) => Some(answers),
        Err(problems) => panic!("a canonical answer was refused: {problems}"),
    }
}

/// The tool result for `outcome`, checked to be a JSON object naming the outcome.
fn rendered(request: &QuestionRequest, outcome: &Outcome, kind: &str) -> Value {
    let result = render_tool_result(request, outcome);
    let value: Value = serde_json::from_str(&result.content).expect("a tool result is JSON");
    assert!(value.is_object(), "a tool result that is not an object: {value}");
    assert_eq!(value["outcome"], json!(kind), "{value}");
    assert_eq!(result.is_error, kind == "cancelled");
    value
}
