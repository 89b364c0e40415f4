//! A press's answer, collected by a channel as option indexes and texts, turned into Beckon's
//! answers for the question its message shows, and checked exactly as the window's are.

use beckon_core::{Answer, Answers, Problems, QuestionItem, QuestionRequest};

use crate::channel::ItemAnswer;

/// `items` as answers to `request`: options by index, "Other" texts, comments; then the
/// same validation every front end's answer gets. An index beyond the question's options, or
/// a count of items other than the request's, is a problem naming it.
pub fn to_answers(request: &QuestionRequest, items: &[ItemAnswer]) -> Result<Answers, Problems> {
    let questions = request.items();
    if items.len() != questions.len() {
        return Err(Problems::one(
            "answers",
            format!("{} answers for {} questions: answer every question", items.len(), questions.len()),
        ));
    }
    let mut answers = Vec::with_capacity(items.len());
    for (index, (item, question)) in items.iter().zip(questions).enumerate() {
        let mut answer = match question {
            QuestionItem::Choice(choice) => {
                let mut labels = Vec::with_capacity(item.options.len());
                for &option in &item.options {
                    let Some(found) = choice.options.get(option) else {
                        return Err(Problems::one(
                            format!("answers[{index}].selected"),
                            format!("option {option} does not exist (the question has {})", choice.options.len()),
                        ));
                    };
                    labels.push(found.label.clone());
                }
                Answer { selected: labels, other: item.other.clone(), ..Answer::default() }
            }
            QuestionItem::FreeForm(_) => match &item.other {
                Some(text) => Answer::from_text(question, text),
                None => Answer::default(),
            },
        };
        answer.comment = item.comment.clone().filter(|c| !c.trim().is_empty());
        answers.push(answer);
    }
    Answers::new(answers, request)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn request(value: serde_json::Value) -> QuestionRequest {
        QuestionRequest::parse(&value).unwrap()
    }

    fn deploy() -> QuestionRequest {
        request(
            json!({"questions": [{"question": "Deploy?", "header": "Deploy", "options": [{"label": "Yes"}, {"label": "No"}]}]}),
        )
    }

    #[test]
    fn an_option_index_becomes_its_label() {
        let answers = to_answers(&deploy(), &[ItemAnswer { options: vec![1], ..ItemAnswer::default() }]).unwrap();
        assert_eq!(answers.items(), &[Answer::select(["No"])]);
    }

    #[test]
    fn other_text_and_comment_are_kept() {
        let item = ItemAnswer {
            other: Some("Friday".into()),
            comment: Some("after the freeze".into()),
            ..ItemAnswer::default()
        };
        let answers = to_answers(&deploy(), &[item]).unwrap();
        assert_eq!(answers.items(), &[Answer::other("Friday").with_comment("after the freeze")]);
    }

    #[test]
    fn an_index_past_the_options_is_refused() {
        let problems = to_answers(&deploy(), &[ItemAnswer { options: vec![2], ..ItemAnswer::default() }]).unwrap_err();
        assert!(problems.to_string().contains("option 2 does not exist"), "{problems}");
    }

    #[test]
    fn single_select_with_two_options_is_refused_like_the_window() {
        let problems = to_answers(&deploy(), &[ItemAnswer { options: vec![0, 1], ..ItemAnswer::default() }]);
        assert!(problems.is_err());
    }

    #[test]
    fn answers_must_cover_every_question() {
        assert!(to_answers(&deploy(), &[]).is_err());
    }

    #[test]
    fn a_free_form_value_is_read_as_its_schema_type() {
        let replicas = request(
            json!({"questions": [{"question": "How many?", "schema": {"type": "integer", "minimum": 1, "maximum": 5}}]}),
        );
        let answers =
            to_answers(&replicas, &[ItemAnswer { other: Some("3".into()), ..ItemAnswer::default() }]).unwrap();
        assert_eq!(answers.items(), &[Answer::value(json!(3))]);
        let too_many = to_answers(&replicas, &[ItemAnswer { other: Some("9".into()), ..ItemAnswer::default() }]);
        assert!(too_many.is_err());
    }
}
