//! Checking answers against the request they answer, and what they allow.

use crate::answer::{Answer, Answers, count_problem};
use crate::approval::Approval;
use crate::limits::{ANSWER_MAX_BYTES, COMMENT_MAX_BYTES, OTHER_MAX_BYTES};
use crate::problem::{Problems, index, join};
use crate::question::{ChoiceQuestion, FreeFormQuestion, QuestionItem, QuestionRequest};
use crate::text::{self, Lines};

impl QuestionRequest {
    /// Whether `answers` may come only from the person: they allow the tool call, or they
    /// answer a question asked of the person.
    pub fn needs_the_person(&self, answers: &Answers) -> bool {
        self.asked_of_the_person() || self.allows(answers)
    }

    /// Whether `answers` let this approval's tool call run ("Allow" or "Allow always").
    pub fn allows(&self, answers: &Answers) -> bool {
        self.approval().is_some() && answers.items().iter().any(Approval::grants)
    }
}

impl Answers {
    /// Checks these answers against `request`, reporting every problem at its path.
    pub fn validate(&self, request: &QuestionRequest) -> Result<(), Problems> {
        if self.0.len() != request.items().len() {
            return Err(count_problem(self.0.len(), request));
        }
        let size = serde_json::to_string(self).map(|json| json.len()).unwrap_or(usize::MAX);
        if size > ANSWER_MAX_BYTES {
            return Err(Problems::one(
                "answers",
                format!("are {size} bytes as JSON; the limit is {ANSWER_MAX_BYTES} bytes, so shorten the texts"),
            ));
        }
        let mut problems = Problems::new();
        for (i, (answer, item)) in self.0.iter().zip(request.items()).enumerate() {
            let path = index("answers", i);
            match (item, request.approval()) {
                (QuestionItem::Choice(_), Some(approval)) => approval.check_answer(answer, &path, &mut problems),
                (QuestionItem::Choice(question), None) => check_choice(answer, question, &path, &mut problems),
                (QuestionItem::FreeForm(question), _) => check_free_form(answer, question, &path, &mut problems),
            }
            if let Some(comment) = &answer.comment {
                text::check_size_and_characters(
                    &join(&path, "comment"),
                    comment,
                    Lines::Multi,
                    COMMENT_MAX_BYTES,
                    &mut problems,
                );
            }
        }
        problems.into_result(())
    }
}

fn check_choice(answer: &Answer, question: &ChoiceQuestion, path: &str, problems: &mut Problems) {
    if answer.value.is_some() {
        problems.push(join(path, "value"), "is for free-form questions; choose from selected or write other");
    }
    let selected_path = join(path, "selected");
    for (i, label) in answer.selected.iter().enumerate() {
        if !question.options.iter().any(|option| &option.label == label) {
            let labels: Vec<&str> = question.options.iter().map(|o| o.label.as_str()).collect();
            problems.push(
                index(&selected_path, i),
                format!(
                    "{} is not an option; choose from {} or write it as other",
                    text::quote(label, 60),
                    labels.join(", ")
                ),
            );
        } else if answer.selected[..i].contains(label) {
            problems.push(index(&selected_path, i), format!("{} is chosen twice", text::quote(label, 60)));
        }
    }
    if let Some(other) = &answer.other {
        text::check(&join(path, "other"), other, Lines::Multi, OTHER_MAX_BYTES, problems);
    }
    let chosen = answer.selected.len() + usize::from(answer.other.is_some());
    if chosen == 0 {
        let what = if question.multi_select { "at least one option" } else { "one option" };
        problems.push(path, format!("choose {what} or write an \"Other\" answer"));
    } else if chosen > 1 && !question.multi_select {
        problems.push(
            path,
            "choose exactly one option or write an \"Other\" answer, not both: this question is single-select",
        );
    }
}

