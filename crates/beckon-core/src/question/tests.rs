//! Every validation rule of a question request, each shown refusing what it should.

use serde_json::{Value, json};

use super::*;
use crate::limits::REQUEST_MAX_BYTES;

fn problems(value: Value) -> Vec<String> {
    match QuestionRequest::parse(&value) {
        Ok(_) => Vec::new(),
        Err(problems) => problems.iter().map(ToString::to_string).collect(),
    }
}

fn choice(question: &str, labels: &[&str]) -> Value {
    let options: Vec<Value> = labels.iter().map(|l| json!({"label": l})).collect();
    json!({"question": question, "header": "Pick", "options": options})
}

#[test]
fn a_minimal_claude_code_request_is_accepted() {
    let request = QuestionRequest::parse(&json!({"questions": [choice("Which one?", &["A", "B"])]})).unwrap();
    let QuestionItem::Choice(item) = &request.items()[0] else { panic!("expected a choice") };
    assert_eq!(item.question, "Which one?");
    assert!(!item.multi_select, "multiSelect defaults to false");
    assert_eq!(item.options[1].label, "B");
}

#[test]
fn question_count_must_be_one_to_four() {
    assert_eq!(
        problems(json!({"questions": []})),
        vec!["questions: has 0 questions; ask 1 to 4 in one call (ask the rest in a later call)"]
    );
    let five: Vec<Value> = (0..5).map(|i| choice(&format!("Q{i}?"), &["A", "B"])).collect();
    assert_eq!(
        problems(json!({"questions": five})),
        vec!["questions: has 5 questions; ask 1 to 4 in one call (ask the rest in a later call)"]
    );
}

#[test]
fn option_count_must_be_two_to_four() {
    assert_eq!(
        problems(json!({"questions": [choice("Q?", &["A"])]})),
        vec![
            "questions[0].options: has 1 options; give 2 to 4 (an \"Other\" free-text answer is always offered as well)"
        ]
    );
    assert_eq!(problems(json!({"questions": [choice("Q?", &["A", "B", "C", "D", "E"])]})).len(), 1);
}

#[test]
fn empty_texts_are_refused_with_their_paths() {
    let value = json!({"questions": [
        choice("Fine?", &["A", "B"]),
        {"question": " ", "header": "H", "options": [{"label": ""}, {"label": "B"}]}
    ]});
    assert_eq!(
        problems(value),
        vec![
            "questions[1].question: must not be empty or only whitespace",
            "questions[1].options[0].label: must not be empty or only whitespace",
        ]
    );
}

#[test]
fn duplicate_questions_and_labels_are_refused() {
    let value = json!({"questions": [choice("Same?", &["A", "B"]), choice("Same?", &["X", "X"])]});
    assert_eq!(
        problems(value),
        vec![
            "questions[1].options[1].label: \"X\" repeats options[0].label; labels must be unique within a question",
            "questions[1].question: repeats questions[0].question; every question text must be unique because answers are keyed by it",
        ]
    );
}

#[test]
fn header_is_at_most_twelve_characters() {
    let mut item = choice("Q?", &["A", "B"]);
    item["header"] = json!("Authentication");
    assert_eq!(
        problems(json!({"questions": [item.clone()]})),
        vec![
            "questions[0].header: is 14 characters long; the limit is 12, so use a short label such as \"Auth method\""
        ]
    );
    item["header"] = json!("Ünïcödé chip");
    assert!(problems(json!({"questions": [item.clone()]})).is_empty(), "12 characters, more bytes");
    item.as_object_mut().unwrap().remove("header");
    assert!(problems(json!({"questions": [item]})).is_empty(), "header is optional");
}

