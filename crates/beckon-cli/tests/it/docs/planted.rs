//! The checker on small books planted in a temporary folder: clean, then with one mistake each
//! (a broken link, a stale anchor, a page left out of the summary, an unmarked shell block, a
//! mark naming no test, a stale command: a block marked as run by a test that does not read
//! it), each named with its page and line.

use std::path::Path;

use super::check;

/// A book of two pages that link to each other, with a marked block each way, and the test
/// file a block names.
fn plant(dir: &Path) {
    let write = |path: &str, text: &str| {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "tests/it/deploy.rs",
        "// runs the deploy block: `deploy --later` in a comment reads nothing\nconst PAGE: &str = \"docs/src/guide/start.md\";\nlet block = book::block(PAGE, r#\"deploy --now\"#);\nlet quote = '\"';\n",
    );
    write(
        "README.md",
        "# Tool\n\n<!-- ANCHOR: what -->\nTool does things.\n<!-- ANCHOR_END: what -->\n\nSee [the guide](docs/src/guide/start.md#first-steps).\n",
    );
    write("docs/src/SUMMARY.md", "# Summary\n\n[Intro](intro.md)\n\n- [Start](guide/start.md)\n");
    write(
        "docs/src/intro.md",
        "# Intro\n\n{{#include ../../README.md:what}}\n\nGo to [the first steps](guide/start.md#first-steps), [again](guide/start.md#first-steps-1) or [`deploy`](guide/start.md#the-deploy-command).\n",
    );
    write(
        "docs/src/guide/start.md",
        "# Start\n\n## First steps\n\n<!-- block: run by tests/it/deploy.rs -->\n```sh\ndeploy --now\n```\n\n## First steps\n\n### The `deploy` command\n\n<!-- block: illustrative -->\n```console\n$ deploy <host>\n```\n\n```json\n{\"a\": 1}\n```\n\nBack to the [intro](../intro.md#intro); a [site](https://example.com/x.md) is not checked, nor `[code](nowhere.md)`.\n",
    );
}

fn problems(dir: &Path) -> Vec<String> {
    check::problems(&dir.join("docs/src"), &[dir.join("README.md")], dir)
}

