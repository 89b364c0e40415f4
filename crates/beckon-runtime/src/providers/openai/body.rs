//! The JSON body of a chat-completions request, borrowed from the [`LlmRequest`].

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::providers::{Block, LlmRequest, Turn};

/// Which field carries the token limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TokenLimit {
    /// `max_completion_tokens`: OpenAI's own API, whose reasoning models (o-series, GPT-5)
    /// refuse `max_tokens`.
    MaxCompletionTokens,
    /// `max_tokens`: what every compatible server reads (Ollama, vLLM, llama.cpp, LM Studio);
    /// several of them silently ignore `max_completion_tokens`, which would lift the limit.
    MaxTokens,
}

/// `POST {base_url}/chat/completions`, streamed.
#[derive(Debug, Serialize)]
pub(super) struct ChatBody<'a> {
    model: &'a str,
    messages: Vec<ChatMessage<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum ChatMessage<'a> {
    System {
        content: &'a str,
    },
    User {
        content: String,
    },
    Assistant {
        /// `null` when the model only called tools, as the API expects.
        content: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCallOut<'a>>,
    },
    Tool {
        tool_call_id: &'a str,
        content: Cow<'a, str>,
    },
}

#[derive(Debug, Serialize)]
struct ToolCallOut<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: FunctionCall<'a>,
}

#[derive(Debug, Serialize)]
struct FunctionCall<'a> {
    name: &'a str,
    /// The input as a JSON string: the API's shape.
    arguments: String,
}

#[derive(Debug, Serialize)]
struct Tool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: FunctionSpec<'a>,
}

#[derive(Debug, Serialize)]
struct FunctionSpec<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

impl<'a> ChatBody<'a> {
    /// The body for `request`, its token limit in the field `limit` names.
    pub(super) fn new(request: &'a LlmRequest, limit: TokenLimit) -> Self {
        let mut messages = Vec::new();
        if !request.system.is_empty() {
            messages.push(ChatMessage::System { content: &request.system });
        }
        for turn in &request.turns {
            match turn {
                Turn::User(blocks) => push_user(blocks, &mut messages),
                Turn::Assistant(blocks) => push_assistant(blocks, &mut messages),
            }
        }
        let tools = request
            .tools
            .iter()
            .map(|tool| Tool {
                kind: "function",
                function: FunctionSpec {
                    name: &tool.name,
                    description: &tool.description,
                    parameters: &tool.input_schema,
                },
            })
            .collect();
        let (max_tokens, max_completion_tokens) = match limit {
            TokenLimit::MaxTokens => (Some(request.max_tokens), None),
            TokenLimit::MaxCompletionTokens => (None, Some(request.max_tokens)),
        };
        Self { model: &request.model, messages, tools, stream: true, max_tokens, max_completion_tokens }
    }
}

/// A user turn: its tool results first, each a `tool` message (the API wants them right after
/// the assistant message that made the calls), then its text as one user message.
fn push_user<'a>(blocks: &'a [Block], messages: &mut Vec<ChatMessage<'a>>) {
    let mut texts = Vec::new();
    for block in blocks {
        match block {
            Block::Text(text) => texts.push(text.as_str()),
            Block::ToolResult(result) => messages.push(ChatMessage::Tool {
                tool_call_id: &result.tool_use_id,
                // The API has no error flag; the model still needs to know the call failed.
                content: if result.is_error {
                    Cow::Owned(format!("Error: {}", result.content))
                } else {
                    Cow::Borrowed(&result.content)
                },
            }),
            // Not expected in a user turn; sent as a call all the same rather than dropped.
            Block::ToolUse(_) => push_assistant(std::slice::from_ref(block), messages),
        }
    }
    if !texts.is_empty() {
        messages.push(ChatMessage::User { content: texts.join("\n\n") });
    }
}

/// An assistant turn: one message with its text and its tool calls.
fn push_assistant<'a>(blocks: &'a [Block], messages: &mut Vec<ChatMessage<'a>>) {
    let mut texts = Vec::new();
    let mut tool_calls = Vec::new();
    for block in blocks {
        match block {
            Block::Text(text) if !text.is_empty() => texts.push(text.as_str()),
            Block::Text(_) => {}
            Block::ToolUse(call) => tool_calls.push(ToolCallOut {
                id: &call.id,
                kind: "function",
                function: FunctionCall { name: &call.name, arguments: call.input.to_string() },
            }),
            // Not expected in an assistant turn; sent as a result all the same rather than dropped.
            Block::ToolResult(_) => push_user(std::slice::from_ref(block), messages),
        }
    }
    let content = match (texts.is_empty(), tool_calls.is_empty()) {
        (false, _) => Some(texts.join("\n\n")),
        (true, false) => None,
        (true, true) => Some(String::new()),
    };
    messages.push(ChatMessage::Assistant { content, tool_calls });
}

#[cfg(test)]
mod tests {
    use beckon_core::conversation::{ToolCall, ToolResult};
    use serde_json::json;

    use super::*;
    use crate::providers::ToolSpec;

    fn request() -> LlmRequest {
        LlmRequest {
            model: "gpt-x".into(),
            system: "Be brief.".into(),
            turns: vec![
                Turn::User(vec![Block::Text("List files".into())]),
                Turn::Assistant(vec![
                    Block::ToolUse(ToolCall { id: "c1".into(), name: "ls".into(), input: json!({"path": "."}) }),
                    Block::ToolUse(ToolCall { id: "c2".into(), name: "pwd".into(), input: json!({}) }),
                ]),
                Turn::User(vec![
                    Block::ToolResult(ToolResult::ok("c1", "a.txt")),
                    Block::ToolResult(ToolResult::error("c2", "denied")),
                    Block::Text("And then?".into()),
                ]),
                Turn::Assistant(vec![Block::Text("Done.".into())]),
            ],
            tools: vec![ToolSpec {
                name: "ls".into(),
                description: "Lists.".into(),
                input_schema: json!({"type": "object"}),
            }],
            max_tokens: 512,
        }
    }

    #[test]
    fn turns_and_tools_take_the_api_shape() {
        assert_eq!(
            serde_json::to_value(ChatBody::new(&request(), TokenLimit::MaxTokens)).unwrap(),
            json!({
                "model": "gpt-x",
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "List files"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{\"path\":\".\"}"}},
                        {"id": "c2", "type": "function", "function": {"name": "pwd", "arguments": "{}"}}
                    ]},
                    {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
                    {"role": "tool", "tool_call_id": "c2", "content": "Error: denied"},
                    {"role": "user", "content": "And then?"},
                    {"role": "assistant", "content": "Done."}
                ],
                "tools": [{"type": "function", "function": {"name": "ls", "description": "Lists.", "parameters": {"type": "object"}}}],
                "stream": true,
                "max_tokens": 512
            })
        );
    }

    #[test]
    fn openai_itself_gets_max_completion_tokens() {
        let body = serde_json::to_value(ChatBody::new(&request(), TokenLimit::MaxCompletionTokens)).unwrap();
        assert_eq!(body["max_completion_tokens"], 512);
        assert!(body.get("max_tokens").is_none());
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
        let body = serde_json::to_value(ChatBody::new(&request, TokenLimit::MaxTokens)).unwrap();
        assert!(body.get("tools").is_none());
        assert_eq!(body["messages"], json!([{"role": "user", "content": "hi"}]));
    }
}
