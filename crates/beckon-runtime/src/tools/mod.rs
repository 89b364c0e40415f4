//! The tools agents may call, besides `ask_user_question` (which the executor intercepts).

mod budget;
mod files;
mod workspace;

use serde_json::json;

pub use files::{list_files, list_files_spec, read_file, read_file_spec, write_file, write_file_spec};
pub use workspace::{Workspace, WorkspaceError};

use crate::providers::ToolSpec;
use beckon_core::limits::{HEADER_MAX_CHARS, MAX_OPTIONS, MAX_QUESTIONS, MIN_OPTIONS, PREVIEW_MAX_BYTES};

/// The `ask_user_question` tool as the model sees it: Claude Code's AskUserQuestion schema
/// (2.1.332: options with an optional `preview`, and the optional top-level `answers`,
/// `annotations` and `metadata`), with the header's limit in the schema, and one extension
/// that keeps every Claude Code input valid: an item may give a `schema` for a free-form
/// answer instead of `options`.
pub fn ask_user_question_spec() -> ToolSpec {
    ToolSpec {
        name: beckon_core::conversation::ASK_USER_QUESTION.to_owned(),
        description: format!(
            "Ask the person you work for when you need their decision to go on: when there are several \
             valid approaches and their preference matters, or when something is ambiguous. Your work \
             stops until they answer, which may take minutes or days; their answer comes back as this \
             tool's result. Ask {MAX_QUESTIONS} questions at most in one call, each with {MIN_OPTIONS} to \
             {MAX_OPTIONS} options with short, distinct labels and a description of what choosing each \
             means; a header of at most {HEADER_MAX_CHARS} characters labels each question. An option may \
             carry a preview (Markdown: a mockup, a code snippet, a comparison table) shown when the person \
             looks at it. The person can always write their own \"Other\" answer and add a comment, so do \
             not add an \"Other\" option yourself. Set multiSelect when several options may be chosen. For \
             an answer that is a value rather than a choice (a number, a date, a name), give a schema \
             instead of options. The result is JSON, as Claude Code's AskUserQuestion returns it plus an \
             outcome: {{\"outcome\": \"answered\", \"questions\": [...], \"answers\": {{\"<question>\": \
             \"<label(s) comma-joined, or their own text>\"}}, \"annotations\": {{\"<question>\": \
             {{\"notes\": \"<their comment>\", \"preview\": \"<the chosen option's preview>\"}}}}}}, or \
             an outcome of declined, expired or cancelled with a message saying what to do."
        ),
        input_schema: json!({
            "type": "object",
            "required": ["questions"],
            "additionalProperties": false,
            "properties": {
                "questions": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": MAX_QUESTIONS,
                    "description": "The questions to ask, 1 to 4.",
                    "items": {
                        "type": "object",
                        "required": ["question", "header"],
                        "additionalProperties": false,
                        "properties": {
                            "question": {"type": "string", "description": "The complete question, ending with a question mark."},
                            "header": {
                                "type": "string",
                                "maxLength": HEADER_MAX_CHARS,
                                "description": "A very short label shown as a chip (at most 12 characters), such as \"Auth method\"."
                            },
                            "options": {
                                "type": "array",
                                "minItems": MIN_OPTIONS,
                                "maxItems": MAX_OPTIONS,
                                "description": "2 to 4 distinct choices; an \"Other\" answer is always offered as well. Give options and multiSelect, or a schema instead.",
                                "items": {
                                    "type": "object",
                                    "required": ["label", "description"],
                                    "additionalProperties": false,
                                    "properties": {
                                        "label": {"type": "string", "description": "What the person picks: 1 to 5 words."},
                                        "description": {"type": "string", "description": "What choosing this option means."},
                                        "preview": {
                                            "type": "string",
                                            "maxLength": PREVIEW_MAX_BYTES,
                                            "description": "Optional Markdown shown when this option is focused or chosen: a mockup, a code snippet, a comparison."
                                        }
                                    }
                                }
                            },
                            "multiSelect": {"type": "boolean", "description": "Whether several options may be chosen."},
                            "schema": free_form_schema()
                        }
                    }
                },
                "answers": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                    "description": "Leave out: the person's answers come back in the result."
                },
                "annotations": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "properties": {"preview": {"type": "string"}, "notes": {"type": "string"}}
                    },
                    "description": "Leave out: the person's notes come back in the result."
                },
                "metadata": {
                    "type": "object",
                    "properties": {"source": {"type": "string", "description": "Where the question comes from, for tracking."}},
                    "description": "Optional tracking data, not shown to the person; sent back as given."
                }
            }
        }),
    }
}

/// The free-form extension: one primitive field, as MCP elicitation's `requestedSchema` allows.
fn free_form_schema() -> serde_json::Value {
    json!({
        "type": "object",
        "description": "Instead of options, for an answer that is a value: {\"type\": \"string\"} (with minLength, maxLength, pattern, format: email, uri, date or date-time), {\"type\": \"string\", \"enum\": [...]}, {\"type\": \"number\"} or \"integer\" (with minimum, maximum), or {\"type\": \"boolean\"}; title, description and default are allowed on each.",
        "required": ["type"],
        "properties": {
            "type": {"type": "string", "enum": ["string", "number", "integer", "boolean"]},
            "title": {"type": "string"},
            "description": {"type": "string"},
            "default": {},
            "minLength": {"type": "integer", "minimum": 0},
            "maxLength": {"type": "integer", "minimum": 0},
            "pattern": {"type": "string"},
            "format": {"type": "string", "enum": ["email", "uri", "date", "date-time"]},
            "enum": {"type": "array", "items": {"type": "string"}},
            "enumNames": {"type": "array", "items": {"type": "string"}},
            "minimum": {"type": "number"},
            "maximum": {"type": "number"}
        }
    })
}

/// The `spawn_agent` tool: runs another agent as a sub-agent and returns its final answer.
pub fn spawn_agent_spec(agents: &[(String, String)]) -> ToolSpec {
    let list: Vec<String> = agents.iter().map(|(name, description)| format!("{name}: {description}")).collect();
    ToolSpec {
        name: "spawn_agent".into(),
        description: format!(
            "Hand a self-contained task to another agent and get its final answer back as this tool's result. \
             Its questions to the person go to the same inbox. Available agents: {}",
            if list.is_empty() { "none".to_owned() } else { list.join("; ") }
        ),
        input_schema: json!({
            "type": "object",
            "required": ["agent", "task"],
            "additionalProperties": false,
            "properties": {
                "agent": {"type": "string", "description": "The agent's name."},
                "task": {"type": "string", "description": "Everything the agent needs to know to do the task."}
            }
        }),
    }
}
