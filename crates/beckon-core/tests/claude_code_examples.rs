//! Requests written the way Claude Code's AskUserQuestion tool sends them (every item has
//! `question`, `header`, `options[{label, description}]` and `multiSelect`), accepted as they
//! are, and answered with the result shape Claude Code's clients read.

#![allow(clippy::expect_used, clippy::unwrap_used)] // a failing test says why

use beckon_core::{Answer, Answers, Outcome, QuestionItem, QuestionRequest, render_tool_result};
use serde_json::{Value, json};

fn rendered(request: &QuestionRequest, answers: Vec<Answer>) -> Value {
    let answers = Answers::new(answers, request).expect("valid answers");
    serde_json::from_str(&render_tool_result(request, &Outcome::Answered { answers }).content).expect("JSON")
}

#[test]
fn a_single_select_question() {
    let input = json!({
        "questions": [{
            "question": "Which authentication method should the API use?",
            "header": "Auth method",
            "options": [
                {"label": "OAuth 2.0", "description": "Delegated access through an identity provider"},
                {"label": "API keys", "description": "Static keys issued per client"},
                {"label": "JWT", "description": "Self-contained signed tokens"}
            ],
            "multiSelect": false
        }]
    });
    let request = QuestionRequest::parse(&input).expect("accepted");
    assert_eq!(request.to_value(), input, "nothing is lost or added");
    assert_eq!(
        rendered(&request, vec![Answer::select(["JWT"])]),
        json!({"outcome": "answered", "answers": {"Which authentication method should the API use?": "JWT"}, "comments": {}})
    );
}

#[test]
fn a_multi_select_question_joins_labels_with_commas() {
    let input = json!({
        "questions": [{
            "question": "Which features do you want to enable?",
            "header": "Features",
            "options": [
                {"label": "Dark mode", "description": "A dark colour scheme"},
                {"label": "Offline sync", "description": "Work without a connection"},
                {"label": "Analytics", "description": "Anonymous usage statistics"}
            ],
            "multiSelect": true
        }]
    });
    let request = QuestionRequest::parse(&input).expect("accepted");
    assert_eq!(
        rendered(&request, vec![Answer::select(["Dark mode", "Offline sync"]).with_comment("analytics later")]),
        json!({
            "outcome": "answered",
            "answers": {"Which features do you want to enable?": "Dark mode, Offline sync"},
            "comments": {"Which features do you want to enable?": "analytics later"}
        })
    );
}

#[test]
fn four_questions_of_four_options_each() {
    let topics = [
        ("Framework", "Which front-end framework?"),
        ("Styling", "How should components be styled?"),
        ("State", "Where should state live?"),
        ("Testing", "Which test runner?"),
    ];
    let labels = [
        ["React", "Vue", "Svelte", "Solid"],
        ["CSS modules", "Tailwind", "Styled", "Plain CSS"],
        ["Context", "Redux", "Zustand", "Signals"],
        ["Vitest", "Jest", "Playwright", "None"],
    ];
    let questions: Vec<Value> = topics
        .iter()
        .zip(labels)
        .enumerate()
        .map(|(i, ((header, question), labels))| {
            json!({
                "question": question,
                "header": header,
                "options": labels.iter().map(|l| json!({"label": l, "description": format!("Use {l}")})).collect::<Vec<_>>(),
                "multiSelect": i == 3
            })
        })
        .collect();
    let request = QuestionRequest::parse(&json!({"questions": questions})).expect("accepted");
    assert_eq!(request.items().len(), 4);
    assert!(request.items().iter().all(|item| matches!(item, QuestionItem::Choice(c) if c.options.len() == 4)));
    let value = rendered(
        &request,
        vec![
            Answer::select(["Svelte"]),
            Answer::other("UnoCSS"),
            Answer::select(["Signals"]),
            Answer::select(["Vitest", "Playwright"]),
        ],
    );
    assert_eq!(
        value["answers"],
        json!({
            "Which front-end framework?": "Svelte",
            "How should components be styled?": "UnoCSS",
            "Where should state live?": "Signals",
            "Which test runner?": "Vitest, Playwright"
        })
    );
}

#[test]
fn a_fifth_question_or_option_is_refused_with_instructions() {
    let option = |l: &str| json!({"label": l, "description": "d"});
    let input = json!({
        "questions": [{
            "question": "Pick a colour",
            "header": "Colour",
            "options": [option("Red"), option("Green"), option("Blue"), option("Cyan"), option("Magenta")],
            "multiSelect": false
        }]
    });
    let problems = QuestionRequest::parse(&input).unwrap_err();
    assert_eq!(
        problems.to_string(),
        "questions[0].options: has 5 options; give 2 to 4 (an \"Other\" free-text answer is always offered as well)"
    );
}
