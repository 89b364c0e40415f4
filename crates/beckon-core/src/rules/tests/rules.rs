use serde_json::json;

use super::{SHOP, bash, call, call_in};
use crate::rules::{Matcher, RuleSpec};

fn command_rule(prefix: &str) -> RuleSpec {
    RuleSpec { tool: "Bash".into(), matcher: Matcher::Command { prefix: prefix.into() }, project: SHOP.into() }
}

fn learned_prefix(command: &str) -> Option<String> {
    match RuleSpec::learn(&bash(command))?.matcher {
        Matcher::Command { prefix } => Some(prefix),
        other => panic!("a command taught {other:?}"),
    }
}

#[test]
fn commands_teach_their_leading_words() {
    assert_eq!(learned_prefix("npm test").as_deref(), Some("npm test"));
    assert_eq!(learned_prefix("npm test -- --watch").as_deref(), Some("npm test"));
    assert_eq!(learned_prefix("npm run build").as_deref(), Some("npm run build"));
    assert_eq!(learned_prefix("cargo build --release").as_deref(), Some("cargo build"));
    assert_eq!(learned_prefix("git status").as_deref(), Some("git status"));
    assert_eq!(learned_prefix("ls -la src").as_deref(), Some("ls"));
    assert_eq!(learned_prefix("python manage.py migrate").as_deref(), Some("python manage.py"));
    assert_eq!(learned_prefix("  cargo   test  ").as_deref(), Some("cargo test"));
}

#[test]
fn nothing_is_learned_from_compound_destructive_or_wrapped_commands() {
    for command in [
        "npm test && npm run build",
        "cd x && npm test",
        "npm test > out.txt",
        "npm test | tee log",
        "echo $HOME",
        "echo $(date)",
        "rm -rf build",
        "git push --force",
        "sudo npm test",
        "env A=1 npm test",
        "A=1 npm test",
        "bash -c 'npm test'",
        "python -c 'print(1)'",
        "python ../elsewhere.py",
        "git -C x status",
        "xargs echo",
        "ssh host ls",
        "echo 'open",
        "",
    ] {
        assert_eq!(learned_prefix(command), None, "`{command}` should teach nothing");
    }
    assert_eq!(RuleSpec::learn(&call_in("Bash", json!({"command": "npm test"}), None)), None, "no project");
    assert_eq!(RuleSpec::learn(&call("Bash", json!({"command": ["npm", "te st"]}))), None);
    assert_eq!(RuleSpec::learn(&call("WebFetch", json!({"url": "https://x"}))), None, "unknown tool shape");
    assert_eq!(RuleSpec::learn(&call("powershell", json!({"command": "ls"}))), None);
}

#[test]
fn every_agents_shell_and_file_tools_teach_rules() {
    let copilot = RuleSpec::learn(&call("bash", json!({"command": "npm test"}))).unwrap();
    assert_eq!(copilot.tool, "bash");
    let gemini = RuleSpec::learn(&call("run_shell_command", json!({"command": "make check"}))).unwrap();
    assert_eq!(gemini.matcher, Matcher::Command { prefix: "make check".into() });
    let codex = RuleSpec::learn(&call("shell", json!({"command": ["bash", "-lc", "cargo test -p x"]}))).unwrap();
    assert_eq!(codex.matcher, Matcher::Command { prefix: "cargo test".into() });

    let edit = RuleSpec::learn(&call("Edit", json!({"file_path": "/home/ada/shop/src/app/main.rs"}))).unwrap();
    assert_eq!(edit.matcher, Matcher::Path { under: "src/app".into() });
    let opencode = RuleSpec::learn(&call("edit", json!({"filepath": "src/a.ts", "diff": "…"}))).unwrap();
    assert_eq!(opencode.matcher, Matcher::Path { under: "src".into() });
    let root = RuleSpec::learn(&call("Write", json!({"file_path": "README.md"}))).unwrap();
    assert_eq!(root.matcher, Matcher::Path { under: ".".into() });
    assert_eq!(RuleSpec::learn(&call("Edit", json!({"file_path": "/etc/hosts"}))), None);
    assert_eq!(RuleSpec::learn(&call("Edit", json!({"file_path": ".git/config"}))), None);

    let mcp = RuleSpec::learn(&call("mcp__github__create_issue", json!({"title": "x"}))).unwrap();
    assert_eq!(mcp.matcher, Matcher::Tool);
    assert_eq!(mcp.project, SHOP);
}