#[test]
fn text_sizes_are_bounded() {
    let long_question = "q".repeat(2049);
    let long_label = "l".repeat(201);
    let long_description = "d".repeat(1025);
    let value = json!({"questions": [{
        "question": long_question,
        "options": [{"label": long_label}, {"label": "B", "description": long_description}]
    }]});
    assert_eq!(
        problems(value),
        vec![
            "questions[0].question: is 2049 bytes long; the limit is 2048 bytes, so shorten it",
            "questions[0].options[0].label: is 201 bytes long; the limit is 200 bytes, so shorten it",
            "questions[0].options[1].description: is 1025 bytes long; the limit is 1024 bytes, so shorten it",
        ]
    );
    let at_limit = json!({"questions": [{"question": "q".repeat(2048), "options": [{"label": "l".repeat(200)}, {"label": "B", "description": "d".repeat(1024)}]}]});
    assert!(problems(at_limit).is_empty());
}

#[test]
fn the_whole_request_is_bounded() {
    let items: Vec<Value> = (0..4)
        .map(|i| {
            let options: Vec<Value> = (0..4)
                .map(|j| json!({"label": format!("L{j}"), "description": "\"".repeat(1000), "preview": "\"".repeat(8000)}))
                .collect();
            json!({"question": format!("{i}{}", "q".repeat(2000)), "options": options})
        })
        .collect();
    let value = json!({"questions": items});
    assert!(value.to_string().len() > REQUEST_MAX_BYTES);
    let found = problems(value);
    assert_eq!(found.len(), 1);
    assert!(found[0].starts_with("the request is "), "{}", found[0]);
    assert!(found[0].contains("the limit is 163840 bytes"), "{}", found[0]);
}

#[test]
fn control_characters_are_refused() {
    let value = json!({"questions": [{
        "question": "Line one\nline two\tis fine",
        "header": "Tab\there",
        "options": [{"label": "A\u{7}"}, {"label": "B", "description": "ok\r\nok"}]
    }]});
    assert_eq!(
        problems(value),
        vec![
            "questions[0].header: contains the control character U+0009; this field must be a single line without control characters",
            "questions[0].options[0].label: contains the control character U+0007; this field must be a single line without control characters",
        ]
    );
}

#[test]
fn unknown_fields_are_refused_everywhere() {
    let value = json!({
        "questions": [{"question": "Q?", "options": [{"label": "A", "value": 1}, {"label": "B"}], "multiselect": true}],
        "answer": {}
    });
    assert_eq!(
        problems(value),
        vec![
            "answer: unknown field; remove it (allowed here: questions, answers, annotations, metadata)",
            "questions[0].multiselect: unknown field; remove it (allowed here: question, header, options, multiSelect)",
            "questions[0].options[0].value: unknown field; remove it (allowed here: label, description, preview)",
        ]
    );
}

#[test]
fn wrong_types_are_named() {
    let value = json!({"questions": [{"question": 7, "options": "A,B", "multiSelect": "yes"}, "Q?"]});
    assert_eq!(
        problems(value),
        vec![
            "questions[0].question: must be a string, not a number",
            "questions[0].options: must be an array, not a string",
            "questions[0].multiSelect: must be true or false, not a string",
            "questions[1]: must be an object with question and options, not a string",
        ]
    );
    assert_eq!(problems(json!([])), vec!["must be an object, not an array"]);
    assert_eq!(problems(json!({})), vec!["questions: is required"]);
}

#[test]
fn missing_options_and_both_kinds_are_explained() {
    assert_eq!(
        problems(json!({"questions": [{"question": "Q?"}]})),
        vec!["questions[0].options: is required: give 2 to 4 options (or a schema for a free-form answer)"]
    );
    assert_eq!(
        problems(json!({"questions": [{"question": "Q?", "options": [], "schema": {"type": "string"}}]})),
        vec![
            "questions[0]: has both options and schema; give options for a choice question or a schema for a free-form answer, not both"
        ]
    );
}

