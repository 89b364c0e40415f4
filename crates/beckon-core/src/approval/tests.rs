use serde_json::{Value, json};

use super::*;
use crate::answer::{Answer, Answers};
use crate::limits::PREVIEW_MAX_BYTES;
use crate::question::{QuestionItem, QuestionRequest};

fn approval(value: Value) -> Approval {
    Approval::parse(&value, "approval").unwrap()
}

fn bash(command: &str) -> Approval {
    approval(json!({"tool_name": "Bash", "input": {"command": command, "description": "Write a file"},
        "suggestions": [{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "echo:*"}],
            "behavior": "allow", "destination": "localSettings"}],
        "project": "/home/ada/shop", "session": "5b0c"}))
}

fn problems(value: Value) -> Vec<String> {
    Approval::parse(&value, "approval").unwrap_err().iter().map(ToString::to_string).collect()
}

#[test]
fn bad_shapes_are_refused_at_their_paths() {
    assert_eq!(problems(json!({"input": {}})), vec!["approval.tool_name: is required"]);
    assert_eq!(
        problems(json!({"tool_name": "Bash", "input": "ls"})),
        vec!["approval.input: must be an object, not a string"]
    );
    assert_eq!(
        problems(json!({"tool_name": "Ba\nsh"})),
        vec![
            "approval.tool_name: contains the control character U+000A; this field must be a single line without control characters"
        ]
    );
    assert_eq!(
        problems(json!({"tool_name": "Bash", "suggestions": [1]})),
        vec!["approval.suggestions[0]: must be an object, not a number"]
    );
    assert_eq!(problems(json!({"tool_name": "Bash", "color": 1})).len(), 1);
    let big = "x".repeat(INPUT_MAX_BYTES);
    assert!(
        problems(json!({"tool_name": "Write", "input": {"content": big}}))[0].starts_with("approval.input: is 655")
    );
}

#[test]
fn always_is_offered_only_with_suggestions_and_says_what_it_covers() {
    let with = bash("echo hi > f.txt");
    assert_eq!(with.choices(), vec![ApprovalChoice::Allow, ApprovalChoice::AllowAlways, ApprovalChoice::Deny]);
    assert_eq!(
        with.always_covers().as_deref(),
        Some("Allow now, and allow Bash(echo:*) in this project (your local settings)")
    );
    let without = approval(json!({"tool_name": "Bash", "input": {"command": "ls"}}));
    assert_eq!(without.choices(), vec![ApprovalChoice::Allow, ApprovalChoice::Deny]);
    assert_eq!(without.always_covers(), None);
    let dirs = approval(
        json!({"tool_name": "Read", "suggestions": [{"type": "addDirectories", "directories": ["/srv"], "destination": "session"}]}),
    );
    assert_eq!(dirs.always_covers().as_deref(), Some("Allow now, and allow access to /srv for this session"));
}

#[test]
fn a_bash_preview_fences_the_command_so_nothing_in_it_is_markdown() {
    let hostile = "echo ``` [x](javascript:alert(1)) <img src=x> \u{202E}\u{1b}[31m";
    let preview = bash(hostile).preview();
    assert!(preview.starts_with("````sh\n"), "{preview}");
    assert!(preview.contains("\\u{202e}\\u{1b}[31m"), "{preview}");
    assert!(!preview.contains('\u{202E}') && !preview.contains('\u{1b}'));
    let fence_lines = preview.lines().filter(|line| line.starts_with("````")).count();
    assert_eq!(fence_lines, 2, "{preview}");
}

#[test]
fn an_edit_reads_as_a_diff_of_the_changed_lines() {
    let edit = approval(json!({"tool_name": "Edit", "input": {"file_path": "src/main.rs",
        "old_string": "fn main() {\n    println!(\"hi\");\n}", "new_string": "fn main() {\n    println!(\"hello\");\n}"}}));
    assert_eq!(
        edit.preview(),
        "**File:** ` src/main.rs `\n\n```diff\n  fn main() {\n-     println!(\"hi\");\n+     println!(\"hello\");\n  }\n```"
    );
    assert_eq!(edit.question_text(), "Allow Claude to edit src/main.rs?");
    assert_eq!(edit.header(), "Edit");
}

#[test]
fn mcp_tools_and_others_show_their_arguments() {
    let mcp = approval(json!({"tool_name": "mcp__github__create_issue", "input": {"title": "Bug"}}));
    assert_eq!(mcp.header(), "MCP tool");
    assert_eq!(mcp.question_text(), "Allow Claude to use create_issue from the MCP server github?");
    assert!(mcp.preview().contains("**MCP server:** ` github `"));
    assert!(mcp.preview().contains("\"title\": \"Bug\""));
    let fetch = approval(json!({"tool_name": "WebFetch", "input": {"url": "https://example.com", "prompt": "Sum up"}}));
    assert_eq!(fetch.question_text(), "Allow Claude to fetch https://example.com?");
    let long = approval(json!({"tool_name": "NotebookEditorTool"}));
    assert_eq!(long.header(), "NotebookEdi…");
}

