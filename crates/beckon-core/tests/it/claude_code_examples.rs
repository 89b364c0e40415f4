//! Requests written the way Claude Code's AskUserQuestion tool (2.1.332) sends them — every
//! item has `question`, `header`, `options[{label, description, preview?}]` and `multiSelect`,
//! and the request may carry `answers`, `annotations` and `metadata` — accepted as they are,
//! and answered with the result Claude Code returns: `questions`, `answers` keyed by question
//! text, `annotations` with the person's `notes` and the chosen option's `preview`, plus
//! Beckon's `outcome`.

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
        json!({
            "outcome": "answered",
            "questions": input["questions"],
            "answers": {"Which authentication method should the API use?": "JWT"}
        })
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
            "questions": input["questions"],
            "answers": {"Which features do you want to enable?": "Dark mode, Offline sync"},
            "annotations": {"Which features do you want to enable?": {"notes": "analytics later"}}
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

#[test]
fn previews_metadata_and_claude_codes_own_fields_are_accepted() {
    let input = json!({
        "questions": [
            {
                "question": "Which layout should the settings page use?",
                "header": "Layout",
                "options": [
                    {"label": "Tabs", "description": "One tab per area", "preview": "```\n[General] [Keys] [Data]\n```"},
                    {"label": "One page", "description": "Everything on one scrolling page", "preview": "| Area | Fields |\n|---|---|\n| General | 4 |"}
                ],
                "multiSelect": false
            },
            {
                "question": "Which areas need a search box?",
                "header": "Search",
                "options": [
                    {"label": "Keys", "description": "API keys"},
                    {"label": "Agents", "description": "Agent files"}
                ],
                "multiSelect": true
            }
        ],
        "answers": {"Which layout should the settings page use?": "Tabs"},
        "annotations": {"Which layout should the settings page use?": {"notes": "from the dialog"}},
        "metadata": {"source": "remember"}
    });
    let request = QuestionRequest::parse(&input).expect("accepted");
    let kept = request.to_value();
    assert_eq!(kept["questions"], input["questions"], "previews are kept");
    assert_eq!(kept["metadata"], json!({"source": "remember"}), "metadata is kept");
    assert!(kept.get("answers").is_none() && kept.get("annotations").is_none(), "the person answers, not the input");

    let value = rendered(
        &request,
        vec![Answer::select(["One page"]).with_comment("fewer clicks"), Answer::select(["Keys", "Agents"])],
    );
    assert_eq!(value["questions"], input["questions"]);
    assert_eq!(
        value["answers"],
        json!({"Which layout should the settings page use?": "One page", "Which areas need a search box?": "Keys, Agents"})
    );
    assert_eq!(
        value["annotations"],
        json!({"Which layout should the settings page use?": {
            "notes": "fewer clicks",
            "preview": "| Area | Fields |\n|---|---|\n| General | 4 |"
        }})
    );
}

#[test]
fn what_is_really_wrong_is_still_refused() {
    let option = |label: &str, preview: Value| json!({"label": label, "description": "d", "preview": preview});
    let refusals = [
        (
            json!({"questions": [{"question": "Q?", "header": "H", "options": [option("A", json!("x".repeat(8193))), option("B", json!("y"))], "multiSelect": false}]}),
            "questions[0].options[0].preview: is 8193 bytes long; the limit is 8192 bytes",
        ),
        (
            json!({"questions": [{"question": "Q?", "header": "H", "options": [option("A", json!(7)), option("B", json!("y"))], "multiSelect": false}]}),
            "questions[0].options[0].preview: must be a string",
        ),
        (
            json!({"questions": [{"question": "Q?", "header": "H", "options": [option("A", json!("a\u{202e}b")), option("B", json!("y"))], "multiSelect": false}]}),
            "questions[0].options[0].preview: contains the control character U+202E",
        ),
        (
            json!({"questions": [{"question": "Q?", "header": "H", "options": [option("A", json!("a")), option("B", json!("b"))], "multiSelect": false}], "metadata": "remember"}),
            "metadata: must be an object",
        ),
        (
            json!({"questions": [{"question": "Q?", "header": "H", "options": [option("A", json!("a")), option("B", json!("b"))], "multiSelect": false}], "answers": {"Q?": 1}}),
            "answers.\"Q?\": must be a string",
        ),
        (
            json!({"questions": [{"question": "Q?", "header": "H", "options": [option("A", json!("a")), option("B", json!("b"))], "multiSelect": false}], "annotations": []}),
            "annotations: must be an object keyed by question text",
        ),
        (
            json!({"questions": [{"question": "Q?", "header": "Much too long", "options": [option("A", json!("a")), option("B", json!("b"))], "multiSelect": false}]}),
            "questions[0].header: is 13 characters long; the limit is 12",
        ),
    ];
    for (input, expected) in refusals {
        let problems = QuestionRequest::parse(&input).unwrap_err().to_string();
        assert!(problems.starts_with(expected), "{expected:?} is not the start of {problems:?}");
    }
}

#[test]
fn answers_keyed_by_question_text_are_read_as_claude_code_writes_them() {
    let request = QuestionRequest::parse(&json!({"questions": [
        {"question": "Which region?", "header": "Region", "options": [{"label": "eu"}, {"label": "us"}], "multiSelect": false},
        {"question": "Which extras?", "header": "Extras", "options": [{"label": "CDN"}, {"label": "WAF"}, {"label": "Logs"}], "multiSelect": true},
        {"question": "How many nodes?", "header": "Nodes", "schema": {"type": "integer", "minimum": 1}}
    ]}))
    .unwrap();
    let answers = Answers::parse(
        &json!({"Which extras?": "CDN, Logs", "How many nodes?": 3, "Which region?": {"selected": ["eu"], "comment": "latency"}}),
        &request,
    )
    .unwrap();
    assert_eq!(answers.items()[0], Answer::select(["eu"]).with_comment("latency"), "in the order asked");
    assert_eq!(answers.items()[1], Answer::select(["CDN", "Logs"]));
    assert_eq!(answers.items()[2], Answer::value(json!(3)));
    let other =
        Answers::parse(&json!({"Which region?": "ap", "Which extras?": "WAF", "How many nodes?": "2"}), &request)
            .unwrap();
    assert_eq!(other.items()[0], Answer::other("ap"));
    assert_eq!(other.items()[2], Answer::value(json!(2)));

    let problems =
        Answers::parse(&json!({"Which region?": "eu", "Which extra?": "CDN"}), &request).unwrap_err().to_string();
    assert!(problems.contains("answers.\"Which extra?\": names no question of this request"), "{problems}");
    assert!(problems.contains("answers.\"Which extras?\": is missing"), "{problems}");
    assert!(problems.contains("answers.\"How many nodes?\": is missing"), "{problems}");
    let problems =
        Answers::parse(&json!({"Which region?": "eu", "Which extras?": "CDN", "How many nodes?": 0}), &request)
            .unwrap_err()
            .to_string();
    assert!(problems.starts_with("answers[2]"), "{problems}");
}
