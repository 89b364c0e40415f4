//! The JSON body of a Messages API request, borrowed from the [`LlmRequest`].

use serde::Serialize;
use serde_json::Value;

use crate::providers::{Block, LlmRequest, Turn};

/// `POST /v1/messages`, streamed.
#[derive(Debug, Serialize)]
pub(super) struct MessagesBody<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "str::is_empty")]
    system: &'a str,
    messages: Vec<Message<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    stream: bool,
}

#[derive(Debug, Serialize)]
struct Message<'a> {
    role: &'static str,
    content: Vec<Content<'a>>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Content<'a> {
    Text { text: &'a str },
    ToolUse { id: &'a str, name: &'a str, input: &'a Value },
    ToolResult { tool_use_id: &'a str, content: &'a str, is_error: bool },
}

#[derive(Debug, Serialize)]
struct Tool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
}

impl<'a> MessagesBody<'a> {
    /// The body for `request`.
    pub(super) fn new(request: &'a LlmRequest) -> Self {
        Self {
            model: &request.model,
            max_tokens: request.max_tokens,
            system: &request.system,
            messages: request.turns.iter().map(Message::from_turn).collect(),
            tools: request
                .tools
                .iter()
                .map(|tool| Tool { name: &tool.name, description: &tool.description, input_schema: &tool.input_schema })
                .collect(),
            stream: true,
        }
    }
}

impl<'a> Message<'a> {
    fn from_turn(turn: &'a Turn) -> Self {
        let (role, blocks) = match turn {
            Turn::User(blocks) => ("user", blocks),
            Turn::Assistant(blocks) => ("assistant", blocks),
        };
        let content = blocks
            .iter()
            // The API refuses empty text blocks; an empty text says nothing anyway.
            .filter(|block| !matches!(block, Block::Text(text) if text.is_empty()))
            .map(|block| match block {
                Block::Text(text) => Content::Text { text },
                Block::ToolUse(call) => Content::ToolUse { id: &call.id, name: &call.name, input: &call.input },
                Block::ToolResult(result) => Content::ToolResult {
                    tool_use_id: &result.tool_use_id,
                    content: &result.content,
                    is_error: result.is_error,
                },
            })
            .collect();
        Self { role, content }
    }
}

#[cfg(test)]
mod tests {
    use beckon_core::conversation::{ToolCall, ToolResult};
    use serde_json::json;

    use super::*;
    use crate::providers::ToolSpec;

    #[test]
    fn turns_and_tools_take_the_api_shape() {
        let request = LlmRequest {
            model: "claude-x".into(),
            system: "Be brief.".into(),
            turns: vec![
                Turn::User(vec![Block::Text("List files".into())]),
                Turn::Assistant(vec![
                    Block::Text(String::new()),
                    Block::Text("Looking.".into()),
                    Block::ToolUse(ToolCall { id: "tu_1".into(), name: "ls".into(), input: json!({"path": "."}) }),
                ]),
                Turn::User(vec![Block::ToolResult(ToolResult::error("tu_1", "denied"))]),
            ],
            tools: vec![ToolSpec {
                name: "ls".into(),
                description: "Lists.".into(),
                input_schema: json!({"type": "object"}),
            }],
            max_tokens: 1024,
        };
        assert_eq!(
            serde_json::to_value(MessagesBody::new(&request)).unwrap(),
            json!({
                "model": "claude-x",
                "max_tokens": 1024,
                "system": "Be brief.",
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "List files"}]},
                    {"role": "assistant", "content": [
                        {"type": "text", "text": "Looking."},
                        {"type": "tool_use", "id": "tu_1", "name": "ls", "input": {"path": "."}}
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "tu_1", "content": "denied", "is_error": true}
                    ]}
                ],
                "tools": [{"name": "ls", "description": "Lists.", "input_schema": {"type": "object"}}],
                "stream": true
            })
        );
    }

    #[test]
    fn no_tools_and_no_system_are_left_out() {
        let request = LlmRequest {
            model: "m".into(),
            system: String::new(),
            turns: vec![Turn::User(vec![Block::Text("hi".into())])],
            tools: vec![],
            max_tokens: 10,
        };
        let body = serde_json::to_value(MessagesBody::new(&request)).unwrap();
        assert!(body.get("tools").is_none());
        assert!(body.get("system").is_none());
    }
}