fn check_free_form(answer: &Answer, question: &FreeFormQuestion, path: &str, problems: &mut Problems) {
    if !answer.selected.is_empty() {
        problems.push(join(path, "selected"), "is for questions with options; give value instead");
    }
    if answer.other.is_some() {
        problems.push(join(path, "other"), "is for questions with options; give value instead");
    }
    match &answer.value {
        Some(value) => question.schema.check_value(value, &join(path, "value"), problems),
        None => problems.push(join(path, "value"), "is required"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn request() -> QuestionRequest {
        QuestionRequest::parse(&json!({"questions": [
            {"question": "Which database?", "header": "Database", "options": [{"label": "Postgres"}, {"label": "SQLite"}]},
            {"question": "Which features?", "header": "Features", "multiSelect": true, "options": [{"label": "Auth"}, {"label": "Search"}, {"label": "Billing"}]},
            {"question": "How many replicas?", "header": "Replicas", "schema": {"type": "integer", "minimum": 1, "maximum": 5}}
        ]}))
        .unwrap()
    }

    fn problems(value: Value) -> Vec<String> {
        match Answers::parse(&value, &request()) {
            Ok(_) => Vec::new(),
            Err(problems) => problems.iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn a_full_valid_answer() {
        let answers = Answers::parse(
            &json!([
                {"selected": ["SQLite"], "comment": "embedded is enough"},
                {"selected": ["Auth", "Billing"], "other": "Audit log"},
                {"value": 3}
            ]),
            &request(),
        )
        .unwrap();
        assert_eq!(answers.items()[1].selected, vec!["Auth", "Billing"]);
    }

    #[test]
    fn one_answer_per_question() {
        assert_eq!(
            problems(json!([{"selected": ["SQLite"]}])),
            vec!["answers: has 1 answers for 3 questions; give exactly one answer per question, in order"]
        );
        assert_eq!(
            problems(json!({"selected": ["SQLite"]})),
            vec![
                "answers: must be an array with one answer per question, or an object keyed by question text; this is one answer, so put it in an array: [{...}]"
            ]
        );
    }

    #[test]
    fn single_select_takes_exactly_one() {
        assert_eq!(
            problems(json!([{"selected": ["Postgres", "SQLite"]}, {"selected": ["Auth"]}, {"value": 1}])),
            vec![
                "answers[0]: choose exactly one option or write an \"Other\" answer, not both: this question is single-select"
            ]
        );
        assert_eq!(
            problems(json!([{"selected": ["Postgres"], "other": "Both"}, {"selected": ["Auth"]}, {"value": 1}])).len(),
            1
        );
        assert_eq!(
            problems(json!([{}, {"selected": ["Auth"]}, {"value": 1}])),
            vec!["answers[0]: choose one option or write an \"Other\" answer"]
        );
    }

    #[test]
    fn multi_select_takes_at_least_one() {
        assert_eq!(
            problems(json!([{"other": "DuckDB"}, {"selected": []}, {"value": 1}])),
            vec!["answers[1]: choose at least one option or write an \"Other\" answer"]
        );
        assert_eq!(
            problems(json!([{"other": "DuckDB"}, {"selected": ["Auth", "Auth"]}, {"value": 1}])),
            vec!["answers[1].selected[1]: \"Auth\" is chosen twice"]
        );
    }

    #[test]
    fn labels_must_be_options() {
        assert_eq!(
            problems(json!([{"selected": ["MySQL"]}, {"selected": ["Auth"]}, {"value": 1}])),
            vec![
                "answers[0].selected[0]: \"MySQL\" is not an option; choose from Postgres, SQLite or write it as other"
            ]
        );
        assert_eq!(
            problems(json!([{"selected": ["postgres"]}, {"selected": ["Auth"]}, {"value": 1}])).len(),
            1,
            "labels match exactly"
        );
    }

    #[test]
    fn other_and_comment_are_checked_texts() {
        assert_eq!(
            problems(json!([{"other": "  "}, {"selected": ["Auth"], "comment": "x\u{1b}"}, {"value": 1}])),
            vec![
                "answers[0].other: must not be empty or only whitespace",
                "answers[1].comment: contains the control character U+001B; only newlines and tabs are allowed",
            ]
        );
        let long = "o".repeat(OTHER_MAX_BYTES + 1);
        assert_eq!(problems(json!([{"other": long}, {"selected": ["Auth"]}, {"value": 1}])).len(), 1);
        assert!(problems(json!([{"other": "x", "comment": ""}, {"selected": ["Auth"]}, {"value": 1}])).is_empty());
    }

    #[test]
    fn free_form_values_follow_their_schema() {
        assert_eq!(
            problems(json!([{"selected": ["SQLite"]}, {"selected": ["Auth"]}, {"value": 9}])),
            vec!["answers[2].value: must be at most 5 (it is 9)"]
        );
        assert_eq!(
            problems(json!([{"selected": ["SQLite"]}, {"selected": ["Auth"]}, {"other": "three"}])),
            vec![
                "answers[2].other: is for questions with options; give value instead",
                "answers[2].value: is required"
            ]
        );
        assert_eq!(
            problems(json!([{"selected": ["SQLite"], "value": 2}, {"selected": ["Auth"]}, {"value": 2}])),
            vec!["answers[0].value: is for free-form questions; choose from selected or write other"]
        );
    }

    #[test]
    fn structural_problems_name_their_paths() {
        assert_eq!(
            problems(json!([{"selected": "SQLite"}, {"selected": [1]}, {"value": 1, "extra": true}])),
            vec![
                "answers[0].selected: must be an array, not a string",
                "answers[1].selected[0]: must be an option label (a string), not a number",
                "answers[2].extra: unknown field; remove it (allowed here: selected, other, value, comment)",
            ]
        );
    }

    #[test]
    fn the_whole_answer_is_bounded() {
        let big = "c".repeat(COMMENT_MAX_BYTES);
        let request = QuestionRequest::parse(&json!({"questions": (0..4).map(|i| json!({"question": format!("Q{i}?"), "schema": {"type": "string"}})).collect::<Vec<_>>()})).unwrap();
        let answers: Vec<Value> = (0..4).map(|_| json!({"value": "v".repeat(4500), "comment": big})).collect();
        let err = Answers::parse(&Value::Array(answers), &request).unwrap_err();
        assert!(err.to_string().starts_with("answers: are "), "{err}");
        assert!(err.to_string().contains("the limit is 32768 bytes"), "{err}");
    }

    #[test]
    fn plain_strings_are_shorthand() {
        let answers = Answers::parse(&json!(["SQLite", "Auth, Search", "2"]), &request()).unwrap();
        assert_eq!(answers.items()[0], Answer::select(["SQLite"]));
        assert_eq!(answers.items()[1], Answer::select(["Auth", "Search"]));
        assert_eq!(answers.items()[2], Answer::value(json!(2)));
    }
}
