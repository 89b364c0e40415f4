//! Generators for property tests: valid requests and valid answers to them.

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::answer::{Answer, Answers};
use crate::question::{FieldKind, QuestionItem, QuestionRequest};

/// Printable text (no control or format characters), starting with a visible character.
fn text(max: usize) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!("[a-zA-Zé中][^\\p{{C}}]{{0,{max}}}")).expect("valid regex")
}

fn option_value(index: usize) -> impl Strategy<Value = Value> {
    // A digit prefix keeps labels unique even after trimming.
    (text(20), proptest::option::of(text(80))).prop_map(move |(label, description)| match description {
        Some(description) => json!({"label": format!("{index}{label}"), "description": description}),
        None => json!({"label": format!("{index}{label}")}),
    })
}

fn choice_item() -> impl Strategy<Value = Value> {
    (2usize..=4, any::<bool>())
        .prop_flat_map(|(count, multi)| {
            let options: Vec<_> = (0..count).map(option_value).collect();
            (options, Just(multi))
        })
        .prop_map(|(options, multi)| json!({"options": options, "multiSelect": multi}))
}

fn schema() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u64..3, 3u64..40).prop_map(|(min, max)| json!({"type": "string", "minLength": min, "maxLength": max})),
        Just(json!({"type": "string", "pattern": "^[a-z]+[0-9]*$"})),
        prop::sample::select(vec!["email", "uri", "date", "date-time"])
            .prop_map(|f| json!({"type": "string", "format": f})),
        (-1000i64..1000, 0i64..1000)
            .prop_map(|(min, span)| json!({"type": "integer", "minimum": min, "maximum": min + span})),
        (-50.0f64..50.0, 0.0f64..100.0)
            .prop_map(|(min, span)| json!({"type": "number", "minimum": min, "maximum": min + span})),
        Just(json!({"type": "boolean", "title": "Yes or no"})),
        (1usize..6, any::<bool>()).prop_map(|(n, titled)| {
            let values: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
            if titled {
                let titles: Vec<String> = (0..n).map(|i| format!("Value {i}")).collect();
                json!({"type": "string", "enum": values, "enumNames": titles})
            } else {
                json!({"type": "string", "enum": values})
            }
        }),
    ]
}

fn free_form_item() -> impl Strategy<Value = Value> {
    schema().prop_map(|schema| json!({"schema": schema}))
}

/// Any valid question request.
pub(crate) fn request() -> impl Strategy<Value = QuestionRequest> {
    let item = (
        prop_oneof![3 => choice_item(), 1 => free_form_item()],
        text(120),
        proptest::option::of(proptest::string::string_regex("[A-Za-zé][^\\p{C}]{0,11}").expect("valid regex")),
    );
    prop::collection::vec(item, 1..=4).prop_map(|items| {
        let questions: Vec<Value> = items
            .into_iter()
            .enumerate()
            .map(|(i, (mut item, question, header))| {
                item["question"] = json!(format!("Q{i}: {question}"));
                if let Some(header) = header {
                    item["header"] = json!(header);
                }
                item
            })
            .collect();
        let value = json!({"questions": questions});
        QuestionRequest::parse(&value)
            .unwrap_or_else(|problems| panic!("generated an invalid request {value}: {problems}"))
    })
}

fn free_form_value(kind: &FieldKind) -> BoxedStrategy<Value> {
    match kind {
        FieldKind::String { min_length, max_length, pattern, format } => {
            if pattern.is_some() {
                return proptest::string::string_regex("[a-z]{1,8}[0-9]{0,3}")
                    .expect("valid regex")
                    .prop_map(Value::from)
                    .boxed();
            }
            match format.map(|f| f.as_str()) {
                Some("email") => "[a-z]{1,10}".prop_map(|u| json!(format!("{u}@example.com"))).boxed(),
                Some("uri") => "[a-z]{1,10}".prop_map(|p| json!(format!("https://example.com/{p}"))).boxed(),
                Some("date") => (1u32..=28, 1u32..=12).prop_map(|(d, m)| json!(format!("2026-{m:02}-{d:02}"))).boxed(),
                Some(_) => (0u32..24).prop_map(|h| json!(format!("2026-11-22T{h:02}:30:00Z"))).boxed(),
                None => {
                    let min = min_length.unwrap_or(1).max(1);
                    let max = max_length.unwrap_or(40).max(min);
                    proptest::string::string_regex(&format!("[a-zA-Z][^\\p{{C}}]{{{},{}}}", min - 1, max - 1))
                        .expect("valid regex")
                        .prop_filter("not blank", |s| !s.trim().is_empty())
                        .prop_map(Value::from)
                        .boxed()
                }
            }
        }
        FieldKind::Number { integer: true, minimum, maximum } => {
            let (min, max) = (minimum.unwrap_or(-100.0) as i64, maximum.unwrap_or(100.0) as i64);
            (min..=max).prop_map(Value::from).boxed()
        }
        FieldKind::Number { integer: false, minimum, maximum } => {
            let (min, max) = (minimum.unwrap_or(-100.0), maximum.unwrap_or(100.0));
            (min..=max).prop_map(Value::from).boxed()
        }
        FieldKind::Boolean => any::<bool>().prop_map(Value::from).boxed(),
        FieldKind::Enum { values, .. } => prop::sample::select(values.clone()).prop_map(Value::from).boxed(),
    }
}

fn answer(item: &QuestionItem) -> BoxedStrategy<Answer> {
    let comment = proptest::option::of(text(60));
    match item {
        QuestionItem::Choice(question) => {
            let labels: Vec<String> = question.options.iter().map(|o| o.label.clone()).collect();
            let picked = if question.multi_select {
                let count = labels.len();
                (prop::sample::subsequence(labels, 0..=count), proptest::option::of(text(40)))
                    .prop_filter("something chosen", |(selected, other)| !selected.is_empty() || other.is_some())
                    .boxed()
            } else {
                prop_oneof![
                    prop::sample::select(labels).prop_map(|label| (vec![label], None)),
                    text(40).prop_map(|other| (vec![], Some(other))),
                ]
                .boxed()
            };
            (picked, comment)
                .prop_map(|((selected, other), comment)| Answer { selected, other, value: None, comment })
                .boxed()
        }
        QuestionItem::FreeForm(question) => (free_form_value(&question.schema.kind), comment)
            .prop_map(|(value, comment)| Answer { value: Some(value), comment, ..Answer::default() })
            .boxed(),
    }
}

/// A request with valid answers to it, as built (callers check they validate).
pub(crate) fn request_with_answers() -> impl Strategy<Value = (QuestionRequest, Answers)> {
    request().prop_flat_map(|request| {
        let answers: Vec<BoxedStrategy<Answer>> = request.items().iter().map(answer).collect();
        (Just(request), answers.prop_map(Answers::unchecked))
    })
}
