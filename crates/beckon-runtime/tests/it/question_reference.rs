//! docs/src/reference/question-schema.md is what an agent may ask as the code has it: every
//! bound `beckon_core::limits` puts on a question and its answer, and the JSON Schema the
//! `ask_user_question` tool offers agents, so a limit changed or a field added without its page
//! fails here. `BECKON_UPDATE_DOCS=1` rewrites the page instead.

use std::path::Path;

use beckon_core::limits::*;
use beckon_runtime::tools::ask_user_question_spec;
use beckon_testkit::reference_page::check;

const PAGE: &str = "docs/src/reference/question-schema.md";
const REWRITE: &str = "BECKON_UPDATE_DOCS=1 cargo nextest run -p beckon-runtime -E 'test(/^question_reference::/)'";

/// `bytes` as the book writes sizes: whole KiB where it is one, else bytes.
fn size(bytes: usize) -> String {
    if bytes >= 1024 && bytes.is_multiple_of(1024) { format!("{} KiB", bytes / 1024) } else { format!("{bytes} B") }
}

/// The bounds on a question and its answer, each with what it bounds.
fn limits() -> Vec<(&'static str, String)> {
    vec![
        ("Questions in one call", format!("{MIN_QUESTIONS} to {MAX_QUESTIONS}")),
        (
            "Options of a choice question (\"Other\" is always offered on top)",
            format!("{MIN_OPTIONS} to {MAX_OPTIONS}"),
        ),
        ("A question's `header`", format!("{HEADER_MAX_CHARS} characters")),
        ("A question's text", size(QUESTION_MAX_BYTES)),
        ("An option's `label` (and an enum's value)", size(LABEL_MAX_BYTES)),
        ("An option's or a schema's `description` (and a schema's title)", size(DESCRIPTION_MAX_BYTES)),
        ("An option's `preview`", size(PREVIEW_MAX_BYTES)),
        ("A free-form string schema's `pattern`", size(PATTERN_MAX_BYTES)),
        ("Values of an `enum` schema", ENUM_MAX_VALUES.to_string()),
        ("The whole request, as compact JSON", size(REQUEST_MAX_BYTES)),
        ("An \"Other\" answer", size(OTHER_MAX_BYTES)),
        ("A comment on an answer", size(COMMENT_MAX_BYTES)),
        ("A free-form string answer (a schema's `maxLength` may lower it)", size(FREE_TEXT_MAX_BYTES)),
        ("The whole answer, comments included, as compact JSON", size(ANSWER_MAX_BYTES)),
        ("A reason for declining or cancelling", size(REASON_MAX_BYTES)),
    ]
}

fn page() -> String {
    let spec = ask_user_question_spec();
    let schema = serde_json::to_string_pretty(&spec.input_schema).unwrap();
    let mut out = format!(
        "# The question's JSON Schema\n\n\
         This page is written from the code by `{REWRITE}`; a test fails when it differs from it. \
         [What an agent can ask](questions.md) says what the fields mean and what the agent gets \
         back.\n\n\
         ## Limits\n\n\
         Sizes count the UTF-8 bytes of the text as given; a header counts characters. A call over \
         a limit is refused with every problem and its path.\n\n\
         | What | At most |\n|---|---|\n"
    );
    for (what, limit) in limits() {
        out.push_str(&format!("| {what} | {limit} |\n"));
    }
    out.push_str(&format!(
        "\n## The input schema\n\n\
         What `{}` offers agents as its input, Claude Code's AskUserQuestion schema with Beckon's \
         free-form items; over MCP the tool adds `wait_seconds` (see [Any MCP client](../agents/mcp.md)).\n\n\
         ```json\n{schema}\n```\n",
        spec.name
    ));
    out
}

#[test]
fn the_question_page_is_the_limits_and_the_schema_agents_are_offered() {
    let page = page();
    assert!(page.contains("| Questions in one call | 1 to 4 |"), "{page}");
    assert!(page.contains("\"multiSelect\""), "the schema is Claude Code's: {page}");
    check(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")), PAGE, &page, REWRITE);
}

#[test]
fn sizes_are_written_as_the_book_writes_them() {
    assert_eq!(
        (size(2048), size(200), size(1024), size(1000)),
        ("2 KiB".into(), "200 B".into(), "1 KiB".into(), "1000 B".into())
    );
}