#[test]
fn a_command_rule_covers_whole_words_in_its_project_only() {
    let rule = command_rule("npm test");
    assert!(rule.covers(&bash("npm test")));
    assert!(rule.covers(&bash("npm test -- --watch")));
    assert!(rule.covers(&bash("npm 'test'")));
    for other in [
        "npm tests",
        "npm",
        "npm test && rm -rf /",
        "npm test; ls",
        "npm test | sh",
        "npm test > /etc/x",
        "npm test `x`",
        "npm test $(x)",
        "npm test $X",
        "npm test &",
        "npm test\nls",
        "npm test 'a;b'",
        "npm te'st",
    ] {
        assert!(!rule.covers(&bash(other)), "`npm test` should not cover `{other}`");
    }
    assert!(!rule.covers(&call_in("Bash", json!({"command": "npm test"}), Some("/home/ada/other"))));
    assert!(!rule.covers(&call_in("Bash", json!({"command": "npm test"}), None)));
    assert!(!rule.covers(&call("bash", json!({"command": "npm test"}))), "another agent's tool");
    assert!(rule.covers(&call_in("Bash", json!({"command": "npm test"}), Some("/home/ada/shop/"))));
    assert!(!rule.covers(&call("Bash", json!({"command": "npm test", "workdir": "/etc"}))));
    assert!(rule.covers(&call("Bash", json!({"command": "npm test", "workdir": "/home/ada/shop/web"}))));
    assert!(!rule.covers(&call("Bash", json!({"command": "npm test", "fullCommandText": "npm test; ls"}))));
}

#[test]
fn a_rule_never_covers_a_destructive_call_even_under_its_prefix() {
    let git = command_rule("git push");
    assert!(git.covers(&bash("git push origin main")));
    assert!(!git.covers(&bash("git push --force origin main")));
    let rm = command_rule("rm");
    assert!(rm.covers(&bash("rm notes.txt")));
    assert!(!rm.covers(&bash("rm -rf notes")));
}

#[test]
fn a_path_rule_covers_files_under_its_folder() {
    let rule = RuleSpec { tool: "Edit".into(), matcher: Matcher::Path { under: "src".into() }, project: SHOP.into() };
    assert!(rule.covers(&call("Edit", json!({"file_path": "/home/ada/shop/src/main.rs"}))));
    assert!(rule.covers(&call("Edit", json!({"file_path": "src/deep/er.rs"}))));
    assert!(!rule.covers(&call("Edit", json!({"file_path": "srcx/main.rs"}))));
    assert!(!rule.covers(&call("Edit", json!({"file_path": "src/../../etc/passwd"}))));
    assert!(!rule.covers(&call("Edit", json!({"file_path": "src/../lib/x.rs"}))));
    assert!(!rule.covers(&call("Edit", json!({"file_path": "/home/ada/shop/src/.git/x"}))));
    assert!(!rule.covers(&call("Write", json!({"file_path": "src/main.rs"}))), "another tool");
    let whole = RuleSpec { tool: "Read".into(), matcher: Matcher::Path { under: ".".into() }, project: SHOP.into() };
    assert!(whole.covers(&call("Read", json!({"file_path": "README.md"}))));
    assert!(!whole.covers(&call("Read", json!({"file_path": "/etc/passwd"}))));
}

#[test]
fn a_tool_rule_covers_its_mcp_tool_but_never_a_shell() {
    let rule = RuleSpec { tool: "mcp__github__create_issue".into(), matcher: Matcher::Tool, project: SHOP.into() };
    assert!(rule.covers(&call("mcp__github__create_issue", json!({"title": "x"}))));
    assert!(!rule.covers(&call("mcp__github__delete_repo", json!({}))));
    let shell = RuleSpec { tool: "Bash".into(), matcher: Matcher::Tool, project: SHOP.into() };
    assert!(!shell.covers(&bash("ls")));
}

#[test]
fn repeats_of_the_same_rule_share_a_key() {
    let a = RuleSpec::learn(&bash("npm test -- a")).unwrap();
    let b =
        RuleSpec::learn(&call_in("Bash", json!({"command": "npm  test --watch"}), Some("/home/ada/shop/"))).unwrap();
    assert_eq!(a.key(), b.key());
    assert_ne!(a.key(), RuleSpec::learn(&bash("npm run x")).unwrap().key());
    assert_ne!(a.key(), RuleSpec::learn(&call("bash", json!({"command": "npm test"}))).unwrap().key());
    let elsewhere = RuleSpec::learn(&call_in("Bash", json!({"command": "npm test"}), Some("/home/ada/web"))).unwrap();
    assert_ne!(a.key(), elsewhere.key());
}

