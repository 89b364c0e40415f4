//! What the person decided about an approval, and the checks on that answer.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Approval, ApprovalChoice, INPUT_MAX_BYTES};
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
        let choices = self.choices();
        let offered = || choices.iter().map(|choice| choice.label()).collect::<Vec<_>>().join(", ");
        if answer.other.is_some() {
            problems.push(join(path, "other"), format!("an approval takes one of {}, not other text", offered()));
        }
        let choice = match ApprovalChoice::of(answer) {
            Some(choice) if choices.contains(&choice) => choice,
            _ => {
                problems.push(join(path, "selected"), format!("choose exactly one of {}", offered()));
                return;
            }
        };
        let Some(value) = &answer.value else { return };
        let value_path = join(path, "value");
        match (choice, self.editable_field(), value) {
            (ApprovalChoice::Deny, _, _) => problems.push(value_path, "an edited input goes with Allow, not Deny"),
            (ApprovalChoice::Allow | ApprovalChoice::AllowAlways, None, _) => problems.push(
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
                format!("must be the new {} as a string, not {}", field.key(), crate::json_reader::type_name(other)),
            ),
        }
    }

    /// Whether `answer` lets the call run: it selects "Allow" or "Allow always". Any such
    /// label counts, so an answer that was never checked is not taken for a refusal.
    pub fn grants(answer: &Answer) -> bool {
        answer.selected.iter().filter_map(|label| ApprovalChoice::named(label)).any(ApprovalChoice::grants)
    }

    /// The decision an answer to this approval stands for. The answer must have passed
    /// [`check_answer`](Self::check_answer) (every stored answer has); any other is a refusal.
    pub fn decision(&self, answer: &Answer) -> PermissionDecision {
        let updated_permissions = match ApprovalChoice::of(answer).unwrap_or(ApprovalChoice::Deny) {
            ApprovalChoice::Deny => {
                let message = answer.comment.as_deref().map(str::trim).filter(|c| !c.is_empty());
                return PermissionDecision::Deny { message: message.unwrap_or(DEFAULT_DENIAL).to_owned() };
            }
            ApprovalChoice::Allow => Vec::new(),
            ApprovalChoice::AllowAlways => self.suggestions.clone(),
        };
        let mut updated_input = self.input.clone();
        if let (Some(field), Some(Value::String(text))) = (self.editable_field(), &answer.value) {
            updated_input.insert(field.key().to_owned(), Value::String(text.clone()));
        }
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
