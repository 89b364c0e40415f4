//! Properties of requests, answers and rendered results.

use proptest::prelude::*;
use serde_json::Value;

use crate::outcome::{Outcome, render_tool_result};
use crate::question::{QuestionItem, QuestionRequest};
use crate::testing;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn valid_requests_round_trip_through_serde_unchanged(request in testing::request()) {
        let json = serde_json::to_string(&request).unwrap();
        let back: QuestionRequest = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &request);
        prop_assert_eq!(QuestionRequest::parse(&request.to_value()).unwrap(), request);
    }

    #[test]
    fn generated_answers_validate_and_render_as_json((request, answers) in testing::request_with_answers()) {
        prop_assert_eq!(answers.validate(&request), Ok(()));
        let json = serde_json::to_string(&answers).unwrap();
        prop_assert_eq!(serde_json::from_str::<crate::Answers>(&json).unwrap(), answers.clone());

        let rendered = render_tool_result(&request, &Outcome::Answered { answers: answers.clone() });
        let value: Value = serde_json::from_str(&rendered.content).unwrap();
        prop_assert_eq!(&value["outcome"], "answered");
        let keyed = value["answers"].as_object().unwrap();
        prop_assert_eq!(keyed.len(), request.items().len());
        for item in request.items() {
            let answer = &keyed[item.question()];
            match item {
                QuestionItem::Choice(_) => prop_assert!(!answer.as_str().unwrap().trim().is_empty(), "never an empty answer"),
                QuestionItem::FreeForm(_) => prop_assert!(!answer.is_null()),
            }
        }
    }

    #[test]
    fn every_outcome_renders_as_a_json_object_naming_it(request in testing::request(), reason in proptest::option::of(".{0,300}")) {
        for outcome in [
            Outcome::Declined { reason: reason.clone() },
            Outcome::Expired { default_answer: None },
            Outcome::Cancelled { reason: reason.clone() },
        ] {
            let rendered = render_tool_result(&request, &outcome);
            let value: Value = serde_json::from_str(&rendered.content).unwrap();
            prop_assert_eq!(value["outcome"].as_str().unwrap(), outcome.kind().as_str());
            prop_assert!(value["message"].as_str().is_some_and(|m| !m.is_empty()));
        }
    }

    #[test]
    fn parsing_arbitrary_json_never_panics(value in arbitrary_json()) {
        let _ = QuestionRequest::parse(&value);
    }
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".{0,20}".prop_map(Value::from),
        prop::sample::select(vec![
            "questions",
            "question",
            "options",
            "label",
            "header",
            "schema",
            "type",
            "string",
            "enum"
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "questions",
                    "question",
                    "options",
                    "label",
                    "description",
                    "header",
                    "multiSelect",
                    "schema",
                    "type",
                    "enum",
                    "minimum",
                    "x"
                ])
                .prop_map(String::from),
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
