//! Beckon's MCP server in an agent's JSON `mcpServers` map (Claude Code's, Copilot CLI's), as
//! edits of JSON values: added as the agent's own entry, and taken out only when it is Beckon's
//! (it runs `… mcp`, on whatever data folder), whoever wrote the rest.

use serde_json::{Value, json};

use crate::invocation::is_mcp_args_json;
use crate::json_file::{drop_if_empty, object};

/// The server's name, and so its tools' prefix.
pub const SERVER: &str = "beckon";

/// Puts `entry` under `mcpServers.beckon` of `holder`; says whether it changed.
pub fn add(holder: &mut Value, entry: Value) -> bool {
    let servers = object(object(holder).entry("mcpServers").or_insert_with(|| json!({})));
    let changed = servers.get(SERVER) != Some(&entry);
    servers.insert(SERVER.into(), entry);
    changed
}

/// Takes `mcpServers.beckon` out of `holder` when it runs `beckon mcp` (another program's
/// server by that name stays), and `mcpServers` when that leaves it empty; says whether it
/// changed.
pub fn remove(holder: &mut Value) -> bool {
    let Some(root) = holder.as_object_mut() else { return false };
    let Some(Value::Object(servers)) = root.get_mut("mcpServers") else { return false };
    let ours = servers.get(SERVER).is_some_and(|entry| is_mcp_args_json(entry.get("args")));
    if ours {
        servers.shift_remove(SERVER);
    }
    drop_if_empty(root, "mcpServers");
    ours
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beckons_server_is_added_once_and_only_it_is_taken_out() {
        let mut holder = json!({"mcpServers": {"github": {"command": "gh-mcp"}}, "theme": "dark"});
        let entry = json!({"command": "/usr/bin/beckon", "args": ["mcp"]});
        assert!(add(&mut holder, entry.clone()));
        assert!(!add(&mut holder, entry), "a second add changes nothing");
        assert!(remove(&mut holder));
        assert_eq!(holder, json!({"mcpServers": {"github": {"command": "gh-mcp"}}, "theme": "dark"}));
        let mut alone = json!({});
        add(&mut alone, json!({"args": ["--data-dir", "/srv/beckon", "mcp"]}));
        assert!(remove(&mut alone) && alone == json!({}), "an emptied mcpServers goes: {alone}");
        let mut other = json!({"mcpServers": {"beckon": {"command": "other", "args": ["serve"]}}});
        assert!(!remove(&mut other), "another program's server named beckon stays");
        assert_eq!(other["mcpServers"]["beckon"]["command"], "other");
    }
}