fn edit(dir: &Path, page: &str, from: &str, to: &str) {
    let path = dir.join(page);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{page} has no {from:?}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

/// The one problem a planted mistake makes.
fn only(problems: Vec<String>) -> String {
    assert_eq!(problems.len(), 1, "{problems:#?}");
    problems.into_iter().next().unwrap()
}

#[test]
fn a_clean_book_has_no_problems() {
    let dir = tempfile::tempdir().unwrap();
    plant(dir.path());
    assert_eq!(problems(dir.path()), Vec::<String>::new());
}

#[test]
fn a_link_to_a_page_that_is_not_there_is_named_with_its_page_and_line() {
    let dir = tempfile::tempdir().unwrap();
    plant(dir.path());
    edit(dir.path(), "docs/src/guide/start.md", "(../intro.md#intro)", "(../introduction.md#intro)");
    let problem = only(problems(dir.path()));
    assert!(problem.starts_with("docs/src/guide/start.md:23: `../introduction.md#intro` names no file"), "{problem}");
}

#[test]
fn a_stale_anchor_is_named_with_the_page_it_misses() {
    let dir = tempfile::tempdir().unwrap();
    plant(dir.path());
    // The heading was renamed; the link still names the old one.
    edit(dir.path(), "docs/src/guide/start.md", "### The `deploy` command", "### Deploying");
    let problem = only(problems(dir.path()));
    assert!(problem.contains("docs/src/intro.md:"), "{problem}");
    assert!(problem.contains("no heading of docs/src/guide/start.md has the id `the-deploy-command`"), "{problem}");
}

#[test]
fn an_anchor_in_the_readme_is_checked_too() {
    let dir = tempfile::tempdir().unwrap();
    plant(dir.path());
    edit(dir.path(), "README.md", "#first-steps)", "#getting-going)");
    let problem = only(problems(dir.path()));
    assert!(problem.starts_with("README.md:7:"), "{problem}");
}

#[test]
fn a_page_left_out_of_the_summary_and_a_summary_entry_with_no_page_are_named() {
    let dir = tempfile::tempdir().unwrap();
    plant(dir.path());
    std::fs::write(dir.path().join("docs/src/guide/orphan.md"), "# Orphan\n").unwrap();
    assert_eq!(only(problems(dir.path())), "docs/src/guide/orphan.md: not listed in SUMMARY.md");
    std::fs::remove_file(dir.path().join("docs/src/guide/orphan.md")).unwrap();
    edit(
        dir.path(),
        "docs/src/SUMMARY.md",
        "- [Start](guide/start.md)\n",
        "- [Start](guide/start.md)\n- [Gone](guide/gone.md)\n",
    );
    let found = problems(dir.path());
    assert!(
        found.iter().any(|problem| problem == "docs/src/guide/gone.md: listed in SUMMARY.md but there is no such page"),
        "{found:#?}"
    );
}

#[test]
fn a_shell_block_without_a_mark_or_naming_no_test_fails() {
    let dir = tempfile::tempdir().unwrap();
    plant(dir.path());
    edit(dir.path(), "docs/src/guide/start.md", "<!-- block: illustrative -->\n", "");
    let problem = only(problems(dir.path()));
    assert!(problem.starts_with("docs/src/guide/start.md:14: a `console` block without a mark"), "{problem}");

    let dir = tempfile::tempdir().unwrap();
    plant(dir.path());
    edit(dir.path(), "docs/src/guide/start.md", "tests/it/deploy.rs", "tests/it/deploys.rs");
    let problem = only(problems(dir.path()));
    assert!(problem.ends_with("names `tests/it/deploys.rs`, which is not a file"), "{problem}");
}

#[test]
fn a_stale_command_is_named_with_its_page_and_line() {
    // The page's command changed; the test still reads (and runs) the old one.
    let dir = tempfile::tempdir().unwrap();
    plant(dir.path());
    edit(dir.path(), "docs/src/guide/start.md", "deploy --now", "deploy --later");
    let problem = only(problems(dir.path()));
    assert!(
        problem.starts_with(
            "docs/src/guide/start.md:6: `tests/it/deploy.rs` does not read this block: it names no block starting `deploy --later`"
        ),
        "{problem}"
    );

    // The test stopped reading the page the block is marked as run from.
    let dir = tempfile::tempdir().unwrap();
    plant(dir.path());
    edit(dir.path(), "tests/it/deploy.rs", "\"docs/src/guide/start.md\"", "\"docs/src/guide/other.md\"");
    let problem = only(problems(dir.path()));
    assert!(
        problem
            .starts_with("docs/src/guide/start.md:6: `tests/it/deploy.rs` does not read this block: it names no page"),
        "{problem}"
    );
}

#[test]
fn a_block_run_by_a_test_must_be_the_only_one_with_its_first_line() {
    let dir = tempfile::tempdir().unwrap();
    plant(dir.path());
    edit(dir.path(), "docs/src/guide/start.md", "$ deploy <host>", "deploy --now");
    let problem = only(problems(dir.path()));
    assert!(
        problem.starts_with("docs/src/guide/start.md:6: another block of the page starts with `deploy --now` too"),
        "{problem}"
    );
}

#[test]
fn string_literals_are_read_as_the_strings_they_stand_for() {
    let literals = check::string_literals(
        "// \"not this\"\nlet a = \"one \\\"two\\\"\";\nlet b = r#\"psql \"$URL\" -c 'x'\"#; let c = '\"'; let d: &'static str = \"long \\\n    line\";\n",
    );
    let expected = ["one \"two\"", "psql \"$URL\" -c 'x'", "long line"].map(String::from);
    assert_eq!(literals, expected.into_iter().collect());
}

#[test]
fn a_fenced_block_must_say_its_language() {
    let dir = tempfile::tempdir().unwrap();
    plant(dir.path());
    edit(dir.path(), "docs/src/guide/start.md", "```json", "```");
    let problem = only(problems(dir.path()));
    assert!(problem.starts_with("docs/src/guide/start.md:19: a fenced block with no language"), "{problem}");
}

#[test]
fn heading_ids_follow_mdbooks_rule() {
    assert_eq!(check::id_from_content("Triage: many agents, one inbox"), "triage-many-agents-one-inbox");
    assert_eq!(check::id_from_content("MCP (Claude Code, Cursor, …)"), "mcp-claude-code-cursor-");
    assert_eq!(check::id_from_content(" Upgrading: one replica at a time "), "upgrading-one-replica-at-a-time");
    let ids = check::heading_ids(
        "# The `beckon` command\n\n## Tokens\n\n```sh\n# not a heading\n```\n\n## Tokens\n\n## [Linked](x.md) *text* {#custom}\n",
    );
    for id in ["the-beckon-command", "tokens", "tokens-1", "custom"] {
        assert!(ids.contains(id), "{id} not in {ids:?}");
    }
    assert!(!ids.contains("not-a-heading"));
}
