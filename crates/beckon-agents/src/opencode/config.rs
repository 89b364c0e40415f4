//! What connecting writes into OpenCode's `opencode.json`: Beckon's MCP server under `mcp`,
//! as edits of a JSON value that keep every other key. Pure: [`super::setup`] reads and writes
//! the file.

use serde_json::{Value, json};

use crate::invocation::{Invocation, is_mcp_args};
use crate::json_file::{drop_if_empty, object};

/// The MCP server's name, and so its tools' prefix (`beckon_ask_user_question`).
pub const SERVER: &str = "beckon";

/// The MCP server entry for `beckon`: OpenCode takes the program and its arguments as one list.
pub fn server_entry(beckon: &Invocation) -> Value {
    let mut command = vec![beckon.program().to_owned()];
    command.extend(beckon.mcp_args());
    json!({"type": "local", "command": command, "enabled": true})
}

/// Whether `entry` runs some `beckon mcp` (whatever path it runs it by, on whatever folder).
fn is_ours(entry: &Value) -> bool {
    let command = entry.get("command").and_then(Value::as_array);
    let words: Option<Vec<&str>> = command.and_then(|command| command.iter().map(Value::as_str).collect());
    words.is_some_and(|words| words.split_first().is_some_and(|(_, args)| is_mcp_args(args)))
}

/// Adds the MCP server to `config`; says whether it changed.
pub fn add_server(config: &mut Value, beckon: &Invocation) -> bool {
    let servers = object(object(config).entry("mcp").or_insert_with(|| json!({})));
    let entry = server_entry(beckon);
    let changed = servers.get(SERVER) != Some(&entry);
    servers.insert(SERVER.into(), entry);
    changed
}

/// Takes the MCP server out of `config`, if it runs `beckon mcp`; says whether it changed.
pub fn remove_server(config: &mut Value) -> bool {
    let Some(root) = config.as_object_mut() else { return false };
    let Some(Value::Object(servers)) = root.get_mut("mcp") else { return false };
    let ours = servers.get(SERVER).is_some_and(is_ours);
    if ours {
        servers.shift_remove(SERVER);
    }
    drop_if_empty(root, "mcp");
    ours
}

/// Whether `config` holds this `beckon`'s server (`Some(true)`), another `beckon`'s
/// (`Some(false)`), or none (`None`).
pub fn server_state(config: &Value, beckon: &Invocation) -> Option<bool> {
    let entry = config.get("mcp")?.get(SERVER).filter(|entry| is_ours(entry))?;
    Some(*entry == server_entry(beckon))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BECKON: &str = "/usr/bin/beckon";

    fn beckon() -> Invocation {
        Invocation::new(BECKON)
    }

    fn theirs() -> Value {
        json!({"$schema": "https://opencode.ai/config.json", "model": "anthropic/claude-sonnet-4-5",
            "mcp": {"github": {"type": "remote", "url": "https://example.com/mcp"}},
            "permission": {"bash": "ask"}})
    }

    #[test]
    fn adding_keeps_every_other_key_and_is_idempotent_and_removing_gives_back_the_original() {
        let mut config = theirs();
        assert_eq!(server_state(&config, &beckon()), None);
        assert!(add_server(&mut config, &beckon()));
        assert_eq!(config["mcp"]["beckon"], json!({"type": "local", "command": [BECKON, "mcp"], "enabled": true}));
        assert_eq!(config["mcp"]["github"], theirs()["mcp"]["github"]);
        assert_eq!(config["permission"], json!({"bash": "ask"}));
        assert_eq!(server_state(&config, &beckon()), Some(true));
        let once = config.clone();
        assert!(!add_server(&mut config, &beckon()));
        assert_eq!(config, once);
        assert!(remove_server(&mut config));
        assert_eq!(config, theirs());
        assert_eq!(serde_json::to_string(&config).unwrap(), serde_json::to_string(&theirs()).unwrap(), "key order");
        assert!(!remove_server(&mut config));

        let mut empty = json!({});
        add_server(&mut empty, &beckon());
        remove_server(&mut empty);
        assert_eq!(empty, json!({}), "an mcp Beckon emptied goes too");
    }

    #[test]
    fn another_beckon_is_out_of_date_and_a_server_named_beckon_that_is_not_ours_is_left_alone() {
        let mut config = theirs();
        add_server(&mut config, &Invocation::new("/opt/old/beckon"));
        assert_eq!(server_state(&config, &beckon()), Some(false));
        add_server(&mut config, &beckon());
        assert_eq!(server_state(&config, &beckon()), Some(true));
        add_server(&mut config, &beckon().with_data_dir("/srv/beckon"));
        assert_eq!(config["mcp"]["beckon"]["command"], json!([BECKON, "--data-dir", "/srv/beckon", "mcp"]));
        assert_eq!(server_state(&config, &beckon()), Some(false), "on another data folder");
        assert!(remove_server(&mut config));
        assert_eq!(config, theirs());

        let mut other = json!({"mcp": {"beckon": {"type": "local", "command": ["other", "serve"]}}});
        assert_eq!(server_state(&other, &beckon()), None);
        assert!(!remove_server(&mut other));
        assert_eq!(other["mcp"]["beckon"]["command"][0], "other");
    }
}
