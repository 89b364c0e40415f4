//! What connecting writes into Claude Code's configuration, as edits of JSON values: the MCP
//! server, the hooks, and the permission for Beckon's tools. Pure: [`super::setup`] reads and
//! writes the files.
//!
//! Every entry Beckon adds is recognised by the `beckon` command it runs, so adding is
//! idempotent, an old entry (another path to `beckon`, another timeout) is replaced, and
//! removing takes out only Beckon's entries, and the containers it left empty.

use serde_json::{Value, json};

use super::hook::AGENT;
pub use crate::connect::State;
use crate::invocation::Invocation;
use crate::json_file::{array, drop_if_empty, object};
use crate::shell;
use crate::{hook_groups, mcp_servers};

/// The MCP server's name, and so its tools' prefix (`mcp__beckon__ask_user_question`).
pub const SERVER: &str = mcp_servers::SERVER;
/// The permission rule that allows every tool of Beckon's server.
pub const ALLOW_RULE: &str = "mcp__beckon";
/// How long Claude Code lets a hook wait for the person, in seconds (a day: a prompt can be
/// answered later; the terminal dialog stays usable meanwhile).
pub const HOOK_TIMEOUT_SECONDS: u64 = 86_400;
/// One hook event Beckon takes.
struct Hook {
    event: &'static str,
    /// What it is registered under (`None`: events Claude Code does not match on).
    matcher: Option<&'static str>,
    /// Whether it waits for the person (else it only tells Beckon something, quickly).
    waits: bool,
}

/// The hook events Beckon takes: the prompts it answers, the events that say a prompt was
/// answered in the terminal, Claude Code waiting at its prompt, and the person going on there.
const HOOKS: [Hook; 10] = [
    Hook { event: "PermissionRequest", matcher: Some("*"), waits: true },
    Hook { event: "PreToolUse", matcher: Some("AskUserQuestion"), waits: true },
    Hook { event: "Elicitation", matcher: Some("*"), waits: true },
    Hook { event: "ElicitationResult", matcher: Some("*"), waits: false },
    Hook { event: "PostToolUse", matcher: Some("*"), waits: false },
    Hook { event: "PostToolUseFailure", matcher: Some("*"), waits: false },
    Hook { event: "PermissionDenied", matcher: Some("*"), waits: false },
    Hook { event: "Notification", matcher: Some("*"), waits: false },
    Hook { event: "UserPromptSubmit", matcher: None, waits: false },
    Hook { event: "SessionEnd", matcher: None, waits: false },
];
/// How long Claude Code lets the hooks that only tell Beckon something run, in seconds.
const SHORT_TIMEOUT_SECONDS: u64 = 10;

/// The hook command for `beckon`.
pub fn hook_command(beckon: &Invocation) -> String {
    beckon.hook_command(AGENT)
}

fn is_ours(hook: &Value) -> bool {
    hook.get("command").and_then(Value::as_str).is_some_and(|command| shell::is_hook_command(command, AGENT))
}

/// The MCP server entry for `beckon`.
pub fn server_entry(beckon: &Invocation) -> Value {
    json!({"type": "stdio", "command": beckon.program(), "args": beckon.mcp_args(), "env": {}})
}

/// Adds the hooks and the permission to a settings file's value; says whether it changed.
pub fn add_settings(settings: &mut Value, beckon: &Invocation) -> bool {
    let before = settings.clone();
    remove_settings(settings);
    for hook in &HOOKS {
        let timeout = if hook.waits { HOOK_TIMEOUT_SECONDS } else { SHORT_TIMEOUT_SECONDS };
        let handler = json!({"type": "command", "command": hook_command(beckon), "timeout": timeout});
        hook_groups::add(settings, hook.event, hook.matcher, handler);
    }
    let root = object(settings);
    let permissions = object(root.entry("permissions").or_insert_with(|| json!({})));
    array(permissions.entry("allow").or_insert_with(|| json!([]))).push(json!(ALLOW_RULE));
    *settings != before
}

/// Takes Beckon's hooks and permission out of a settings file's value; says whether it
/// changed.
pub fn remove_settings(settings: &mut Value) -> bool {
    let before = settings.clone();
    let Some(root) = settings.as_object_mut() else { return false };
    hook_groups::remove(root, HOOKS.iter().map(|hook| hook.event), is_ours);
    if let Some(Value::Object(permissions)) = root.get_mut("permissions") {
        if let Some(Value::Array(allow)) = permissions.get_mut("allow") {
            allow.retain(|rule| rule != ALLOW_RULE);
        }
        drop_if_empty(permissions, "allow");
    }
    drop_if_empty(root, "permissions");
    *settings != before
}

/// Adds the MCP server under `mcpServers` of `holder` (the `.mcp.json` root, `~/.claude.json`
/// or one of its projects); says whether it changed.
pub fn add_server(holder: &mut Value, beckon: &Invocation) -> bool {
    mcp_servers::add(holder, server_entry(beckon))
}

