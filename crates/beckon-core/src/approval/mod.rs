//! Approvals: a tool call waiting for the person's permission (Claude Code's permission
//! prompt), put to the person as a question whose options are "Allow", "Allow always" (only
//! when the caller offered rules to remember) and "Deny".
//!
//! Everything here comes from a model (the tool's name and input) or from the program that
//! runs it (the suggestions): it is bounded, checked for shape, and shown only as text — the
//! preview escapes control characters and fences code so Markdown cannot turn it into links,
//! images or HTML.

mod decision;
mod preview;
#[cfg(test)]
mod tests;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::json_reader::{object, type_name};
use crate::problem::Problems;
use crate::text::{self, Lines};

pub use decision::PermissionDecision;

/// The option that allows the call once.
pub const ALLOW: &str = "Allow";
/// The option that allows it and remembers the offered rules.
pub const ALLOW_ALWAYS: &str = "Allow always";
/// The option that refuses it, with the comment as the message to the model.
pub const DENY: &str = "Deny";

/// Longest tool name, in bytes.
pub const TOOL_NAME_MAX_BYTES: usize = 200;
/// Largest tool input, as compact JSON, in bytes.
pub const INPUT_MAX_BYTES: usize = 64 * 1024;
/// Most permission suggestions kept.
pub const MAX_SUGGESTIONS: usize = 16;
/// Largest set of suggestions, as compact JSON, in bytes.
pub const SUGGESTIONS_MAX_BYTES: usize = 16 * 1024;
/// Longest project folder and session id, in bytes.
pub const PLACE_MAX_BYTES: usize = 4 * 1024;

const FIELDS: [&str; 6] = ["tool_name", "input", "suggestions", "project", "session", "by"];
/// Longest name of who asks, in bytes.
pub const BY_MAX_BYTES: usize = 40;

/// A tool call waiting for permission, and where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Approval {
    /// The tool, as the agent names it (`Bash`, `Edit`, `mcp__github__create_issue`).
    pub tool_name: String,
    /// The call's input, as the model wrote it.
    pub input: Map<String, Value>,
    /// What "Allow always" would remember (Claude Code's `permission_suggestions`, kept as
    /// given and handed back unchanged). "Allow always" is offered only when there are some.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<Value>,
    /// The project folder the agent works in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The agent's own session id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Who asks for the call, as the question names it (`Codex`, `Copilot`); Claude Code when
    /// absent. An agent other than Claude Code takes no edited input back, so nothing is
    /// editable then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

impl Approval {
    /// Reads and checks an approval given as JSON
    /// (`{tool_name, input, suggestions?, project?, session?, by?}`), reporting every problem with
    /// its path under `path`.
    pub fn parse(value: &Value, path: &str) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let Some(fields) = object(value, path, &FIELDS, &mut problems) else { return Err(problems) };
        let tool_name = fields.required_string("tool_name", &mut problems).unwrap_or_default();
        if fields.has("tool_name") {
            text::check(&fields.path("tool_name"), tool_name, Lines::Single, TOOL_NAME_MAX_BYTES, &mut problems);
        }
        let input = match fields.get("input") {
            None => Map::new(),
            Some(Value::Object(map)) => {
                let size = json_len(&Value::Object(map.clone()));
                if size > INPUT_MAX_BYTES {
                    problems.push(
                        fields.path("input"),
                        format!("is {size} bytes as JSON; the limit is {INPUT_MAX_BYTES} bytes"),
                    );
                }
                map.clone()
            }
            Some(other) => {
                problems.push(fields.path("input"), format!("must be an object, not {}", type_name(other)));
                Map::new()
            }
        };
        let suggestions = match fields.get("suggestions") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => {
                if items.len() > MAX_SUGGESTIONS || json_len(&Value::Array(items.clone())) > SUGGESTIONS_MAX_BYTES {
                    problems.push(
                        fields.path("suggestions"),
                        format!("may hold at most {MAX_SUGGESTIONS} entries and {SUGGESTIONS_MAX_BYTES} bytes"),
                    );
                }
                for (i, item) in items.iter().enumerate().filter(|(_, item)| !item.is_object()) {
                    problems.push(
                        crate::problem::index(&fields.path("suggestions"), i),
                        format!("must be an object, not {}", type_name(item)),
                    );
                }
                items.clone()
            }
            Some(other) => {
                problems.push(fields.path("suggestions"), format!("must be an array, not {}", type_name(other)));
                Vec::new()
            }
        };
        let mut place = |key: &str| {
            let value = fields.string(key, &mut problems)?;
            text::check(&fields.path(key), value, Lines::Single, PLACE_MAX_BYTES, &mut problems);
            Some(value.to_owned())
        };
        let project = place("project");
        let session = place("session");
        let by = fields.string("by", &mut problems).map(str::to_owned);
        if let Some(name) = &by {
            text::check(&fields.path("by"), name, Lines::Single, BY_MAX_BYTES, &mut problems);
        }
        problems.into_result(Approval { tool_name: tool_name.to_owned(), input, suggestions, project, session, by })
    }

    /// Whether "Allow always" can be offered.
    pub fn offers_always(&self) -> bool {
        !self.suggestions.is_empty()
    }

    /// The options the person chooses from, in order.
    pub fn labels(&self) -> Vec<&'static str> {
        if self.offers_always() { vec![ALLOW, ALLOW_ALWAYS, DENY] } else { vec![ALLOW, DENY] }
    }

    /// The input field the person may edit before allowing: a Bash command or a written
    /// file's content.
    pub fn editable_field(&self) -> Option<&'static str> {
        if self.by.is_some() {
            return None;
        }
        let field = match self.tool_name.as_str() {
            "Bash" => "command",
            "Write" => "content",
            _ => return None,
        };
        self.input.get(field).and_then(Value::as_str).map(|_| field)
    }

    /// The approval as JSON.
    pub fn to_value(&self) -> Value {
        // Serialising plain data into a Value cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The length of `value` as compact JSON.
fn json_len(value: &Value) -> usize {
    serde_json::to_string(value).map(|json| json.len()).unwrap_or(usize::MAX)
}
