//! Assembling a reply from chat-completion chunks, with no I/O: `delta.content` goes to the
//! sink as it comes, tool calls are gathered by `index` (id and name first, the arguments in
//! pieces), and the reply is complete at `data: [DONE]`.
//!
//! Compatible servers differ from OpenAI in ways seen in the field: Ollama has sent every
//! parallel call with `index: 0` and older builds no `index` at all; some send `arguments` as
//! a JSON object rather than a string. A delta that brings a new id and a name where another
//! call already sits therefore starts a new call, and object arguments are taken as they are.

use std::collections::HashMap;

use beckon_core::conversation::ToolCall;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::providers::sse::Event;
use crate::providers::sse::failure::{self, Peer};
use crate::providers::{LlmReply, ProviderError, ProviderErrorKind, TextSink};

#[derive(Debug, Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Option<Vec<Choice>>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    #[serde(default)]
    index: u64,
    #[serde(default)]
    delta: Option<Delta>,
}

#[derive(Debug, Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
    /// The model declining to answer: shown and kept like text, or the reply would be empty.
    #[serde(default)]
    refusal: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Debug, Deserialize)]
struct ToolCallDelta {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

#[derive(Debug, Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
}

/// A tool call being streamed.
#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// The reply so far.
#[derive(Debug)]
pub(super) struct ReplyBuilder<'a> {
    peer: &'a Peer,
    text: String,
    calls: Vec<PartialCall>,
    /// Where each `index` the server used points into `calls`.
    by_index: HashMap<u64, usize>,
}

impl<'a> ReplyBuilder<'a> {
    /// An empty reply from `peer`.
    pub(super) fn new(peer: &'a Peer) -> Self {
        Self { peer, text: String::new(), calls: Vec::new(), by_index: HashMap::new() }
    }

