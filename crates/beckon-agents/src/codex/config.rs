//! What connecting writes into Codex's `config.toml`, as edits of a TOML document that keep
//! every other key, comment and table as they were: Beckon's MCP server (its tools approved, so
//! they run unattended), the hooks that run `beckon hook codex` ([`HOOKS`]), and, in the user's
//! own file, Codex's record that the person trusts them.
//!
//! Codex runs a hook from a person's files only once its definition is trusted: a
//! `[hooks.state."<file>:<event>:<group>:<handler>"]` table whose `trusted_hash` is the hash of
//! the hook's definition ([`trusted_hash`]). Codex reads those records from the user's
//! `config.toml` only, so a project's file cannot carry them.
//!
//! Every entry Beckon adds is recognised by the `beckon` command it runs, so adding is
//! idempotent and updates in place, and removing takes out only Beckon's entries and the
//! implicit tables that held nothing else, giving back the file's original text.

use serde_json::json;
use sha2::{Digest, Sha256};
use toml_edit::{ArrayOfTables, DocumentMut, InlineTable, Item, Table, TableLike, Value};

use crate::invocation::{Invocation, is_mcp_args};
use crate::shell;

/// The MCP server's name, and so its tools' prefix (`mcp__beckon__ask_user_question`).
pub const SERVER: &str = "beckon";
/// How long Codex lets the permission hook wait for the person, in seconds (a day).
pub const HOOK_TIMEOUT_SECONDS: i64 = 86_400;
/// How long Codex lets the hook that only tells Beckon something run, in seconds.
const SHORT_TIMEOUT_SECONDS: i64 = 10;
/// Who the hook runs for.
const AGENT: &str = "codex";

/// One hook event Beckon takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hook {
    /// The event as config.toml names it.
    pub event: &'static str,
    /// The event as Codex's trust keys and hashes name it.
    label: &'static str,
    /// Which tools it is for (`None`: an event Codex does not match on).
    matcher: Option<&'static str>,
    /// How long Codex lets it run, in seconds.
    timeout: i64,
}

/// The hooks Beckon takes: permission requests, which it puts to the person, and the person
/// going on at Codex's prompt, which withdraws a request Codex gave up waiting for (the person
/// interrupted the turn, and Codex killed the hook before it could withdraw it).
pub const HOOKS: [Hook; 2] = [
    Hook {
        event: "PermissionRequest",
        label: "permission_request",
        matcher: Some(".*"),
        timeout: HOOK_TIMEOUT_SECONDS,
    },
    Hook { event: "UserPromptSubmit", label: "user_prompt_submit", matcher: None, timeout: SHORT_TIMEOUT_SECONDS },
];

/// A key of the document that holds something other than a table where a table belongs
/// (Codex would refuse such a file too); nothing was changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotATable(pub String);

/// The hook command for `beckon`.
pub fn hook_command(beckon: &Invocation) -> String {
    beckon.hook_command(AGENT)
}

