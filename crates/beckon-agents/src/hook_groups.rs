//! Hooks in the grouped JSON layout Claude Code and Gemini CLI share —
//! `"hooks": {"<Event>": [{"matcher"?, "hooks": [<handler>…]}]}` — as edits of JSON values:
//! Beckon's handler added in a group of its own, and taken out again with the groups and
//! containers it leaves empty, whoever wrote the rest.

use serde_json::{Map, Value, json};

use crate::json_file::{array, drop_if_empty, object};

/// Appends a group holding `handler` (under `matcher`, when the event takes one) to `event`'s
/// list in `settings`' `hooks`.
pub fn add(settings: &mut Value, event: &str, matcher: Option<&str>, handler: Value) {
    let hooks = object(object(settings).entry("hooks").or_insert_with(|| json!({})));
    let mut group = Map::new();
    if let Some(matcher) = matcher {
        group.insert("matcher".into(), json!(matcher));
    }
    group.insert("hooks".into(), json!([handler]));
    array(hooks.entry(event).or_insert_with(|| json!([]))).push(Value::Object(group));
}

/// Takes the handlers `is_ours` recognises out of `events` in `root`'s `hooks`, and the groups,
/// event lists and `hooks` they leave empty.
pub fn remove<'a>(
    root: &mut Map<String, Value>,
    events: impl IntoIterator<Item = &'a str>,
    is_ours: impl Fn(&Value) -> bool,
) {
    if let Some(Value::Object(hooks)) = root.get_mut("hooks") {
        for event in events {
            if let Some(Value::Array(groups)) = hooks.get_mut(event) {
                for group in groups.iter_mut() {
                    if let Some(Value::Array(list)) = group.get_mut("hooks") {
                        list.retain(|hook| !is_ours(hook));
                    }
                }
                groups.retain(|group| group.get("hooks").and_then(Value::as_array).is_none_or(|list| !list.is_empty()));
            }
            drop_if_empty(hooks, event);
        }
    }
    drop_if_empty(root, "hooks");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(hook: &Value) -> bool {
        hook["command"] == "beckon hook x"
    }

    #[test]
    fn a_handler_added_in_its_own_group_comes_out_leaving_the_others() {
        let theirs =
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "lint"}]}]}, "model": "m"});
        let mut settings = theirs.clone();
        add(&mut settings, "PreToolUse", Some("*"), json!({"command": "beckon hook x"}));
        add(&mut settings, "SessionEnd", None, json!({"command": "beckon hook x"}));
        assert_eq!(
            settings["hooks"]["PreToolUse"][1],
            json!({"matcher": "*", "hooks": [{"command": "beckon hook x"}]})
        );
        assert_eq!(settings["hooks"]["SessionEnd"], json!([{"hooks": [{"command": "beckon hook x"}]}]));
        remove(settings.as_object_mut().unwrap(), ["PreToolUse", "SessionEnd"], ours);
        assert_eq!(settings, theirs);
        let mut only = json!({});
        add(&mut only, "Stop", None, json!({"command": "beckon hook x"}));
        remove(only.as_object_mut().unwrap(), ["Stop"], ours);
        assert_eq!(only, json!({}), "emptied containers go");
    }
}