#[test]
fn descriptions_name_the_rule_and_the_projects_folder() {
    assert_eq!(command_rule("npm test").describe(), "`npm test` in shop");
    let edits = RuleSpec { tool: "Edit".into(), matcher: Matcher::Path { under: "src".into() }, project: SHOP.into() };
    assert_eq!(edits.describe(), "edits under `src/` in shop");
    let reads = RuleSpec { tool: "Read".into(), matcher: Matcher::Path { under: ".".into() }, project: SHOP.into() };
    assert_eq!(reads.describe(), "reads anywhere in shop");
    let mcp = RuleSpec { tool: "mcp__github__create_issue".into(), matcher: Matcher::Tool, project: SHOP.into() };
    assert_eq!(mcp.describe(), "`mcp__github__create_issue` in shop");
}

#[test]
fn hand_written_rules_are_read_and_checked() {
    let rule = RuleSpec::parse(
        &json!({"tool": "Bash", "matcher": {"kind": "command", "prefix": " npm  test "}, "project": "/home/ada/shop/"}),
        "rule",
    )
    .unwrap();
    assert_eq!(rule, command_rule("npm test"));
    let path = RuleSpec::parse(
        &json!({"tool": "Edit", "matcher": {"kind": "path", "under": "/home/ada/shop/src/"}, "project": SHOP}),
        "",
    )
    .unwrap();
    assert_eq!(path.matcher, Matcher::Path { under: "src".into() });
    let mcp = RuleSpec::parse(&json!({"tool": "mcp__x__y", "matcher": {"kind": "tool"}, "project": SHOP}), "").unwrap();
    assert_eq!(mcp.matcher, Matcher::Tool);
    let json = serde_json::to_value(&rule).unwrap();
    assert_eq!(json, json!({"tool": "Bash", "matcher": {"kind": "command", "prefix": "npm test"}, "project": SHOP}));
    assert_eq!(RuleSpec::parse(&json, "").unwrap(), rule);
}

#[test]
fn hand_written_rules_that_are_unsafe_or_malformed_are_refused_by_path() {
    let refused = |value: serde_json::Value| -> Vec<String> {
        RuleSpec::parse(&value, "rule").unwrap_err().iter().map(|p| p.path.clone()).collect()
    };
    let command =
        |prefix: &str| json!({"tool": "Bash", "matcher": {"kind": "command", "prefix": prefix}, "project": SHOP});
    for prefix in [
        "",
        "  ",
        "rm -rf",
        "git push --force",
        "npm test && ls",
        "npm test;",
        "echo $(x)",
        "a | b",
        "sudo ls",
        "echo 'x'",
        "bash",
        "env",
        "-x",
        "A=1 ls",
        "curl x | sh",
    ] {
        assert_eq!(refused(command(prefix)), ["rule.matcher.prefix"], "prefix `{prefix}`");
    }
    assert_eq!(refused(command(&"a ".repeat(600))), ["rule.matcher.prefix"]);
    let under = |under: &str| json!({"tool": "Edit", "matcher": {"kind": "path", "under": under}, "project": SHOP});
    for folder in ["../x", "src/../../x", "/etc", "~/x", ".git", "/home/ada/shop/../x", ""] {
        assert_eq!(refused(under(folder)), ["rule.matcher.under"], "under `{folder}`");
    }
    assert_eq!(refused(json!({"tool": "Bash", "matcher": {"kind": "tool"}, "project": SHOP})), ["rule.matcher.kind"]);
    assert_eq!(refused(json!({"tool": "Write", "matcher": {"kind": "tool"}, "project": SHOP})), ["rule.matcher.kind"]);
    assert_eq!(
        refused(json!({"tool": "Edit", "matcher": {"kind": "command", "prefix": "ls"}, "project": SHOP})),
        ["rule.matcher.kind"]
    );
    for project in ["shop", "/", "/home/../x", "C:\\", ""] {
        let value = json!({"tool": "Bash", "matcher": {"kind": "command", "prefix": "ls"}, "project": project});
        assert_eq!(refused(value), ["rule.project"], "project `{project}`");
    }
    assert_eq!(refused(json!({"tool": "Bash", "project": SHOP})), ["rule.matcher"]);
    assert_eq!(
        refused(json!({"tool": "B a", "matcher": {"kind": "odd"}, "project": SHOP, "extra": 1})),
        ["rule.extra", "rule.tool", "rule.matcher.kind"]
    );
    assert_eq!(
        refused(json!({"tool": "Bash", "matcher": {"kind": "command", "prefix": "ls", "under": "x"}, "project": SHOP})),
        ["rule.matcher.under"]
    );
    assert_eq!(refused(json!([])), ["rule"]);
}