/// The hash Codex records when the person trusts Beckon's `hook` running `command`: SHA-256
/// of the hook's normalized definition as JSON with sorted keys and no spaces.
pub fn trusted_hash(hook: &Hook, command: &str) -> String {
    // Keys in sorted order: this map keeps insertion order.
    let mut identity = json!({"event_name": hook.label, "hooks": [{"async": false, "command": command,
        "timeout": hook.timeout, "type": "command"}]});
    if let Some(matcher) = hook.matcher {
        identity["matcher"] = json!(matcher);
    }
    let digest = Sha256::digest(identity.to_string().as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// The key of the trust record for the hook at `place` of the file at `file`.
fn trust_key(file: &str, place: &HookPlace) -> String {
    format!("{file}:{}:{}:{}", place.hook.label, place.group, place.handler)
}

/// Where Beckon's hook sits in a file, and what it runs: what a trust record names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookPlace {
    /// Which hook.
    pub hook: Hook,
    /// Its group's index among the file's groups for its event.
    pub group: usize,
    /// Its index among the group's handlers.
    pub handler: usize,
    /// The command it runs.
    pub command: String,
}

/// Adds Beckon's MCP server and hooks to `doc`. Says whether the text changed, and where the
/// hooks are.
pub fn add(doc: &mut DocumentMut, beckon: &Invocation) -> Result<(bool, Vec<HookPlace>), NotATable> {
    let before = doc.to_string();
    let servers = table_under(doc.as_table_mut(), "mcp_servers")?;
    let server = match servers.get_mut(SERVER).and_then(Item::as_table_like_mut) {
        Some(server) => server,
        None => {
            servers.insert(SERVER, Item::Table(Table::new()));
            servers.get_mut(SERVER).and_then(Item::as_table_like_mut).ok_or_else(|| not_a_table("mcp_servers"))?
        }
    };
    set(server, "command", Value::from(beckon.program()));
    set(server, "args", Value::Array(beckon.mcp_args().into_iter().collect()));
    set(server, "default_tools_approval_mode", Value::from("approve"));

    let command = hook_command(beckon);
    let hooks = table_under(doc.as_table_mut(), "hooks")?;
    let mut places = Vec::new();
    for hook in HOOKS {
        let (group, handler) = put_hook(hooks, &hook, &command)?;
        places.push(HookPlace { hook, group, handler, command: command.clone() });
    }
    Ok((doc.to_string() != before, places))
}

/// Takes Beckon's MCP server and hooks out of `doc`. Says whether the text changed, and the
/// hooks taken out with the commands they ran.
pub fn remove(doc: &mut DocumentMut) -> (bool, Vec<(Hook, String)>) {
    let before = doc.to_string();
    let root = doc.as_table_mut();
    if let Some(servers) = root.get_mut("mcp_servers").and_then(Item::as_table_like_mut) {
        let ours = servers
            .get(SERVER)
            .and_then(|server| server.get("args"))
            .and_then(Item::as_array)
            .and_then(|args| args.iter().map(Value::as_str).collect::<Option<Vec<&str>>>())
            .is_some_and(|args| is_mcp_args(&args));
        if ours {
            servers.remove(SERVER);
        }
    }
    drop_if_empty(root, "mcp_servers");
    let mut taken = Vec::new();
    if let Some(hooks) = root.get_mut("hooks").and_then(Item::as_table_like_mut) {
        for hook in HOOKS {
            taken.extend(take_hooks(hooks, &hook).into_iter().map(|command| (hook, command)));
            drop_if_empty_like(hooks, hook.event);
        }
    }
    drop_if_empty(root, "hooks");
    (doc.to_string() != before, taken)
}

/// Records in `doc` (the user's `config.toml`) that the person trusts Beckon's hooks at
/// `places` of the file at `file` (its absolute path, as Codex names it), dropping older
/// records of them at other places of that file. Says whether the text changed.
pub fn trust(doc: &mut DocumentMut, file: &str, places: &[HookPlace]) -> Result<bool, NotATable> {
    let before = doc.to_string();
    let hooks = table_under(doc.as_table_mut(), "hooks")?;
    let states = table_under(hooks, "state")?;
    for place in places {
        let key = trust_key(file, place);
        let hash = trusted_hash(&place.hook, &place.command);
        let prefix = format!("{file}:{}:", place.hook.label);
        let stale: Vec<String> = states
            .iter()
            .filter(|(other, state)| {
                *other != key && other.starts_with(&prefix) && record_hash(state) == Some(hash.as_str())
            })
            .map(|(other, _)| other.to_owned())
            .collect();
        for other in stale {
            states.remove(&other);
        }
        let state = match states.get_mut(&key).and_then(Item::as_table_like_mut) {
            Some(state) => state,
            None => {
                states.insert(&key, Item::Table(Table::new()));
                states.get_mut(&key).and_then(Item::as_table_like_mut).ok_or_else(|| not_a_table("hooks.state"))?
            }
        };
        set(state, "trusted_hash", Value::from(hash.as_str()));
    }
    Ok(doc.to_string() != before)
}

/// Takes out of `doc` the trust records for Beckon's hooks in the file at `file` that ran the
/// `taken` commands, and the implicit tables that held only them. Says whether the text
/// changed.
pub fn untrust(doc: &mut DocumentMut, file: &str, taken: &[(Hook, String)]) -> bool {
    let before = doc.to_string();
    let root = doc.as_table_mut();
    if let Some(hooks) = root.get_mut("hooks").and_then(Item::as_table_like_mut) {
        if let Some(states) = hooks.get_mut("state").and_then(Item::as_table_like_mut) {
            let records: Vec<(String, String)> = taken
                .iter()
                .map(|(hook, command)| (format!("{file}:{}:", hook.label), trusted_hash(hook, command)))
                .collect();
            let ours: Vec<String> = states
                .iter()
                .filter(|(key, state)| {
                    records
                        .iter()
                        .any(|(prefix, hash)| key.starts_with(prefix.as_str()) && record_hash(state) == Some(hash))
                })
                .map(|(key, _)| key.to_owned())
                .collect();
            for key in ours {
                states.remove(&key);
            }
        }
        drop_if_empty_like(hooks, "state");
    }
    drop_if_empty(root, "hooks");
    doc.to_string() != before
}

/// Beckon's entries in the user's own file: the server, the hook, and (with `file`, the file's
/// absolute path) the record that trusts the hook. Says whether the text changed.
pub fn connect(doc: &mut DocumentMut, beckon: &Invocation, file: Option<&str>) -> Result<bool, NotATable> {
    let (added, places) = add(doc, beckon)?;
    let trusted = match file {
        Some(file) => trust(doc, file, &places)?,
        None => false,
    };
    Ok(added || trusted)
}

/// Takes out of the user's own file what [`connect`] put there (the trust record of a hook
/// that ran this `beckon`'s command too). Says whether the text changed.
pub fn disconnect(doc: &mut DocumentMut, beckon: &Invocation, file: Option<&str>) -> bool {
    let (removed, mut taken) = remove(doc);
    taken.extend(HOOKS.map(|hook| (hook, hook_command(beckon))));
    let untrusted = file.is_some_and(|file| untrust(doc, file, &taken));
    removed || untrusted
}

fn not_a_table(key: &str) -> NotATable {
    NotATable(key.to_owned())
}

fn record_hash(state: &Item) -> Option<&str> {
    state.as_table_like()?.get("trusted_hash")?.as_str()
}

/// The table at `key` of `parent`, made an implicit one (shown only through its children)
/// when there is none.
fn table_under<'a>(parent: &'a mut dyn TableLike, key: &str) -> Result<&'a mut dyn TableLike, NotATable> {
    let item = parent.entry(key).or_insert_with(|| {
        let mut table = Table::new();
        table.set_implicit(true);
        Item::Table(table)
    });
    item.as_table_like_mut().ok_or_else(|| not_a_table(key))
}

