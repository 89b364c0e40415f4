//! What the person decided about an approval, and the checks on that answer.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ALLOW, ALLOW_ALWAYS, Approval, DENY, INPUT_MAX_BYTES};
use crate::answer::Answer;
use crate::problem::{Problems, join};

/// The message a refusal carries when the person wrote none.
pub const DEFAULT_DENIAL: &str = "The person denied this tool call.";

/// The decision, in the JSON Claude Code reads from a permission prompt tool and inside a
/// `PermissionRequest` hook's `decision`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "behavior", rename_all = "lowercase")]
pub enum PermissionDecision {
    /// Run the call, with this input (the original, or the person's edit).
    Allow {
        /// The input the tool runs with.
        #[serde(rename = "updatedInput")]
        updated_input: Map<String, Value>,
        /// The rules to remember ("Allow always"); empty for "Allow".
        #[serde(rename = "updatedPermissions", default, skip_serializing_if = "Vec::is_empty")]
        updated_permissions: Vec<Value>,
    },
    /// Do not run it; the message tells the model why.
    Deny {
        /// What the model is told.
        message: String,
    },
}

impl Approval {
    /// Checks an answer to this approval: exactly one of its options, no "Other" text, and an
    /// edited input (`value`, a string) only when allowing a call whose input may be edited.
    pub(crate) fn check_answer(&self, answer: &Answer, path: &str, problems: &mut Problems) {
        let labels = self.labels();
        if answer.other.is_some() {
            problems
                .push(join(path, "other"), format!("an approval takes one of {}, not other text", labels.join(", ")));
        }
        let choice = match answer.selected.as_slice() {
            [one] if labels.contains(&one.as_str()) => one.as_str(),
            _ => {
                problems.push(join(path, "selected"), format!("choose exactly one of {}", labels.join(", ")));
                return;
            }
        };
        let Some(value) = &answer.value else { return };
        let value_path = join(path, "value");
        match (choice, self.editable_field(), value) {
            (DENY, _, _) => problems.push(value_path, "an edited input goes with Allow, not Deny"),
            (_, None, _) => problems.push(
                value_path,
                format!("the input of {} cannot be edited here; allow or deny it as it is", self.tool_name),
            ),
            (_, Some(_), Value::String(text)) if text.len() > INPUT_MAX_BYTES => {
                problems.push(value_path, format!("is {} bytes; the limit is {INPUT_MAX_BYTES} bytes", text.len()))
            }
            (_, Some(_), Value::String(text)) if text.trim().is_empty() => {
                problems.push(value_path, "must not be empty; deny the call instead")
            }
            (_, Some(_), Value::String(_)) => {}
            (_, Some(field), other) => problems.push(
                value_path,
                format!("must be the new {field} as a string, not {}", crate::json_reader::type_name(other)),
            ),
        }
    }

    /// Whether `answer` lets the call run ("Allow" or "Allow always").
    pub fn grants(answer: &Answer) -> bool {
        answer.selected.iter().any(|label| label == ALLOW || label == ALLOW_ALWAYS)
    }

    /// The decision an answer to this approval stands for. The answer must have passed
    /// [`check_answer`](Self::check_answer) (every stored answer has).
    pub fn decision(&self, answer: &Answer) -> PermissionDecision {
        let choice = answer.selected.first().map(String::as_str).unwrap_or(DENY);
        if choice != ALLOW && choice != ALLOW_ALWAYS {
            let message = answer.comment.as_deref().map(str::trim).filter(|c| !c.is_empty());
            return PermissionDecision::Deny { message: message.unwrap_or(DEFAULT_DENIAL).to_owned() };
        }
        let mut updated_input = self.input.clone();
        if let (Some(field), Some(Value::String(text))) = (self.editable_field(), &answer.value) {
            updated_input.insert(field.to_owned(), Value::String(text.clone()));
        }
        let updated_permissions = if choice == ALLOW_ALWAYS { self.suggestions.clone() } else { Vec::new() };
        PermissionDecision::Allow { updated_input, updated_permissions }
    }
}

impl PermissionDecision {
    /// Whether the call may run.
    pub fn allows(&self) -> bool {
        matches!(self, PermissionDecision::Allow { .. })
    }

    /// The decision as JSON.
    pub fn to_value(&self) -> Value {
        // Serialising plain data into a Value cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
