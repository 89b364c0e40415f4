//! What a person answers: one [`Answer`] per question of a request, checked against it.

mod from_text;
mod given;
mod validate;

pub use given::GivenAnswers;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::json_reader::{object, type_name};
use crate::problem::{Problems, index};
use crate::question::{QuestionItem, QuestionRequest};

/// The answer to one question.
///
/// A choice question takes `selected` labels (exactly one when single-select, one or more when
/// multi-select) and/or an `other` free text; a free-form question takes a `value` that fits
/// its schema. Either may carry a `comment`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    /// Chosen option labels, in the order chosen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selected: Vec<String>,
    /// An "Other" answer written by the person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other: Option<String>,
    /// The value of a free-form answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// Anything the person wants to add.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

impl Answer {
    /// Picks one or more options.
    pub fn select<I: IntoIterator<Item = S>, S: Into<String>>(labels: I) -> Self {
        Self { selected: labels.into_iter().map(Into::into).collect(), ..Self::default() }
    }

    /// An "Other" free-text answer.
    pub fn other(text: impl Into<String>) -> Self {
        Self { other: Some(text.into()), ..Self::default() }
    }

    /// A free-form value.
    pub fn value(value: Value) -> Self {
        Self { value: Some(value), ..Self::default() }
    }

    /// Adds a comment.
    pub fn with_comment(mut self, comment: impl Into<String>) -> Self {
        self.comment = Some(comment.into());
        self
    }
}

/// The answers to a whole request, one per question, in the request's order.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Answers(Vec<Answer>);

const ANSWER_FIELDS: [&str; 4] = ["selected", "other", "value", "comment"];

impl Answers {
    /// Answers checked against `request`.
    pub fn new(answers: Vec<Answer>, request: &QuestionRequest) -> Result<Self, Problems> {
        let answers = Self(answers);
        answers.validate(request).map(|()| answers)
    }

    /// Answers that have not been checked yet; call [`validate`](Self::validate) before use.
    pub fn unchecked(answers: Vec<Answer>) -> Self {
        Self(answers)
    }

    /// The answers, one per question.
    pub fn items(&self) -> &[Answer] {
        &self.0
    }

    /// Reads answers given as JSON (an array, one entry per question) and checks them against
    /// `request`, reporting every problem at its path (`answers[1].selected[0]`). An entry may
    /// also be a plain string, read as by [`Answer::from_text`]. The answers may instead be an
    /// object keyed by question text, as Claude Code writes them:
    /// `{"<question>": "<label, labels comma-joined, or text>"}` (a value may also be an answer
    /// object, or a number or boolean for a free-form question).
    pub fn parse(value: &Value, request: &QuestionRequest) -> Result<Self, Problems> {
        if let Value::Object(by_question) = value {
            return Self::parse(&in_question_order(by_question, request)?, request);
        }
        let mut problems = Problems::new();
        let Some(entries) = value.as_array() else {
            return Err(Problems::one(
                "answers",
                format!(
                    "must be an array with one answer per question, or an object keyed by question text, not {}",
                    type_name(value)
                ),
            ));
        };
        // The count first: an extra entry would otherwise be read as an answer to no question
        // and reported for its shape, hiding what is really wrong.
        if entries.len() != request.items().len() {
            return Err(count_problem(entries.len(), request));
        }
        let mut answers = Vec::with_capacity(entries.len());
        for (i, entry) in entries.iter().enumerate() {
            let path = index("answers", i);
            if let (Value::String(text), Some(item)) = (entry, request.items().get(i)) {
                answers.push(Answer::from_text(item, text));
                continue;
            }
            let Some(fields) = object(entry, &path, &ANSWER_FIELDS, &mut problems) else { continue };
            let selected = match fields.array("selected", &mut problems) {
                None => Vec::new(),
                Some(labels) => labels
                    .iter()
                    .enumerate()
                    .filter_map(|(j, label)| {
                        let text = label.as_str();
                        if text.is_none() {
                            problems.push(
                                index(&fields.path("selected"), j),
                                format!("must be an option label (a string), not {}", type_name(label)),
                            );
                        }
                        text.map(|text| canonical_label(request.items().get(i), text))
                    })
                    .collect(),
            };
            answers.push(Answer {
                selected,
                other: fields.string("other", &mut problems).map(str::to_owned),
                value: fields.get("value").cloned(),
                comment: fields.string("comment", &mut problems).map(str::to_owned),
            });
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let answers = Self(answers);
        answers.validate(request).map(|()| answers)
    }
}

/// The problem with `given` answers to `request`, when they are not one per question.
fn count_problem(given: usize, request: &QuestionRequest) -> Problems {
    let expected = request.items().len();
    Problems::one(
        "answers",
        format!("has {given} answers for {expected} questions; give exactly one answer per question, in order"),
    )
}

/// Answers keyed by question text, as the array [`Answers::parse`] reads: one entry per
/// question in the order asked. A key that names no question, and a question with no key, are
/// refused; keys match question texts without the spaces around them.
fn in_question_order(
    by_question: &serde_json::Map<String, Value>,
    request: &QuestionRequest,
) -> Result<Value, Problems> {
    let names_a_question = |key: &String| request.items().iter().any(|item| item.question().trim() == key.trim());
    if !by_question.keys().any(names_a_question) && by_question.keys().all(|key| ANSWER_FIELDS.contains(&key.as_str()))
    {
        return Err(Problems::one(
            "answers",
            "must be an array with one answer per question, or an object keyed by question text; this is one answer, so put it in an array: [{...}]",
        ));
    }
    let mut problems = Problems::new();
    let path = |key: &str| format!("answers.{}", crate::text::quote(key, 60));
    for key in by_question.keys() {
        if !names_a_question(key) {
            problems.push(path(key), "names no question of this request; answers are keyed by the full question text");
        }
    }
    let mut entries = Vec::with_capacity(request.items().len());
    for item in request.items() {
        match by_question.iter().find(|(key, _)| key.trim() == item.question().trim()) {
            None => problems.push(path(item.question()), "is missing: every question needs an answer"),
            Some((_, answer @ (Value::String(_) | Value::Object(_)))) => entries.push(answer.clone()),
            Some((_, value)) => entries.push(serde_json::json!({ "value": value })),
        }
    }
    problems.into_result(Value::Array(entries))
}

/// The label of `item`'s option that `text` names (see [`crate::question::ChoiceQuestion::label_named`]), or
/// `text` itself when it names none (validation then says so).
fn canonical_label(item: Option<&QuestionItem>, text: &str) -> String {
    match item {
        Some(QuestionItem::Choice(question)) => question.label_named(text).unwrap_or(text).to_owned(),
        _ => text.to_owned(),
    }
}