#[test]
fn a_large_preview_is_cut_with_its_fence_closed_and_a_note() {
    let write =
        approval(json!({"tool_name": "Write", "input": {"file_path": "a.txt", "content": "line\n".repeat(5000)}}));
    let preview = write.preview();
    assert!(preview.len() <= PREVIEW_MAX_BYTES, "{}", preview.len());
    assert!(preview.ends_with("more bytes not shown*"), "{}", &preview[preview.len() - 80..]);
    assert_eq!(preview.lines().filter(|line| line.starts_with("```")).count(), 2);
}

#[test]
fn the_question_is_stored_with_its_approval_and_agents_cannot_send_one() {
    let request = QuestionRequest::for_approval(bash("echo hi > f.txt"));
    let QuestionItem::Choice(item) = &request.items()[0] else { panic!("a choice") };
    assert_eq!(
        item.options.iter().map(|o| o.label.as_str()).collect::<Vec<_>>(),
        vec!["Allow", "Allow always", "Deny"]
    );
    assert!(item.options[0].preview.as_deref().unwrap().contains("echo hi > f.txt"));
    let stored: QuestionRequest = serde_json::from_value(request.to_value()).unwrap();
    assert_eq!(stored, request);
    let refused = QuestionRequest::parse(&request.to_value()).unwrap_err().to_string();
    assert!(refused.contains("approval: unknown field"), "{refused}");
}

#[test]
fn answers_must_pick_one_option_and_edit_only_what_may_be_edited() {
    let request = QuestionRequest::for_approval(bash("echo hi > f.txt"));
    let check = |answer: Answer| {
        Answers::new(vec![answer], &request)
            .map(|_| ())
            .map_err(|p| p.iter().map(ToString::to_string).collect::<Vec<_>>())
    };
    assert!(check(Answer::select(["Allow"])).is_ok());
    assert!(check(Answer::select(["Deny"]).with_comment("use a temp dir")).is_ok());
    assert_eq!(
        check(Answer::other("maybe")).unwrap_err(),
        vec![
            "answers[0].other: an approval takes one of Allow, Allow always, Deny, not other text",
            "answers[0].selected: choose exactly one of Allow, Allow always, Deny"
        ]
    );
    assert_eq!(check(Answer::select(["Allow", "Deny"])).unwrap_err().len(), 1);
    let edit = |choice: &str, value: Value| Answer { value: Some(value), ..Answer::select([choice]) };
    assert!(check(edit("Allow", json!("echo edited > g.txt"))).is_ok());
    assert_eq!(
        check(edit("Deny", json!("rm -rf /"))).unwrap_err(),
        vec!["answers[0].value: an edited input goes with Allow, not Deny"]
    );
    assert_eq!(
        check(edit("Allow", json!(3))).unwrap_err(),
        vec!["answers[0].value: must be the new command as a string, not a number"]
    );
    let fetch =
        QuestionRequest::for_approval(approval(json!({"tool_name": "WebFetch", "input": {"url": "https://a.b"}})));
    let refused = Answers::new(vec![edit("Allow", json!("https://evil"))], &fetch).unwrap_err().to_string();
    assert!(refused.contains("cannot be edited"), "{refused}");
    assert!(Answers::parse(&json!(["Allow always"]), &request).is_ok());
}

#[test]
fn decisions_carry_the_edit_the_rules_or_the_message() {
    let asked = bash("echo hi > f.txt");
    let allow = asked.decision(&Answer::select(["Allow"]));
    assert_eq!(
        allow.to_value(),
        json!({"behavior": "allow", "updatedInput": {"command": "echo hi > f.txt", "description": "Write a file"}})
    );
    let edited = asked.decision(&Answer { value: Some(json!("echo edited")), ..Answer::select(["Allow"]) });
    assert_eq!(edited.to_value()["updatedInput"]["command"], "echo edited");
    let always = asked.decision(&Answer::select(["Allow always"]));
    assert_eq!(always.to_value()["updatedPermissions"], json!(asked.suggestions));
    assert!(always.allows() && Approval::grants(&Answer::select(["Allow always"])));
    assert_eq!(
        asked.decision(&Answer::select(["Deny"])).to_value(),
        json!({"behavior": "deny", "message": decision::DEFAULT_DENIAL})
    );
    let told = asked.decision(&Answer::select(["Deny"]).with_comment(" use /tmp "));
    assert_eq!(told, PermissionDecision::Deny { message: "use /tmp".into() });
    assert!(!Approval::grants(&Answer::select(["Deny"])));
}