/// Sets `key` to `wanted` unless it already holds that value (so its formatting stays).
fn set(table: &mut dyn TableLike, key: &str, wanted: Value) {
    let same = table.get(key).and_then(Item::as_value).is_some_and(|value| plain(value) == plain(&wanted));
    if !same {
        table.insert(key, Item::Value(wanted));
    }
}

/// A value without its formatting, to compare.
fn plain(value: &Value) -> serde_json::Value {
    match value {
        Value::String(text) => json!(text.value()),
        Value::Integer(number) => json!(number.value()),
        Value::Float(number) => json!(number.value()),
        Value::Boolean(flag) => json!(flag.value()),
        Value::Datetime(time) => json!(time.value().to_string()),
        Value::Array(items) => serde_json::Value::Array(items.iter().map(plain).collect()),
        Value::InlineTable(table) => {
            serde_json::Value::Object(table.iter().map(|(key, value)| (key.to_owned(), plain(value))).collect())
        }
    }
}

/// Whether a handler table runs some `beckon`'s Codex hook; its command when it does.
fn our_command(handler: &dyn TableLike) -> Option<String> {
    let command = handler.get("command")?.as_str()?;
    shell::is_hook_command(command, AGENT).then(|| command.to_owned())
}

/// The handler tables of a group (`[[…hooks]]` or an inline array of tables).
fn handlers_mut(group: &mut dyn TableLike) -> Vec<&mut dyn TableLike> {
    match group.get_mut("hooks") {
        Some(Item::ArrayOfTables(list)) => list.iter_mut().map(|t| t as &mut dyn TableLike).collect(),
        Some(Item::Value(Value::Array(list))) => {
            list.iter_mut().filter_map(Value::as_inline_table_mut).map(|t| t as &mut dyn TableLike).collect()
        }
        _ => Vec::new(),
    }
}

/// The groups for `hook`'s event, in order.
fn groups_mut<'a>(hooks: &'a mut dyn TableLike, hook: &Hook) -> Vec<&'a mut dyn TableLike> {
    match hooks.get_mut(hook.event) {
        Some(Item::ArrayOfTables(list)) => list.iter_mut().map(|t| t as &mut dyn TableLike).collect(),
        Some(Item::Value(Value::Array(list))) => {
            list.iter_mut().filter_map(Value::as_inline_table_mut).map(|t| t as &mut dyn TableLike).collect()
        }
        _ => Vec::new(),
    }
}

