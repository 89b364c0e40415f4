//! A person's answers, checked against the question they answer, as the runtime's
//! `answer_json` and `answer_texts` do. The input is `<request JSON> NUL <answers>`: when the
//! part before the first NUL is a valid request it is the question, else a fixed four-item
//! request (single choice, multi-select, bounded integer, patterned text) is; the rest is read
//! as JSON answers through `Answers::parse`, and as text through `Answers::from_text` and
//! `Answers::from_texts` (one line per question).
//!
//! Invariants: accepted answers are one per question, validate again, read back unchanged from
//! their own JSON (through `parse` and serde, alone and inside an outcome), and render as a
//! tool result keyed by every question text; a refusal lists at least one problem, each with a
//! message and a path under `answers`.

#![no_main]

use std::sync::LazyLock;

use beckon_core::answer::Answers;
use beckon_core::outcome::{Outcome, render_tool_result};
use beckon_core::question::QuestionRequest;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

static FIXED: LazyLock<QuestionRequest> = LazyLock::new(|| {
    QuestionRequest::parse(&json!({"questions": [
        {"question": "Which database?", "header": "Database", "options": [
            {"label": "Postgres", "description": "A server"}, {"label": "SQLite"}]},
        {"question": "Which features?", "multiSelect": true, "options": [
            {"label": "Auth"}, {"label": "Search"}, {"label": "A, B"}, {"label": "Billing"}]},
        {"question": "How many replicas?", "schema": {"type": "integer", "minimum": 1, "maximum": 5}},
        {"question": "Release name?", "schema": {"type": "string", "minLength": 2, "maxLength": 20, "pattern": "^[a-z][a-z0-9-]*$"}}
    ]}))
    .expect("the fixed request is valid")
});

fuzz_target!(|bytes: &[u8]| {
    let (request, given) = match bytes.iter().position(|&b| b == 0) {
        Some(nul) => match QuestionRequest::parse_str(&String::from_utf8_lossy(&bytes[..nul])) {
            Ok(request) => (request, &bytes[nul + 1..]),
            Err(_) => (FIXED.clone(), &bytes[nul + 1..]),
        },
        None => (FIXED.clone(), bytes),
    };
    if let Ok(value) = serde_json::from_slice::<Value>(given) {
        match Answers::parse(&value, &request) {
            Ok(answers) => check_accepted(&answers, &request),
            Err(problems) => {
                assert!(!problems.is_empty(), "refused without a problem");
                for problem in &problems {
                    assert!(!problem.message.is_empty(), "a problem at {:?} without a message", problem.path);
                    assert!(problem.path.starts_with("answers"), "a problem at {:?}", problem.path);
                }
            }
        }
    }
    if let Ok(text) = std::str::from_utf8(given) {
        if let Some(answers) = Answers::from_text(&request, text) {
            check_accepted(&answers, &request);
        }
        let texts: Vec<String> = text.lines().map(str::to_owned).collect();
        match Answers::from_texts(&request, &texts) {
            Ok(answers) => check_accepted(&answers, &request),
            Err(problems) => assert!(!problems.is_empty(), "texts refused without a problem"),
        }
    }
});

fn check_accepted(answers: &Answers, request: &QuestionRequest) {
    assert_eq!(answers.items().len(), request.items().len(), "not one answer per question");
    assert_eq!(answers.validate(request), Ok(()), "accepted answers do not validate");

    let value = serde_json::to_value(answers).expect("answers serialise");
    assert_eq!(Answers::parse(&value, request).as_ref(), Ok(answers), "answers do not read back from {value}");
    let back: Answers = serde_json::from_value(value).expect("answers deserialise");
    assert_eq!(&back, answers, "serde does not round-trip");

    let outcome = Outcome::Answered { answers: answers.clone() };
    let stored = serde_json::to_string(&outcome).expect("an outcome serialises");
    let restored: Outcome = serde_json::from_str(&stored).expect("an outcome deserialises");
    assert_eq!(restored, outcome, "an answered outcome does not round-trip");

    for outcome in [outcome, Outcome::Expired { default_answer: Some(answers.clone()) }] {
        let result = render_tool_result(request, &outcome);
        assert!(!result.is_error);
        let rendered: Value = serde_json::from_str(&result.content).expect("a tool result is JSON");
        assert_eq!(rendered["outcome"], json!(outcome.kind().as_str()));
        let by_question = rendered["answers"].as_object().expect("answers are an object");
        assert_eq!(by_question.len(), request.items().len(), "not keyed one per question: {rendered}");
        for item in request.items() {
            let value = &by_question[item.question()];
            assert!(!value.is_null(), "no answer for {:?}: {rendered}", item.question());
        }
    }
}
