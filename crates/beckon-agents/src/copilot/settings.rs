//! What connecting writes into Copilot CLI's configuration, as edits of JSON values: the hooks
//! ([`HOOKS`], in the user's `settings.json` or a project's hooks file) and
//! Beckon's MCP server (in `mcp-config.json`, or the project's `.github/mcp.json`). Pure:
//! [`super::setup`] reads and writes the files.
//!
//! Every entry Beckon adds is recognised by the `beckon` command it runs, so adding is
//! idempotent, an old entry (another path to `beckon`) is replaced, and removing takes out
//! only Beckon's entries, and the containers it left empty.

use serde_json::{Value, json};

use crate::connect::State;
use crate::invocation::Invocation;
use crate::json_file::{array, drop_if_empty, object};
use crate::mcp_servers;
use crate::shell;

/// The MCP server's name.
pub const SERVER: &str = mcp_servers::SERVER;
/// How long Copilot lets the permission hook wait for the person, in seconds (a day; its
/// default is 30).
pub const HOOK_TIMEOUT_SECONDS: u64 = 86_400;
/// How long Copilot lets the hooks that only tell Beckon something run, in seconds.
const SHORT_TIMEOUT_SECONDS: u64 = 10;
/// Who the hook runs for.
const AGENT: &str = "copilot";
/// The hook events Beckon takes, as Copilot's configuration names them, with their timeouts:
/// permission requests, which it puts to the person, and the person going on at Copilot's
/// prompt or the session ending, which withdraw a request Copilot gave up waiting for (the
/// person interrupted the turn, and Copilot killed the hook before it could withdraw it).
pub const HOOKS: [(&str, u64); 3] = [
    ("permissionRequest", HOOK_TIMEOUT_SECONDS),
    ("userPromptSubmitted", SHORT_TIMEOUT_SECONDS),
    ("sessionEnd", SHORT_TIMEOUT_SECONDS),
];

/// The hook command for `beckon`.
pub fn hook_command(beckon: &Invocation) -> String {
    beckon.hook_command(AGENT)
}

fn is_ours(hook: &Value) -> bool {
    hook.get("bash").and_then(Value::as_str).is_some_and(|command| shell::is_hook_command(command, AGENT))
}

/// The hook entry for `beckon`, with `timeout`.
pub fn hook_entry(beckon: &Invocation, timeout: u64) -> Value {
    json!({"type": "command", "bash": hook_command(beckon), "timeoutSec": timeout})
}

/// The MCP server entry for `beckon`.
pub fn server_entry(beckon: &Invocation) -> Value {
    json!({"type": "local", "command": beckon.program(), "args": beckon.mcp_args(), "tools": ["*"]})
}

/// Adds the hooks under `hooks` of `holder` (settings.json, or a hooks file with its
/// `version`); says whether it changed.
pub fn add_hook(holder: &mut Value, beckon: &Invocation) -> bool {
    let root = object(holder);
    let hooks = object(root.entry("hooks").or_insert_with(|| json!({})));
    let mut changed = false;
    for (event, timeout) in HOOKS {
        let wanted = hook_entry(beckon, timeout);
        let list = array(hooks.entry(event).or_insert_with(|| json!([])));
        match list.iter_mut().find(|hook| is_ours(hook)) {
            Some(hook) if *hook == wanted => {}
            Some(hook) => {
                *hook = wanted;
                changed = true;
            }
            None => {
                list.push(wanted);
                changed = true;
            }
        }
    }
    changed
}

/// Takes Beckon's hooks out of `holder`; says whether it changed.
pub fn remove_hook(holder: &mut Value) -> bool {
    let Some(root) = holder.as_object_mut() else { return false };
    let Some(Value::Object(hooks)) = root.get_mut("hooks") else { return false };
    let mut changed = false;
    for (event, _) in HOOKS {
        if let Some(Value::Array(list)) = hooks.get_mut(event) {
            let before = list.len();
            list.retain(|hook| !is_ours(hook));
            changed |= list.len() != before;
        }
        drop_if_empty(hooks, event);
    }
    drop_if_empty(root, "hooks");
    changed
}