fn set_handler(handler: &mut dyn TableLike, hook: &Hook, command: &str) {
    set(handler, "type", Value::from("command"));
    set(handler, "command", Value::from(command));
    set(handler, "timeout", Value::from(hook.timeout));
}

/// Puts Beckon's handler for `hook` in place (updating the one there, else adding a group);
/// says where it is: (group, handler).
fn put_hook(hooks: &mut dyn TableLike, hook: &Hook, command: &str) -> Result<(usize, usize), NotATable> {
    for (group_index, group) in groups_mut(hooks, hook).into_iter().enumerate() {
        let mut found = None;
        for (handler_index, handler) in handlers_mut(group).into_iter().enumerate() {
            if our_command(handler).is_some() {
                set_handler(handler, hook, command);
                found = Some(handler_index);
                break;
            }
        }
        if let Some(handler_index) = found {
            match hook.matcher {
                Some(matcher) => set(group, "matcher", Value::from(matcher)),
                None => {
                    group.remove("matcher");
                }
            }
            return Ok((group_index, handler_index));
        }
    }
    let item = hooks.entry(hook.event).or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new()));
    match item {
        Item::ArrayOfTables(list) => {
            let mut handler = Table::new();
            set_handler(&mut handler, hook, command);
            let mut handlers = ArrayOfTables::new();
            handlers.push(handler);
            let mut group = Table::new();
            if let Some(matcher) = hook.matcher {
                group.insert("matcher", Item::Value(Value::from(matcher)));
            }
            group.insert("hooks", Item::ArrayOfTables(handlers));
            list.push(group);
            Ok((list.len() - 1, 0))
        }
        Item::Value(Value::Array(list)) => {
            let mut handler = InlineTable::new();
            set_handler(&mut handler, hook, command);
            let mut group = InlineTable::new();
            if let Some(matcher) = hook.matcher {
                group.insert("matcher", Value::from(matcher));
            }
            group.insert("hooks", Value::Array([Value::InlineTable(handler)].into_iter().collect()));
            list.push(Value::InlineTable(group));
            Ok((list.len() - 1, 0))
        }
        _ => Err(not_a_table(&format!("hooks.{}", hook.event))),
    }
}

/// Takes Beckon's handlers out of the groups for `hook`'s event, and the groups left with
/// none; gives the commands they ran.
fn take_hooks(hooks: &mut dyn TableLike, hook: &Hook) -> Vec<String> {
    let mut taken = Vec::new();
    let mut keep_handler = |handler: &dyn TableLike| match our_command(handler) {
        Some(command) => {
            taken.push(command);
            false
        }
        None => true,
    };
    let has_handlers = |group: &dyn TableLike| match group.get("hooks") {
        Some(Item::ArrayOfTables(list)) => !list.is_empty(),
        Some(Item::Value(Value::Array(list))) => !list.is_empty(),
        _ => true,
    };
    match hooks.get_mut(hook.event) {
        Some(Item::ArrayOfTables(groups)) => {
            for group in groups.iter_mut() {
                retain_handlers(group, &mut keep_handler);
            }
            groups.retain(|group| has_handlers(group));
        }
        Some(Item::Value(Value::Array(groups))) => {
            for group in groups.iter_mut().filter_map(Value::as_inline_table_mut) {
                retain_handlers(group, &mut keep_handler);
            }
            groups.retain(|group| group.as_inline_table().is_none_or(|group| has_handlers(group)));
        }
        _ => {}
    }
    taken
}

fn retain_handlers(group: &mut dyn TableLike, keep: &mut impl FnMut(&dyn TableLike) -> bool) {
    match group.get_mut("hooks") {
        Some(Item::ArrayOfTables(list)) => list.retain(|handler| keep(handler)),
        Some(Item::Value(Value::Array(list))) => {
            list.retain(|handler| handler.as_inline_table().is_none_or(|handler| keep(handler)))
        }
        _ => {}
    }
}

/// Removes `key` from `parent` when it is an implicit table with nothing in it, or an empty
/// array (of tables): what Beckon made and emptied, never a table the person wrote.
fn drop_if_empty_like(parent: &mut dyn TableLike, key: &str) {
    let empty = match parent.get(key) {
        Some(Item::Table(table)) => table.is_implicit() && table.is_empty(),
        Some(Item::ArrayOfTables(list)) => list.is_empty(),
        Some(Item::Value(Value::Array(list))) => list.is_empty(),
        _ => false,
    };
    if empty {
        parent.remove(key);
    }
}

