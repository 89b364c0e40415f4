//! Reading an answer from plain text: the CLI's arguments, an agent's `default_answer`, a
//! notification button, or a plain string in an HTTP body.

use serde_json::{Value, json};

use crate::answer::{Answer, Answers, count_problem};
use crate::question::{FieldKind, QuestionItem, QuestionRequest};

impl Answer {
    /// Reads `text` as the answer to `item`.
    ///
    /// For a choice question: a label selects it; for a multi-select question a
    /// comma-separated list of labels selects each; anything else becomes the "Other" text.
    /// Labels match as the window shows them, without the spaces around them on either side
    /// (`"Yes "` selects an option labelled `Yes`, and `Yes` one an agent labelled `" Yes"`),
    /// and the option's own label is what is selected.
    /// For a free-form question the text is converted to the schema's type where it reads as
    /// one (`3`, `true`/`yes`), else kept as text, so validation can say what is wrong.
    pub fn from_text(item: &QuestionItem, text: &str) -> Answer {
        let text = text.trim();
        match item {
            QuestionItem::Choice(question) => {
                if let Some(label) = question.label_named(text) {
                    return Answer::select([label]);
                }
                if question.multi_select {
                    let labels: Option<Vec<&str>> = text.split(',').map(|part| question.label_named(part)).collect();
                    if let Some(labels) = labels.filter(|labels| labels.len() > 1) {
                        return Answer::select(labels);
                    }
                }
                Answer::other(text)
            }
            QuestionItem::FreeForm(question) => Answer::value(match &question.schema.kind {
                FieldKind::Number { .. } => number(text).unwrap_or_else(|| json!(text)),
                FieldKind::Boolean => boolean(text).map_or_else(|| json!(text), Value::Bool),
                FieldKind::String { .. } | FieldKind::Enum { .. } => json!(text),
            }),
        }
    }
}

impl Answers {
    /// The same text read as the answer to every question of `request` (an agent's
    /// `default_answer`); `None` when that does not make a valid answer.
    pub fn from_text(request: &QuestionRequest, text: &str) -> Option<Answers> {
        let answers = request.items().iter().map(|item| Answer::from_text(item, text)).collect();
        Answers::new(answers, request).ok()
    }

    /// One text per question, in order (the CLI's `beckon answer ID A B`); checked.
    pub fn from_texts(request: &QuestionRequest, texts: &[String]) -> Result<Answers, crate::Problems> {
        let answers = request.items().iter().zip(texts).map(|(item, text)| Answer::from_text(item, text)).collect();
        let answers = Answers::unchecked(answers);
        if texts.len() != request.items().len() {
            return Err(count_problem(texts.len(), request));
        }
        answers.validate(request).map(|()| answers)
    }
}

fn number(text: &str) -> Option<Value> {
    if let Ok(n) = text.parse::<i64>() {
        return Some(json!(n));
    }
    text.parse::<f64>().ok().filter(|n| n.is_finite()).map(|n| json!(n))
}

fn boolean(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "true" | "yes" | "y" | "1" | "on" => Some(true),
        "false" | "no" | "n" | "0" | "off" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> QuestionRequest {
        QuestionRequest::parse(&json!({"questions": [
            {"question": "Deploy?", "options": [{"label": "Yes"}, {"label": "No"}]},
            {"question": "Which?", "multiSelect": true, "options": [{"label": "A"}, {"label": "B"}, {"label": "C, D"}]},
            {"question": "Count?", "schema": {"type": "number"}},
            {"question": "Sure?", "schema": {"type": "boolean"}}
        ]}))
        .unwrap()
    }

    #[test]
    fn labels_lists_and_other_text() {
        let request = request();
        let items = request.items();
        assert_eq!(Answer::from_text(&items[0], " Yes "), Answer::select(["Yes"]));
        assert_eq!(Answer::from_text(&items[0], "Only on Fridays"), Answer::other("Only on Fridays"));
        assert_eq!(Answer::from_text(&items[1], "A, B"), Answer::select(["A", "B"]));
        assert_eq!(Answer::from_text(&items[1], "C, D"), Answer::select(["C, D"]), "a label with a comma wins");
        assert_eq!(Answer::from_text(&items[1], "A, E"), Answer::other("A, E"));
    }

    #[test]
    fn labels_match_without_their_surrounding_spaces_and_select_the_options_own_label() {
        let request = QuestionRequest::parse(&json!({"questions": [
            {"question": "Deploy?", "options": [{"label": "Yes "}, {"label": " No"}]},
            {"question": "Which?", "multiSelect": true, "options": [{"label": "A "}, {"label": "B"}]}
        ]}))
        .unwrap();
        let items = request.items();
        assert_eq!(Answer::from_text(&items[0], "Yes"), Answer::select(["Yes "]));
        assert_eq!(Answer::from_text(&items[0], "Yes "), Answer::select(["Yes "]));
        assert_eq!(Answer::from_text(&items[0], "No\t"), Answer::select([" No"]));
        assert_eq!(Answer::from_text(&items[1], "A,B"), Answer::select(["A ", "B"]));
        assert_eq!(Answer::from_text(&items[1], "B "), Answer::select(["B"]));
        let answers = Answers::from_texts(&request, &["Yes".into(), " A , B ".into()]).unwrap();
        assert_eq!(answers.items(), &[Answer::select(["Yes "]), Answer::select(["A ", "B"])]);
        let parsed = Answers::parse(&json!(["Yes", {"selected": [" A", "B "]}]), &request).unwrap();
        assert_eq!(parsed.items(), &[Answer::select(["Yes "]), Answer::select(["A ", "B"])]);
        let parsed = Answers::parse(&json!([{"selected": ["No"], "comment": "x"}, "B"]), &request).unwrap();
        assert_eq!(parsed.items()[0], Answer::select([" No"]).with_comment("x"));
    }

    #[test]
    fn free_form_text_is_converted_where_it_reads_as_the_type() {
        let request = request();
        let items = request.items();
        assert_eq!(Answer::from_text(&items[2], "2.5"), Answer::value(json!(2.5)));
        assert_eq!(Answer::from_text(&items[2], "7"), Answer::value(json!(7)));
        assert_eq!(Answer::from_text(&items[2], "many"), Answer::value(json!("many")));
        assert_eq!(Answer::from_text(&items[3], "Yes"), Answer::value(json!(true)));
        assert_eq!(Answer::from_text(&items[3], "maybe"), Answer::value(json!("maybe")));
    }

    #[test]
    fn a_default_answer_applies_to_every_question_or_not_at_all() {
        let yes_no = QuestionRequest::parse(
            &json!({"questions": [{"question": "Go?", "options": [{"label": "Yes"}, {"label": "No"}]}]}),
        )
        .unwrap();
        assert_eq!(Answers::from_text(&yes_no, "No").unwrap().items(), &[Answer::select(["No"])]);
        assert!(Answers::from_text(&request(), "Yes").is_none(), "\"Yes\" is not a number");
    }

    #[test]
    fn texts_answer_questions_in_order() {
        let request = request();
        let texts: Vec<String> = ["No", "A, C, D", "3", "no"].map(String::from).to_vec();
        let answers = Answers::from_texts(&request, &texts).unwrap();
        assert_eq!(answers.items()[1], Answer::other("A, C, D"));
        assert_eq!(answers.items()[3], Answer::value(json!(false)));
        let err = Answers::from_texts(&request, &texts[..2]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "answers: has 2 answers for 4 questions; give exactly one answer per question, in order"
        );
    }
}