#[test]
fn free_form_items_carry_a_schema() {
    let request = QuestionRequest::parse(&json!({"questions": [
        {"question": "How many replicas?", "header": "Replicas", "schema": {"type": "integer", "minimum": 1, "maximum": 9}},
        choice("Region?", &["eu", "us"]),
    ]}))
    .unwrap();
    assert!(
        matches!(&request.items()[0], QuestionItem::FreeForm(item) if item.schema.kind == FieldKind::Number { integer: true, minimum: Some(1.0), maximum: Some(9.0) })
    );
    assert_eq!(
        problems(
            json!({"questions": [{"question": "Q?", "schema": {"type": "string", "format": "phone"}, "multiSelect": true}]})
        ),
        vec![
            "questions[0].multiSelect: unknown field; remove it (allowed here: question, header, schema)",
            "questions[0].schema.format: \"phone\" is not supported; use one of email, uri, date, date-time",
        ]
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    let value = json!({"questions": [
        {"question": "", "header": "Far too long header", "options": [{"label": "A"}]},
        {"question": "Ok?", "options": [{"label": "Y"}, {"label": "Y"}], "extra": 1}
    ]});
    assert_eq!(problems(value).len(), 5);
}

#[test]
fn text_and_summary() {
    let request = QuestionRequest::parse_str(r#"{"questions":[{"question":"Should the deploy go ahead to production tonight after the migration finishes?","options":[{"label":"Yes"},{"label":"No"}]}]}"#).unwrap();
    assert_eq!(request.summary(), "Should the deploy go ahead to production…");
    let with_header = QuestionRequest::parse(&json!({"questions": [choice("Q?", &["A", "B"])]})).unwrap();
    assert_eq!(with_header.summary(), "Pick");
    let err = QuestionRequest::parse_str("{not json").unwrap_err();
    assert!(err.to_string().starts_with("is not valid JSON"), "{err}");
}

#[test]
fn tool_error_text_tells_the_agent_how_to_fix_it() {
    let err = QuestionRequest::parse(&json!({"questions": [choice("Q?", &["A"])]})).unwrap_err();
    assert_eq!(
        tool_error_text(&err),
        "ask_user_question was not sent to the person because its input is invalid. Fix these problems and call it again:\n- questions[0].options: has 1 options; give 2 to 4 (an \"Other\" free-text answer is always offered as well)"
    );
}

#[test]
fn serde_uses_the_same_checks() {
    let ok: QuestionRequest = serde_json::from_value(json!({"questions": [choice("Q?", &["A", "B"])]})).unwrap();
    assert_eq!(serde_json::to_value(&ok).unwrap()["questions"][0]["multiSelect"], json!(false));
    let err = serde_json::from_value::<QuestionRequest>(json!({"questions": []})).unwrap_err();
    assert!(err.to_string().contains("has 0 questions"), "{err}");
}

#[test]
fn new_checks_items_built_in_code() {
    let item = QuestionItem::Choice(ChoiceQuestion {
        question: "Q?".into(),
        header: None,
        options: vec![QuestionOption { label: "A".into(), description: None, preview: None }],
        multi_select: false,
    });
    assert!(QuestionRequest::new(vec![item]).is_err());
}

#[test]
fn a_question_asked_of_the_person_keeps_that_when_stored_and_only_a_hook_can_mark_it() {
    let asked = QuestionRequest::parse(&json!({"questions": [choice("Q?", &["A", "B"])]})).unwrap();
    assert!(!asked.person_only());
    let theirs = asked.clone().for_the_person();
    assert!(theirs.person_only());
    let stored = serde_json::to_value(&theirs).unwrap();
    assert_eq!(stored["person_only"], json!(true));
    let read: QuestionRequest = serde_json::from_value(stored).unwrap();
    assert_eq!(read, theirs);
    let answers = crate::Answers::from_texts(&read, &["A".to_owned()]).unwrap();
    assert!(read.needs_the_person(&answers) && !asked.needs_the_person(&answers));
    // An agent's own request cannot claim it: the field is not one a request takes.
    assert!(!problems(json!({"questions": [choice("Q?", &["A", "B"])], "person_only": true})).is_empty());
}