#[test]
fn another_agents_approval_names_it_and_offers_no_edit() {
    let asked = approval(json!({"tool_name": "bash", "input": {"command": "npm test"}, "by": "Copilot"}));
    assert_eq!(asked.question_text(), "Allow Copilot to run this command?");
    assert!(asked.preview().contains("npm test") && asked.preview().starts_with("```sh"), "{}", asked.preview());
    assert_eq!(asked.editable_field(), None, "Copilot takes no edited command back");
    let deny = asked.question().options.into_iter().find(|o| o.label == "Deny").unwrap();
    assert!(deny.description.unwrap().contains("passed to Copilot"));
    let claude = approval(json!({"tool_name": "Bash", "input": {"command": "npm test"}}));
    assert_eq!(claude.question_text(), "Allow Claude to run this command?");
    assert_eq!(claude.editable_field(), Some(EditableField::Command));
    let too_long = Approval::parse(&json!({"tool_name": "Bash", "input": {}, "by": "x".repeat(41)}), "approval");
    assert!(too_long.unwrap_err().to_string().contains("approval.by"));
}

#[test]
fn a_choice_is_read_from_exactly_one_label_and_answers_with_it() {
    for choice in [ApprovalChoice::Allow, ApprovalChoice::AllowAlways, ApprovalChoice::Deny] {
        assert_eq!(ApprovalChoice::named(choice.label()), Some(choice));
        assert_eq!(ApprovalChoice::of(&choice.answer()), Some(choice));
        assert_eq!(serde_json::to_value(choice.answer()).unwrap(), json!({"selected": [choice.label()]}));
        assert_eq!(serde_json::to_value(choice).unwrap(), json!(choice.label()));
    }
    assert_eq!(ApprovalChoice::named("allow"), None, "labels match exactly");
    assert_eq!(ApprovalChoice::of(&Answer::select(["Allow", "Deny"])), None);
    assert_eq!(ApprovalChoice::of(&Answer::other("sure")), None);
    assert!(ApprovalChoice::Allow.grants() && ApprovalChoice::AllowAlways.grants() && !ApprovalChoice::Deny.grants());
    assert!(Approval::grants(&Answer::select(["Deny", "Allow"])), "an unchecked answer that allows counts as allowing");
}

#[test]
fn always_is_refused_when_it_is_not_offered() {
    let request = QuestionRequest::for_approval(approval(json!({"tool_name": "Bash", "input": {"command": "ls"}})));
    let refused = Answers::new(vec![ApprovalChoice::AllowAlways.answer()], &request).unwrap_err().to_string();
    assert!(refused.contains("choose exactly one of Allow, Deny"), "{refused}");
}

#[test]
fn the_approval_is_written_out_with_its_choices_and_editable_field() {
    let cases = [
        bash("echo hi > f.txt"),
        approval(json!({"tool_name": "Bash", "input": {"command": "ls"}})),
        approval(json!({"tool_name": "Write", "input": {"file_path": "a.txt", "content": "hi"}})),
        approval(json!({"tool_name": "Write", "input": {"file_path": "a.txt", "content": 3}})),
        approval(json!({"tool_name": "bash", "input": {"command": "npm test"}, "by": "Copilot"})),
        approval(json!({"tool_name": "WebFetch", "input": {"url": "https://a.b"}})),
    ];
    for asked in cases {
        let written = serde_json::to_value(&asked).unwrap();
        assert_eq!(written["choices"], serde_json::to_value(asked.choices()).unwrap());
        let labels: Vec<String> = asked.question().options.into_iter().map(|o| o.label).collect();
        assert_eq!(written["choices"], json!(labels), "the choices are the question's options");
        match asked.editable_field() {
            Some(field) => assert_eq!(written["editable_field"], json!(field.key())),
            None => assert!(written.get("editable_field").is_none(), "{written}"),
        }
        let sent = asked.to_value();
        assert!(sent.get("choices").is_none() && sent.get("editable_field").is_none(), "{sent}");
        assert_eq!(Approval::parse(&sent, "approval").unwrap(), asked);
        assert_eq!(Approval::parse_stored(&written, "approval").unwrap(), asked);
    }
    let written = serde_json::to_value(bash("ls")).unwrap();
    assert_eq!(written["editable_field"], "command");
    assert_eq!(written["choices"], json!(["Allow", "Allow always", "Deny"]));
}

#[test]
fn agents_cannot_send_what_beckon_adds_and_stored_values_are_worked_out_again() {
    let sent = json!({"tool_name": "WebFetch", "input": {"url": "https://a.b"}, "editable_field": "command"});
    assert_eq!(problems(sent.clone()).len(), 1, "editable_field is Beckon's to say");
    let stored = Approval::parse_stored(&sent, "approval").unwrap();
    assert_eq!(stored.editable_field(), None, "a stored claim is ignored");
    let request = QuestionRequest::for_approval(bash("echo hi > f.txt"));
    let read: QuestionRequest = serde_json::from_value(serde_json::to_value(&request).unwrap()).unwrap();
    assert_eq!(read, request);
}
