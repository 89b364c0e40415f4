//! What the scripted model says next: a text, or one tool call.

use serde_json::Value;

/// What the model says next.
#[derive(Debug, Clone)]
pub enum Turn {
    /// Plain text; the turn ends.
    Text(String),
    /// One tool call: its id (Gemini's calls carry none, so there it is not sent), the tool's
    /// name (and, in the Responses API, the namespace it was offered in, for an MCP tool Codex
    /// groups), and its arguments.
    Call { id: String, name: String, namespace: Option<String>, arguments: Value },
}

impl Turn {
    /// Plain text.
    pub fn text(text: &str) -> Turn {
        Turn::Text(text.to_owned())
    }

    /// A call of `name` with `arguments`, under `id`.
    pub fn call(id: &str, name: &str, arguments: Value) -> Turn {
        Turn::Call { id: id.to_owned(), name: name.to_owned(), namespace: None, arguments }
    }

    /// A call of `name` with `arguments` that carries no id, as Gemini's calls do.
    pub fn function(name: &str, arguments: Value) -> Turn {
        Turn::call("", name, arguments)
    }
}
