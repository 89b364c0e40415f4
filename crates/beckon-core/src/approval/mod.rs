//! Approvals: a tool call waiting for the person's permission (Claude Code's permission
//! prompt), put to the person as a question whose options are "Allow", "Allow always" (only
//! when the caller offered rules to remember) and "Deny".
//!
//! What a front end may offer is decided here and sent with the approval: its `choices` and
//! its `editable_field` are written out with it, so no front end keeps its own copy of the
//! rules. They are outputs only: an agent cannot send them, and reading a stored approval
//! back ignores them and works them out again.
//!
//! Everything here comes from a model (the tool's name and input) or from the program that
//! runs it (the suggestions): it is bounded, checked for shape, and shown only as text — the
//! preview escapes control characters and fences code so Markdown cannot turn it into links,
//! images or HTML.

mod choice;
mod decision;
mod preview;
#[cfg(test)]
mod tests;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::json_reader::{object, type_name};
use crate::problem::Problems;
use crate::text::{self, Lines};

pub use choice::{ApprovalChoice, EditableField};
pub use decision::PermissionDecision;

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
/// The fields of a stored approval: what an agent sends, and what Beckon adds when it writes
/// one out ([`Approval::choices`] and [`Approval::editable_field`]).
const STORED_FIELDS: [&str; 8] =
    ["tool_name", "input", "suggestions", "project", "session", "by", "choices", "editable_field"];
/// Longest name of who asks, in bytes.
pub const BY_MAX_BYTES: usize = 40;

/// A tool call waiting for permission, and where it comes from.
///
/// It serialises to what the agent sent plus the `choices` it offers and its
/// `editable_field` (when there is one), which front ends show as they are.
#[derive(Debug, Clone, PartialEq)]
pub struct Approval {
    /// The tool, as the agent names it (`Bash`, `Edit`, `mcp__github__create_issue`).
    pub tool_name: String,
    /// The call's input, as the model wrote it.
    pub input: Map<String, Value>,
    /// What "Allow always" would remember (Claude Code's `permission_suggestions`, kept as
    /// given and handed back unchanged). "Allow always" is offered only when there are some.
    pub suggestions: Vec<Value>,
    /// The project folder the agent works in.
    pub project: Option<String>,
    /// The agent's own session id.
    pub session: Option<String>,
    /// Who asks for the call, as the question names it (`Codex`, `Copilot`); Claude Code when
    /// absent. An agent other than Claude Code takes no edited input back, so nothing is
    /// editable then.
    pub by: Option<String>,
}

impl Approval {
    /// Reads and checks an approval given as JSON
    /// (`{tool_name, input, suggestions?, project?, session?, by?}`), reporting every problem with
    /// its path under `path`.
    pub fn parse(value: &Value, path: &str) -> Result<Self, Problems> {
        Self::read(value, path, &FIELDS)
    }

    /// Reads an approval as Beckon wrote it: the same checks as [`parse`](Self::parse), and
    /// the fields Beckon adds are let through and ignored (they are worked out again).
    pub(crate) fn parse_stored(value: &Value, path: &str) -> Result<Self, Problems> {
        Self::read(value, path, &STORED_FIELDS)
    }

    fn read(value: &Value, path: &str, allowed: &[&str]) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let Some(fields) = object(value, path, allowed, &mut problems) else { return Err(problems) };
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
    pub fn choices(&self) -> Vec<ApprovalChoice> {
        if self.offers_always() {
            vec![ApprovalChoice::Allow, ApprovalChoice::AllowAlways, ApprovalChoice::Deny]
        } else {
            vec![ApprovalChoice::Allow, ApprovalChoice::Deny]
        }
    }

    /// The input field the person may edit before allowing: a Bash command or a written
    /// file's content, when the input has it as text. None when another agent than Claude
    /// Code asks: it takes no edited input back.
    pub fn editable_field(&self) -> Option<EditableField> {
        if self.by.is_some() {
            return None;
        }
        let field = match self.tool_name.as_str() {
            "Bash" => EditableField::Command,
            "Write" => EditableField::Content,
            _ => return None,
        };
        self.input.get(field.key()).and_then(Value::as_str).map(|_| field)
    }

    /// The approval as an agent sends it (what [`parse`](Self::parse) reads), without the
    /// choices and editable field Beckon adds when it writes one out.
    pub fn to_value(&self) -> Value {
        // Serialising plain data into a Value cannot fail.
        serde_json::to_value(AsSent(self)).unwrap_or(Value::Null)
    }
}

impl Serialize for Approval {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.write_sent(&mut map)?;
        map.serialize_entry("choices", &self.choices())?;
        if let Some(field) = self.editable_field() {
            map.serialize_entry("editable_field", &field)?;
        }
        map.end()
    }
}

/// An approval as an agent sends it, without what Beckon adds.
struct AsSent<'a>(&'a Approval);

impl Serialize for AsSent<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.0.write_sent(&mut map)?;
        map.end()
    }
}

impl Approval {
    /// Writes the fields an agent sends (those [`parse`](Self::parse) reads).
    fn write_sent<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("tool_name", &self.tool_name)?;
        map.serialize_entry("input", &self.input)?;
        if !self.suggestions.is_empty() {
            map.serialize_entry("suggestions", &self.suggestions)?;
        }
        for (key, value) in [("project", &self.project), ("session", &self.session), ("by", &self.by)] {
            if let Some(value) = value {
                map.serialize_entry(key, value)?;
            }
        }
        Ok(())
    }
}

/// The length of `value` as compact JSON.
fn json_len(value: &Value) -> usize {
    serde_json::to_string(value).map(|json| json.len()).unwrap_or(usize::MAX)
}
