//! docs/src/reference/cli.md is the `beckon` command's own help, every command and subcommand
//! (`beckon serve` and `beckon mcp` answered by `beckon-server`, built beside it), so a flag
//! added without its page fails here, naming the command. `BECKON_UPDATE_DOCS=1` rewrites the
//! page instead.

use std::process::Command;

/// The page, as the tests write it.
const PAGE: &str = "docs/src/reference/cli.md";
/// How the page is rewritten.
const REWRITE: &str = "BECKON_UPDATE_DOCS=1 cargo nextest run -p beckon-cli -E 'test(/^docs::cli_reference/)'";
const HEADER: &str = "# The `beckon` command line\n\n\
This page is the `beckon` command's own help, for every command, written by\n\
`BECKON_UPDATE_DOCS=1 cargo nextest run -p beckon-cli -E 'test(/^docs::cli_reference/)'`;\n\
a test fails when it differs from what the binaries say. What the commands are for is in\n\
[The `beckon` command](../agents/cli.md).\n";

/// `beckon <words> --help`, with nothing from this environment in it (clap shows an
/// environment variable's value beside its flag).
fn help(words: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_beckon")).args(words).arg("--help").env_clear().output().unwrap();
    assert!(output.status.success(), "beckon {} --help: {}", words.join(" "), String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// The subcommands a help lists under `Commands:`, `help` left out.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| line.trim() != "Commands:")
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter(|line| !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// Every command line with its help, depth first, `beckon` itself first.
fn commands(words: &mut Vec<String>, out: &mut Vec<(String, String)>) {
    let borrowed = words.iter().map(String::as_str).collect::<Vec<_>>();
    let text = help(&borrowed);
    let line = std::iter::once("beckon").chain(borrowed.iter().copied()).collect::<Vec<_>>().join(" ");
    out.push((line, text.trim_end().to_owned()));
    for sub in subcommands(&out.last().unwrap().1.clone()) {
        words.push(sub);
        commands(words, out);
        words.pop();
    }
}

fn section(line: &str, help: &str) -> String {
    format!("## `{line}`\n\n```text\n{help}\n```\n")
}

#[test]
fn the_cli_page_is_every_commands_own_help() {
    let mut found = Vec::new();
    commands(&mut Vec::new(), &mut found);
    assert!(found.iter().any(|(line, _)| line == "beckon serve"), "no `beckon serve` among {found:?}");
    let page = std::iter::once(HEADER.to_owned())
        .chain(found.iter().map(|(line, help)| section(line, help)))
        .collect::<Vec<_>>()
        .join("\n");
    beckon_testkit::reference_page::check(&super::repo(), PAGE, &page, REWRITE);
}

#[test]
fn subcommands_are_read_from_a_help() {
    let help = "Usage: beckon token <COMMAND>\n\nCommands:\n  create  Make a token\n          that wraps\n  list    List them\n  help    Print this\n\nOptions:\n  -h, --help\n";
    assert_eq!(subcommands(help), ["create", "list"]);
}