fn drop_if_empty(root: &mut Table, key: &str) {
    drop_if_empty_like(root, key);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connect::State;

    const FILE: &str = "/home/ada/.codex/config.toml";

    fn beckon() -> Invocation {
        Invocation::new("/usr/bin/beckon")
    }

    fn theirs() -> &'static str {
        "# my Codex\nmodel = \"gpt-5\" # the usual\n\n[mcp_servers.github]\ncommand = \"gh-mcp\"\n\n\
         [[hooks.PermissionRequest]]\nmatcher = \"Bash\"\n[[hooks.PermissionRequest.hooks]]\ntype = \"command\"\n\
         command = \"lint-guard\"\n\n[projects.\"/home/ada/shop\"]\ntrust_level = \"trusted\" # yes\n"
    }

    fn doc(text: &str) -> DocumentMut {
        text.parse().unwrap()
    }

    fn state(config: &DocumentMut, beckon: &Invocation, file: Option<&str>) -> State {
        if !connect(&mut config.clone(), beckon, file).unwrap() {
            State::Connected
        } else if disconnect(&mut config.clone(), beckon, file) {
            State::OutOfDate
        } else {
            State::NotConnected
        }
    }

    #[test]
    fn the_trust_hash_is_the_one_codex_computes() {
        // As `codex app-server` hooks/list reports it for this hook.
        assert_eq!(
            trusted_hash(&HOOKS[0], "/usr/bin/beckon hook codex"),
            "sha256:b40abd85be5536a971d936affb6b6333509b0ef553587d2ad0302149a2b29925"
        );
        assert_eq!(
            trusted_hash(&HOOKS[1], "/usr/bin/beckon hook codex"),
            "sha256:82044360e352aba2c3b68df648c86c98089ea948a1241dc6487da1490d463959"
        );
    }

    #[test]
    fn adding_keeps_everything_else_trusts_the_hook_and_is_idempotent() {
        let mut config = doc(theirs());
        assert!(connect(&mut config, &beckon(), Some(FILE)).unwrap());
        let text = config.to_string();
        assert!(text.starts_with("# my Codex\nmodel = \"gpt-5\" # the usual\n"), "{text}");
        assert!(text.contains("trust_level = \"trusted\" # yes\n"), "{text}");
        let value: toml_edit::DocumentMut = text.parse().unwrap();
        assert_eq!(value["mcp_servers"]["github"]["command"].as_str(), Some("gh-mcp"));
        let server = &value["mcp_servers"]["beckon"];
        assert_eq!(server["command"].as_str(), Some(beckon().program()));
        assert_eq!(server["args"].as_array().unwrap().get(0).unwrap().as_str(), Some("mcp"));
        assert_eq!(server["default_tools_approval_mode"].as_str(), Some("approve"));
        let groups = value["hooks"]["PermissionRequest"].as_array_of_tables().unwrap();
        assert_eq!(groups.len(), 2);
        let ours = groups.get(1).unwrap();
        assert_eq!(ours["matcher"].as_str(), Some(".*"));
        let handler = ours["hooks"].as_array_of_tables().unwrap().get(0).unwrap();
        assert_eq!(handler["command"].as_str(), Some("/usr/bin/beckon hook codex"));
        assert_eq!(handler["timeout"].as_integer(), Some(86_400));
        let key = format!("{FILE}:permission_request:1:0");
        assert_eq!(
            value["hooks"]["state"][key.as_str()]["trusted_hash"].as_str(),
            Some(trusted_hash(&HOOKS[0], &hook_command(&beckon())).as_str())
        );
        assert!(!connect(&mut config, &beckon(), Some(FILE)).unwrap(), "a second add changes nothing");
        assert_eq!(config.to_string(), text);
        assert_eq!(state(&config, &beckon(), Some(FILE)), State::Connected);
    }

    #[test]
    fn removing_gives_back_the_original_text() {
        for original in [theirs(), "", "model = \"o3\"\n", "[hooks]\n# mine\n"] {
            let mut config = doc(original);
            assert_eq!(state(&config, &beckon(), Some(FILE)), State::NotConnected);
            connect(&mut config, &beckon(), Some(FILE)).unwrap();
            assert!(disconnect(&mut config, &beckon(), Some(FILE)));
            assert_eq!(config.to_string(), original);
            assert!(!disconnect(&mut config, &beckon(), Some(FILE)));
        }
    }

    #[test]
    fn another_beckon_is_out_of_date_and_replaced_in_place() {
        let mut config = doc(theirs());
        connect(&mut config, &Invocation::new("/opt/old beckon/beckon"), Some(FILE)).unwrap();
        assert!(config.to_string().contains("command = \"'/opt/old beckon/beckon' hook codex\""));
        assert_eq!(state(&config, &beckon(), Some(FILE)), State::OutOfDate);
        connect(&mut config, &beckon(), Some(FILE)).unwrap();
        assert_eq!(state(&config, &beckon(), Some(FILE)), State::Connected);
        let text = config.to_string();
        assert_eq!(text.matches("hook codex").count(), HOOKS.len(), "{text}");
        assert_eq!(text.matches("trusted_hash").count(), HOOKS.len(), "{text}");
        disconnect(&mut config, &beckon(), Some(FILE));
        assert_eq!(config.to_string(), theirs());
    }

    #[test]
    fn without_a_trust_file_no_record_is_written_and_inline_groups_are_kept_inline() {
        let original = "[hooks]\nPermissionRequest = [{ matcher = \"Bash\", hooks = [{ type = \"command\", command = \"x\" }] }]\n";
        let mut config = doc(original);
        connect(&mut config, &beckon(), None).unwrap();
        let text = config.to_string();
        assert!(!text.contains("trusted_hash"), "{text}");
        assert!(
            text.contains(
                "{ matcher = \".*\", hooks = [{ type = \"command\", command = \"/usr/bin/beckon hook codex\""
            ),
            "{text}"
        );
        assert!(text.contains("/usr/bin/beckon hook codex"), "{text}");
        assert_eq!(state(&config, &beckon(), None), State::Connected);
        disconnect(&mut config, &beckon(), None);
        assert_eq!(config.to_string(), original);
    }

    #[test]
    fn a_hook_in_another_file_is_trusted_in_the_users_file() {
        let project = "/home/ada/shop/.codex/config.toml";
        let mut theirs = doc("[[hooks.PermissionRequest]]\nmatcher = \"Bash\"\nhooks = []\n");
        let (_, places) = add(&mut theirs, &beckon()).unwrap();
        let command = "/usr/bin/beckon hook codex".to_owned();
        assert_eq!(
            places,
            vec![
                HookPlace { hook: HOOKS[0], group: 1, handler: 0, command: command.clone() },
                HookPlace { hook: HOOKS[1], group: 0, handler: 0, command: command.clone() },
            ]
        );
        let original = "model = \"o3\"\n";
        let mut user = doc(original);
        assert!(trust(&mut user, project, &places).unwrap());
        for (key, hook) in [("permission_request:1:0", &HOOKS[0]), ("user_prompt_submit:0:0", &HOOKS[1])] {
            let key = format!("{project}:{key}");
            assert_eq!(
                user["hooks"]["state"][key.as_str()]["trusted_hash"].as_str(),
                Some(trusted_hash(hook, &command).as_str())
            );
        }
        assert!(!trust(&mut user, project, &places).unwrap());
        let (_, commands) = remove(&mut theirs);
        assert!(untrust(&mut user, project, &commands));
        assert_eq!(user.to_string(), original);
    }

    #[test]
    fn a_data_folder_goes_into_the_server_and_the_hook_and_comes_out_with_them() {
        let moved = Invocation::new("/usr/bin/beckon").with_data_dir("/srv/beckon");
        let mut config = doc(theirs());
        connect(&mut config, &moved, Some(FILE)).unwrap();
        let text = config.to_string();
        assert!(text.contains("args = [\"--data-dir\", \"/srv/beckon\", \"mcp\"]"), "{text}");
        assert!(text.contains("command = \"/usr/bin/beckon --data-dir /srv/beckon hook codex\""), "{text}");
        assert_eq!(state(&config, &moved, Some(FILE)), State::Connected);
        assert_eq!(state(&config, &beckon(), Some(FILE)), State::OutOfDate, "the default folder is another Beckon");
        assert!(disconnect(&mut config, &beckon(), Some(FILE)));
        assert_eq!(config.to_string(), theirs(), "taken out whatever folder it names");
    }

    #[test]
    fn a_key_that_is_not_a_table_is_refused() {
        let mut config = doc("mcp_servers = 3\n");
        assert_eq!(connect(&mut config, &beckon(), None), Err(NotATable("mcp_servers".into())));
        let mut server_named_beckon = doc("[mcp_servers.beckon]\ncommand = \"other\"\nargs = [\"serve\"]\n");
        assert!(!disconnect(&mut server_named_beckon, &beckon(), None), "a server named beckon that is not ours stays");
    }
}