/// Adds the MCP server under `mcpServers` of `holder`; says whether it changed.
pub fn add_server(holder: &mut Value, beckon: &Invocation) -> bool {
    mcp_servers::add(holder, server_entry(beckon))
}

/// Takes the MCP server out of `holder`, if it runs `beckon mcp`; says whether it changed.
pub fn remove_server(holder: &mut Value) -> bool {
    mcp_servers::remove(holder)
}

/// How a hooks holder and a servers holder stand against what this `beckon` would write.
pub fn state(hooks: &Value, servers: &Value, beckon: &Invocation) -> State {
    let (mut wanted_hooks, mut wanted_servers) = (hooks.clone(), servers.clone());
    let hook_changes = add_hook(&mut wanted_hooks, beckon);
    let server_changes = add_server(&mut wanted_servers, beckon);
    if !hook_changes && !server_changes {
        return State::Connected;
    }
    let (mut without_hooks, mut without_servers) = (hooks.clone(), servers.clone());
    let hook_there = remove_hook(&mut without_hooks);
    let server_there = remove_server(&mut without_servers);
    if hook_there || server_there { State::OutOfDate } else { State::NotConnected }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BECKON: &str = "/usr/bin/beckon";

    fn beckon() -> Invocation {
        Invocation::new(BECKON)
    }

    fn theirs() -> Value {
        json!({"model": "gpt-5", "trustedFolders": ["/home/ada/shop"],
            "hooks": {"preToolUse": [{"type": "command", "bash": "lint-guard"}]}})
    }

    #[test]
    fn adding_keeps_every_other_setting_and_is_idempotent() {
        let mut settings = theirs();
        assert!(add_hook(&mut settings, &beckon()));
        assert_eq!(settings["hooks"]["preToolUse"], theirs()["hooks"]["preToolUse"]);
        assert_eq!(
            settings["hooks"]["permissionRequest"],
            json!([{"type": "command", "bash": "/usr/bin/beckon hook copilot", "timeoutSec": 86400}])
        );
        for event in ["userPromptSubmitted", "sessionEnd"] {
            assert_eq!(
                settings["hooks"][event],
                json!([{"type": "command", "bash": "/usr/bin/beckon hook copilot", "timeoutSec": 10}]),
                "{event}"
            );
        }
        let once = settings.clone();
        assert!(!add_hook(&mut settings, &beckon()));
        assert_eq!(settings, once);
        assert!(remove_hook(&mut settings));
        assert_eq!(settings, theirs());
        assert!(!remove_hook(&mut settings));
    }

    #[test]
    fn another_beckon_is_out_of_date_and_replaced_not_doubled() {
        let mut settings = theirs();
        let mut servers = json!({"mcpServers": {"github": {"command": "gh-mcp"}}});
        assert_eq!(state(&settings, &servers, &beckon()), State::NotConnected);
        add_hook(&mut settings, &Invocation::new("/opt/old beckon/beckon"));
        add_server(&mut servers, &Invocation::new("/opt/old beckon/beckon"));
        assert_eq!(state(&settings, &servers, &beckon()), State::OutOfDate);
        add_hook(&mut settings, &beckon());
        add_server(&mut servers, &beckon());
        assert_eq!(state(&settings, &servers, &beckon()), State::Connected);
        assert_eq!(settings["hooks"]["permissionRequest"].as_array().unwrap().len(), 1);
        assert_eq!(servers["mcpServers"]["beckon"]["command"], BECKON);
        assert!(remove_server(&mut servers));
        assert_eq!(servers, json!({"mcpServers": {"github": {"command": "gh-mcp"}}}));
        let mut empty = json!({});
        add_server(&mut empty, &beckon());
        remove_server(&mut empty);
        assert_eq!(empty, json!({}));
    }

    #[test]
    fn a_server_named_beckon_that_is_not_ours_is_left_alone() {
        let mut servers = json!({"mcpServers": {"beckon": {"command": "other", "args": ["serve"]}}});
        assert!(!remove_server(&mut servers));
        assert_eq!(servers["mcpServers"]["beckon"]["command"], "other");
    }
}