    /// Takes in one event; returns the whole reply at `[DONE]`.
    pub(super) fn apply(&mut self, event: &Event, sink: &dyn TextSink) -> Result<Option<LlmReply>, ProviderError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            return self.finish().map(Some);
        }
        if event.name == "error" {
            let reported = serde_json::from_str(data).unwrap_or_else(|_| json!({ "error": data }));
            return Err(failure::from_stream_error(self.peer, &reported));
        }
        let chunk: Chunk = serde_json::from_str(data).map_err(|error| {
            self.protocol(format!("sent a chunk that cannot be read ({error}): {}", failure::quote(data)))
        })?;
        if let Some(error) = chunk.error {
            return Err(failure::from_stream_error(self.peer, &json!({ "error": error })));
        }
        // Beckon asks for one choice; servers number it 0.
        for delta in chunk.choices.into_iter().flatten().filter(|choice| choice.index == 0).filter_map(|c| c.delta) {
            for text in [delta.content, delta.refusal].into_iter().flatten().filter(|text| !text.is_empty()) {
                sink.text(&text);
                self.text.push_str(&text);
            }
            for call in delta.tool_calls.into_iter().flatten() {
                self.add_to_call(call);
            }
        }
        Ok(None)
    }

    /// The error for a stream that ended before `[DONE]`.
    pub(super) fn cut_off(&self) -> ProviderError {
        self.protocol("ended its reply before data: [DONE]; the stream was cut off".to_owned())
    }

    fn add_to_call(&mut self, delta: ToolCallDelta) {
        let function = delta.function.unwrap_or(FunctionDelta { name: None, arguments: None });
        let id = delta.id.filter(|id| !id.is_empty());
        let name = function.name.filter(|name| !name.is_empty());
        let current = match delta.index {
            Some(index) => self.by_index.get(&index).copied(),
            None => self.calls.len().checked_sub(1),
        };
        let starts_another =
            |call: &PartialCall| name.is_some() && id.as_deref().is_some_and(|id| !call.id.is_empty() && call.id != id);
        let slot = match current {
            Some(slot) if !starts_another(&self.calls[slot]) => slot,
            _ => {
                self.calls.push(PartialCall::default());
                self.calls.len() - 1
            }
        };
        if let Some(index) = delta.index {
            self.by_index.insert(index, slot);
        }
        let call = &mut self.calls[slot];
        if let Some(id) = id.filter(|_| call.id.is_empty()) {
            call.id = id;
        }
        if let Some(name) = name.filter(|_| call.name.is_empty()) {
            call.name = name;
        }
        match function.arguments {
            Some(Value::String(piece)) => call.arguments.push_str(&piece),
            Some(Value::Null) | None => {}
            Some(whole) => call.arguments.push_str(&whole.to_string()),
        }
    }

    fn finish(&mut self) -> Result<LlmReply, ProviderError> {
        let mut tool_calls = Vec::with_capacity(self.calls.len());
        for (position, call) in std::mem::take(&mut self.calls).into_iter().enumerate() {
            if call.name.is_empty() {
                return Err(self.protocol(format!("sent tool call {} without a function name", position + 1)));
            }
            let input = if call.arguments.trim().is_empty() {
                Value::Object(Default::default())
            } else {
                serde_json::from_str(&call.arguments).map_err(|error| {
                    self.protocol(format!(
                        "sent arguments for tool \"{}\" (call {}) that are not valid JSON ({error}): {}",
                        call.name,
                        call.id,
                        failure::quote(&call.arguments)
                    ))
                })?
            };
            // A server that gives no id still gets its calls answered in order; the id only
            // has to match within this conversation.
            let id = if call.id.is_empty() { format!("call_{}", position + 1) } else { call.id };
            tool_calls.push(ToolCall { id, name: call.name, input });
        }
        Ok(LlmReply { text: std::mem::take(&mut self.text), tool_calls })
    }

    fn protocol(&self, what: String) -> ProviderError {
        failure::error(ProviderErrorKind::Protocol, format!("{} {what}", self.peer.provider))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    struct Recorder(Mutex<Vec<String>>);

    impl TextSink for Recorder {
        fn text(&self, delta: &str) {
            self.0.lock().unwrap().push(delta.to_owned());
        }
    }

    fn peer() -> Peer {
        Peer { provider: "OpenAI".into(), endpoint: "e".into(), model: "m".into(), key_hint: "k".into() }
    }

    fn run(chunks: &[Value]) -> (Result<LlmReply, ProviderError>, Vec<String>) {
        let peer = peer();
        let sink = Recorder::default();
        let mut builder = ReplyBuilder::new(&peer);
        let events = chunks
            .iter()
            .map(|chunk| Event { name: String::new(), data: chunk.to_string() })
            .chain([Event { name: String::new(), data: "[DONE]".into() }]);
        for event in events {
            match builder.apply(&event, &sink) {
                Ok(None) => {}
                Ok(Some(reply)) => return (Ok(reply), sink.0.into_inner().unwrap()),
                Err(error) => return (Err(error), sink.0.into_inner().unwrap()),
            }
        }
        unreachable!("[DONE] always ends the run")
    }

    fn calls_delta(calls: Value) -> Value {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": calls}, "finish_reason": null}]})
    }

    fn calls(reply: LlmReply) -> Vec<(String, String, Value)> {
        reply.tool_calls.into_iter().map(|call| (call.id, call.name, call.input)).collect()
    }

    #[test]
    fn ollama_style_reused_index_zero_makes_separate_calls() {
        let (reply, _) = run(&[
            calls_delta(
                json!([{"index": 0, "id": "a", "type": "function", "function": {"name": "ls", "arguments": "{\"p\":"}}]),
            ),
            calls_delta(json!([{"index": 0, "function": {"arguments": "1}"}}])),
            calls_delta(
                json!([{"index": 0, "id": "b", "type": "function", "function": {"name": "ls", "arguments": "{\"p\":2}"}}]),
            ),
        ]);
        assert_eq!(
            calls(reply.unwrap()),
            vec![("a".into(), "ls".into(), json!({"p": 1})), ("b".into(), "ls".into(), json!({"p": 2}))]
        );
    }

    #[test]
    fn calls_without_an_index_follow_their_ids() {
        let (reply, _) = run(&[
            calls_delta(json!([{"id": "a", "function": {"name": "x", "arguments": ""}}])),
            calls_delta(json!([{"function": {"arguments": "{}"}}])),
            calls_delta(json!([{"id": "b", "function": {"name": "y", "arguments": {"k": true}}}])),
        ]);
        assert_eq!(
            calls(reply.unwrap()),
            vec![("a".into(), "x".into(), json!({})), ("b".into(), "y".into(), json!({"k": true}))]
        );
    }

    #[test]
    fn an_id_repeated_on_every_piece_does_not_split_a_call() {
        let (reply, _) = run(&[
            calls_delta(json!([{"index": 0, "id": "a", "function": {"name": "x", "arguments": "{\"q\""}}])),
            calls_delta(json!([{"index": 0, "id": "a", "function": {"name": "x", "arguments": ":1}"}}])),
        ]);
        assert_eq!(calls(reply.unwrap()), vec![("a".into(), "x".into(), json!({"q": 1}))]);
    }

    #[test]
    fn a_missing_id_is_made_up_in_order() {
        let (reply, _) = run(&[calls_delta(
            json!([{"index": 0, "function": {"name": "x"}}, {"index": 1, "function": {"name": "y"}}]),
        )]);
        assert_eq!(
            calls(reply.unwrap()),
            vec![("call_1".into(), "x".into(), json!({})), ("call_2".into(), "y".into(), json!({}))]
        );
    }

    #[test]
    fn refusals_usage_chunks_and_other_choices_are_handled() {
        let (reply, sink) = run(&[
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": null}}]}),
            json!({"choices": [{"index": 0, "delta": {"refusal": "I can't."}}]}),
            json!({"choices": [{"index": 1, "delta": {"content": "other choice"}}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 3}}),
            json!({"choices": null}),
        ]);
        assert_eq!(reply.unwrap().text, "I can't.");
        assert_eq!(sink, vec!["I can't."]);
    }

    #[test]
    fn a_call_without_a_name_is_a_protocol_error() {
        let error =
            run(&[calls_delta(json!([{"index": 0, "id": "a", "function": {"arguments": "{}"}}]))]).0.unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::Protocol);
        assert_eq!(error.message, "OpenAI sent tool call 1 without a function name");
    }

    #[test]
    fn errors_in_the_stream_are_classified() {
        let (reply, _) = run(&[json!({"error": {"message": "The server had an error", "type": "server_error"}})]);
        let error = reply.unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::Server);
        assert_eq!(error.message, "OpenAI reported an error mid-reply (server_error: The server had an error)");
        let (reply, _) = run(&[json!({"error": "out of memory"})]);
        assert_eq!(reply.unwrap_err().message, "OpenAI reported an error mid-reply (out of memory)");
    }

    #[test]
    fn an_error_event_is_classified() {
        let peer = peer();
        let mut builder = ReplyBuilder::new(&peer);
        let event = Event {
            name: "error".into(),
            data: r#"{"error":{"message":"slow down","type":"rate_limit_exceeded"}}"#.into(),
        };
        assert_eq!(builder.apply(&event, &crate::providers::NoText).unwrap_err().kind, ProviderErrorKind::RateLimited);
    }
}
