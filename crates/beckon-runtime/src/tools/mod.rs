//! The tools agents may call, besides `ask_user_question` (which the executor intercepts).

mod budget;
mod files;
mod workspace;

use serde_json::json;

pub use files::{list_files, list_files_spec, read_file, read_file_spec, write_file, write_file_spec};
pub use workspace::{Workspace, WorkspaceError};

use crate::providers::ToolSpec;
use beckon_core::limits::{HEADER_MAX_CHARS, MAX_OPTIONS, MAX_QUESTIONS, MIN_OPTIONS};

/// The `ask_user_question` tool as the model sees it: Claude Code's AskUserQuestion schema.
pub fn ask_user_question_spec() -> ToolSpec {
    ToolSpec {
        name: beckon_core::conversation::ASK_USER_QUESTION.to_owned(),
        description: format!(
            "Ask the person you work for when you need their decision to go on: when there are several \
             valid approaches and their preference matters, or when something is ambiguous. Your work \
             stops until they answer, which may take minutes or days; their answer comes back as this \
             tool's result. Ask {MAX_QUESTIONS} questions at most in one call, each with {MIN_OPTIONS} to \
             {MAX_OPTIONS} options with short, distinct labels and a description of what choosing each \
             means; a header of at most {HEADER_MAX_CHARS} characters labels each question. The person \
             can always write their own \"Other\" answer and add a comment, so do not add an \"Other\" \
             option yourself. Set multiSelect when several options may be chosen. The result is JSON: \
             {{\"outcome\": \"answered\", \"answers\": {{\"<question>\": \"<label(s) or their text>\"}}}}, \
             or an outcome of declined, expired or cancelled with a message saying what to do."
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
                        "required": ["question", "header", "options", "multiSelect"],
                        "additionalProperties": false,
                        "properties": {
                            "question": {"type": "string", "description": "The complete question, ending with a question mark."},
                            "header": {"type": "string", "description": "A very short label for the question (at most 12 characters)."},
                            "options": {
                                "type": "array",
                                "minItems": MIN_OPTIONS,
                                "maxItems": MAX_OPTIONS,
                                "items": {
                                    "type": "object",
                                    "required": ["label", "description"],
                                    "additionalProperties": false,
                                    "properties": {
                                        "label": {"type": "string", "description": "What the person picks: 1 to 5 words."},
                                        "description": {"type": "string", "description": "What choosing this option means."}
                                    }
                                }
                            },
                            "multiSelect": {"type": "boolean", "description": "Whether several options may be chosen."}
                        }
                    }
                }
            }
        }),
    }
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