/// Takes the MCP server out of `holder`, if it runs `beckon mcp`; says whether it changed.
pub fn remove_server(holder: &mut Value) -> bool {
    mcp_servers::remove(holder)
}

/// How a settings file and a server holder stand against what this `beckon` would write.
pub fn state(settings: &Value, holder: &Value, beckon: &Invocation) -> State {
    let mut wanted_settings = settings.clone();
    let mut wanted_holder = holder.clone();
    let settings_changes = add_settings(&mut wanted_settings, beckon);
    let holder_changes = add_server(&mut wanted_holder, beckon);
    if !settings_changes && !holder_changes {
        return State::Connected;
    }
    let mut without_settings = settings.clone();
    let mut without_holder = holder.clone();
    if !remove_settings(&mut without_settings) && !remove_server(&mut without_holder) {
        State::NotConnected
    } else {
        State::OutOfDate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &str = "/usr/bin/beckon";

    fn beckon() -> Invocation {
        Invocation::new(PROGRAM)
    }

    fn theirs() -> Value {
        json!({"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "lint-guard"}]}]}, "permissions": {"allow": ["Bash(npm test:*)"],
            "deny": ["Read(.env)"]}, "env": {"FOO": "1"}})
    }

    #[test]
    fn adding_keeps_every_other_setting_and_is_idempotent() {
        let mut settings = theirs();
        assert!(add_settings(&mut settings, &beckon()));
        assert_eq!(settings["model"], "opus");
        assert_eq!(settings["env"], json!({"FOO": "1"}));
        assert_eq!(settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "lint-guard");
        assert_eq!(settings["hooks"]["PreToolUse"][1]["matcher"], "AskUserQuestion");
        assert_eq!(
            settings["hooks"]["PermissionRequest"],
            json!([{"matcher": "*", "hooks": [{"type": "command", "command": "/usr/bin/beckon hook claude-code", "timeout": 86400}]}])
        );
        assert_eq!(settings["permissions"]["allow"], json!(["Bash(npm test:*)", "mcp__beckon"]));
        let once = settings.clone();
        assert!(!add_settings(&mut settings, &beckon()));
        assert_eq!(settings, once);
    }

    #[test]
    fn hooks_that_only_tell_beckon_something_get_a_short_timeout_and_no_matcher_where_none_applies() {
        let mut settings = json!({});
        add_settings(&mut settings, &beckon());
        let group = |event: &str| settings["hooks"][event][0].clone();
        assert_eq!(group("Notification")["matcher"], "*");
        assert_eq!(group("Notification")["hooks"][0]["timeout"], SHORT_TIMEOUT_SECONDS);
        for event in ["UserPromptSubmit", "SessionEnd"] {
            assert_eq!(
                group(event),
                json!({"hooks": [{"type": "command", "command": "/usr/bin/beckon hook claude-code", "timeout": 10}]}),
                "{event}"
            );
        }
        assert_eq!(group("Elicitation")["hooks"][0]["timeout"], HOOK_TIMEOUT_SECONDS);
        assert_eq!(settings["hooks"].as_object().unwrap().len(), HOOKS.len());
    }

    #[test]
    fn removing_gives_back_the_original_even_from_an_empty_file() {
        let mut settings = theirs();
        add_settings(&mut settings, &beckon());
        assert!(remove_settings(&mut settings));
        assert_eq!(settings, theirs());
        assert!(!remove_settings(&mut settings));
        let mut empty = json!({});
        add_settings(&mut empty, &beckon());
        remove_settings(&mut empty);
        assert_eq!(empty, json!({}));
    }

    #[test]
    fn another_beckon_is_out_of_date_and_replaced_not_doubled() {
        let mut settings = theirs();
        let mut holder = json!({"mcpServers": {"github": {"command": "gh-mcp"}}});
        assert_eq!(state(&settings, &holder, &beckon()), State::NotConnected);
        add_settings(&mut settings, &Invocation::new("/opt/old beckon/beckon"));
        assert_eq!(
            settings["hooks"]["PermissionRequest"][0]["hooks"][0]["command"],
            "'/opt/old beckon/beckon' hook claude-code"
        );
        add_server(&mut holder, &Invocation::new("/opt/old beckon/beckon"));
        assert_eq!(state(&settings, &holder, &beckon()), State::OutOfDate);
        add_settings(&mut settings, &beckon());
        add_server(&mut holder, &beckon());
        assert_eq!(state(&settings, &holder, &beckon()), State::Connected);
        assert_eq!(settings["hooks"]["PermissionRequest"].as_array().unwrap().len(), 1);
        assert!(remove_server(&mut holder));
        assert_eq!(holder, json!({"mcpServers": {"github": {"command": "gh-mcp"}}}));
    }

    #[test]
    fn a_server_named_beckon_that_is_not_ours_is_left_alone() {
        let mut holder = json!({"mcpServers": {"beckon": {"command": "other", "args": ["serve"]}}});
        assert!(!remove_server(&mut holder));
        assert_eq!(holder["mcpServers"]["beckon"]["command"], "other");
    }
}
