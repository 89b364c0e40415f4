//! What connecting writes into Gemini CLI's `settings.json`, as edits of its JSON value: the MCP
//! server, trusted so Gemini runs its tools without a prompt, and the hooks that tell Beckon
//! about Gemini's permission prompts. Pure: [`super::setup`] reads and writes the file.
//!
//! Every entry Beckon adds is recognised by the `beckon` command it runs, so adding is
//! idempotent, an old entry (another path to `beckon`) is replaced, and removing takes out only
//! Beckon's entries, and the containers it left empty.

use serde_json::{Value, json};

use super::notice::AGENT;
use crate::connect::State;
use crate::invocation::Invocation;
use crate::shell;
use crate::{hook_groups, mcp_servers};

/// The MCP server's name, and so its tools' prefix (`mcp_beckon_ask_user_question`).
pub const SERVER: &str = "beckon";
/// The name Gemini shows for Beckon's hooks (`/hooks` lists them by it).
pub const HOOK_NAME: &str = "beckon";
/// How long Gemini lets a hook run, in milliseconds. Gemini waits for its `Notification` hooks
/// before it shows the prompt; Beckon's hook only tells Beckon something and ends at once.
pub const HOOK_TIMEOUT_MS: u64 = 5_000;

/// One hook event Beckon takes.
struct Hook {
    event: &'static str,
    /// What tools it is registered for (`None`: events that are not about a tool).
    matcher: Option<&'static str>,
}

/// The events Beckon takes: Gemini showing a permission prompt, and the session going on after
/// it — the tool ran (allowed), the person typed the next prompt (after a refusal, which Gemini
/// reports to no hook), or the session ended.
const HOOKS: [Hook; 4] = [
    Hook { event: "Notification", matcher: None },
    Hook { event: "AfterTool", matcher: Some("*") },
    Hook { event: "BeforeAgent", matcher: None },
    Hook { event: "SessionEnd", matcher: None },
];

/// The hook command for `beckon`.
pub fn hook_command(beckon: &Invocation) -> String {
    beckon.hook_command(AGENT)
}

fn is_ours(hook: &Value) -> bool {
    hook.get("command").and_then(Value::as_str).is_some_and(|command| shell::is_hook_command(command, AGENT))
}

/// The MCP server entry for `beckon`: trusted, so Gemini offers its tools in every approval
/// mode and runs them without a prompt (asking the person is what they do).
pub fn server_entry(beckon: &Invocation) -> Value {
    json!({"command": beckon.program(), "args": beckon.mcp_args(), "trust": true})
}

/// Adds the MCP server and the hooks to a settings value; says whether it changed.
pub fn add(settings: &mut Value, beckon: &Invocation) -> bool {
    let before = settings.clone();
    remove(settings);
    mcp_servers::add(settings, server_entry(beckon));
    for hook in &HOOKS {
        let handler =
            json!({"name": HOOK_NAME, "type": "command", "command": hook_command(beckon), "timeout": HOOK_TIMEOUT_MS});
        hook_groups::add(settings, hook.event, hook.matcher, handler);
    }
    *settings != before
}

/// Takes Beckon's MCP server and hooks out of a settings value; says whether it changed.
pub fn remove(settings: &mut Value) -> bool {
    let before = settings.clone();
    mcp_servers::remove(settings);
    let Some(root) = settings.as_object_mut() else { return false };
    hook_groups::remove(root, HOOKS.iter().map(|hook| hook.event), is_ours);
    *settings != before
}

/// How a settings value stands against what this `beckon` would write.
pub fn state(settings: &Value, beckon: &Invocation) -> State {
    if !add(&mut settings.clone(), beckon) {
        State::Connected
    } else if !remove(&mut settings.clone()) {
        State::NotConnected
    } else {
        State::OutOfDate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BECKON: &str = "/usr/bin/beckon";

    fn beckon() -> Invocation {
        Invocation::new(BECKON)
    }

    fn theirs() -> Value {
        json!({"security": {"auth": {"selectedType": "gemini-api-key"}}, "model": {"name": "gemini-2.5-pro"},
            "mcpServers": {"github": {"command": "gh-mcp", "args": ["serve"]}},
            "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "lint-guard"}]}],
                "AfterTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "log-it"}]}]},
            "hooksConfig": {"notifications": false}})
    }

    #[test]
    fn adding_keeps_every_other_setting_and_is_idempotent() {
        let mut settings = theirs();
        assert!(add(&mut settings, &beckon()));
        assert_eq!(settings["model"], json!({"name": "gemini-2.5-pro"}));
        assert_eq!(settings["hooksConfig"], json!({"notifications": false}));
        assert_eq!(settings["mcpServers"]["github"], json!({"command": "gh-mcp", "args": ["serve"]}));
        assert_eq!(settings["mcpServers"]["beckon"], json!({"command": BECKON, "args": ["mcp"], "trust": true}));
        assert_eq!(settings["hooks"]["BeforeTool"], theirs()["hooks"]["BeforeTool"], "no BeforeTool hook of ours");
        assert_eq!(settings["hooks"]["AfterTool"][0]["hooks"][0]["command"], "log-it");
        let ours =
            json!([{"name": "beckon", "type": "command", "command": "/usr/bin/beckon hook gemini", "timeout": 5000}]);
        assert_eq!(settings["hooks"]["AfterTool"][1], json!({"matcher": "*", "hooks": ours}));
        for event in ["Notification", "BeforeAgent", "SessionEnd"] {
            assert_eq!(settings["hooks"][event], json!([{"hooks": ours}]), "{event}");
        }
        let once = settings.clone();
        assert!(!add(&mut settings, &beckon()));
        assert_eq!(settings, once);
    }

    #[test]
    fn removing_gives_back_the_original_even_from_nothing() {
        let mut settings = theirs();
        add(&mut settings, &beckon());
        assert!(remove(&mut settings));
        assert_eq!(settings, theirs());
        assert_eq!(
            serde_json::to_string(&settings).unwrap(),
            serde_json::to_string(&theirs()).unwrap(),
            "in the same order"
        );
        assert!(!remove(&mut settings));
        let mut empty = json!({});
        add(&mut empty, &beckon());
        remove(&mut empty);
        assert_eq!(empty, json!({}));
    }

    #[test]
    fn another_beckon_is_out_of_date_and_replaced_not_doubled() {
        let mut settings = theirs();
        assert_eq!(state(&settings, &beckon()), State::NotConnected);
        add(&mut settings, &Invocation::new("/opt/old beckon/beckon"));
        assert_eq!(settings["hooks"]["Notification"][0]["hooks"][0]["command"], "'/opt/old beckon/beckon' hook gemini");
        assert_eq!(state(&settings, &beckon()), State::OutOfDate);
        add(&mut settings, &beckon());
        assert_eq!(state(&settings, &beckon()), State::Connected);
        assert_eq!(settings["hooks"]["Notification"].as_array().unwrap().len(), 1);
        assert_eq!(settings["hooks"]["AfterTool"].as_array().unwrap().len(), 2);
        settings["mcpServers"]["beckon"]["trust"] = json!(false);
        assert_eq!(
            state(&settings, &beckon()),
            State::OutOfDate,
            "an untrusted server would prompt for every question"
        );
    }

    #[test]
    fn a_server_named_beckon_that_is_not_ours_is_left_alone() {
        let mut settings = json!({"mcpServers": {"beckon": {"command": "other", "args": ["serve"]}}});
        assert!(!remove(&mut settings));
        assert_eq!(settings["mcpServers"]["beckon"]["command"], "other");
    }
}
