//! Assembling a reply from the Messages API's stream events, with no I/O: text deltas go to the
//! sink as they come, a tool call's input is gathered from its `input_json_delta` pieces and
//! parsed when its block stops, and the reply is complete at `message_stop`.

use std::collections::BTreeMap;

use beckon_core::conversation::ToolCall;
use serde::Deserialize;
use serde_json::Value;

use crate::providers::sse::Event;
use crate::providers::sse::failure::{self, Peer};
use crate::providers::{LlmReply, ProviderError, ProviderErrorKind, TextSink};

/// One stream event, by its `type`. Types added to the API later are skipped, as Anthropic
/// asks of clients.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum StreamEvent {
    MessageStart,
    ContentBlockStart {
        index: usize,
        content_block: ContentBlock,
    },
    ContentBlockDelta {
        index: usize,
        delta: Delta,
    },
    ContentBlockStop {
        index: usize,
    },
    /// The stop reason and usage: nothing Beckon's reply carries.
    MessageDelta,
    MessageStop,
    Ping,
    Error {
        error: Value,
    },
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ContentBlock {
    Text {
        #[serde(default)]
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Value,
    },
    /// Thinking, server tools and whatever comes next: not part of Beckon's reply.
    #[serde(other)]
    Other,
}

/// A `content_block_delta`'s `delta`, by its `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
enum Delta {
    #[serde(rename = "text_delta")]
    Text { text: String },
    #[serde(rename = "input_json_delta")]
    InputJson { partial_json: String },
    /// Thinking, signature and citation deltas.
    #[serde(other)]
    Other,
}

/// A content block that has started and not stopped.
#[derive(Debug)]
enum OpenBlock {
    Text,
    ToolUse {
        id: String,
        name: String,
        /// The `input` of `content_block_start`: `{}` from Anthropic, a whole input from some proxies.
        start_input: Value,
        /// The `partial_json` pieces so far.
        json: String,
    },
    Skipped,
}

/// The reply so far.
#[derive(Debug)]
pub(super) struct ReplyBuilder<'a> {
    peer: &'a Peer,
    text: String,
    open: BTreeMap<usize, OpenBlock>,
    /// Finished tool calls by block index, so they come out in the model's order.
    tool_calls: BTreeMap<usize, ToolCall>,
}

impl<'a> ReplyBuilder<'a> {
    /// An empty reply from `peer`.
    pub(super) fn new(peer: &'a Peer) -> Self {
        Self { peer, text: String::new(), open: BTreeMap::new(), tool_calls: BTreeMap::new() }
    }

    /// Takes in one event; returns the whole reply at `message_stop`.
    pub(super) fn apply(&mut self, event: &Event, sink: &dyn TextSink) -> Result<Option<LlmReply>, ProviderError> {
        let parsed: StreamEvent = serde_json::from_str(&event.data).map_err(|error| {
            self.protocol(format!(
                "sent a {} event that cannot be read ({error}): {}",
                if event.name.is_empty() { "stream" } else { &event.name },
                failure::quote(&event.data)
            ))
        })?;
        match parsed {
            StreamEvent::MessageStart | StreamEvent::MessageDelta | StreamEvent::Ping | StreamEvent::Unknown => {}
            StreamEvent::ContentBlockStart { index, content_block } => self.start(index, content_block, sink)?,
            StreamEvent::ContentBlockDelta { index, delta } => self.delta(index, delta, sink)?,
            StreamEvent::ContentBlockStop { index } => self.stop(index)?,
            StreamEvent::MessageStop => return self.finish().map(Some),
            StreamEvent::Error { error } => return Err(failure::from_stream_error(self.peer, &error)),
        }
        Ok(None)
    }

    /// The error for a stream that ended before `message_stop`.
    pub(super) fn cut_off(&self) -> ProviderError {
        self.protocol("ended its reply before message_stop; the stream was cut off".to_owned())
    }

    fn start(&mut self, index: usize, block: ContentBlock, sink: &dyn TextSink) -> Result<(), ProviderError> {
        if self.open.contains_key(&index) || self.tool_calls.contains_key(&index) {
            return Err(self.protocol(format!("started content block {index} twice")));
        }
        let block = match block {
            ContentBlock::Text { text } => {
                self.push_text(&text, sink);
                OpenBlock::Text
            }
            ContentBlock::ToolUse { id, name, input } => {
                OpenBlock::ToolUse { id, name, start_input: input, json: String::new() }
            }
            ContentBlock::Other => OpenBlock::Skipped,
        };
        self.open.insert(index, block);
        Ok(())
    }

    fn delta(&mut self, index: usize, delta: Delta, sink: &dyn TextSink) -> Result<(), ProviderError> {
        let Some(block) = self.open.get_mut(&index) else {
            return Err(self.protocol(format!("sent a delta for content block {index}, which is not open")));
        };
        match (block, delta) {
            (OpenBlock::Text, Delta::Text { text }) => self.push_text(&text, sink),
            (OpenBlock::ToolUse { json, .. }, Delta::InputJson { partial_json }) => json.push_str(&partial_json),
            (_, Delta::Other) | (OpenBlock::Skipped, _) => {}
            (OpenBlock::Text, Delta::InputJson { .. }) | (OpenBlock::ToolUse { .. }, Delta::Text { .. }) => {
                return Err(self.protocol(format!("sent a delta of the wrong kind for content block {index}")));
            }
        }
        Ok(())
    }

    fn stop(&mut self, index: usize) -> Result<(), ProviderError> {
        match self.open.remove(&index) {
            None => Err(self.protocol(format!("stopped content block {index}, which is not open"))),
            Some(OpenBlock::Text | OpenBlock::Skipped) => Ok(()),
            Some(OpenBlock::ToolUse { id, name, start_input, json }) => {
                let input = self.tool_input(&id, &name, start_input, &json)?;
                self.tool_calls.insert(index, ToolCall { id, name, input });
                Ok(())
            }
        }
    }

    /// A tool call's input: its JSON pieces joined and parsed; no pieces means the input given
    /// at the block's start, and an empty input means `{}`.
    fn tool_input(&self, id: &str, name: &str, start_input: Value, json: &str) -> Result<Value, ProviderError> {
        if json.trim().is_empty() {
            return Ok(match start_input {
                Value::Null => Value::Object(Default::default()),
                given => given,
            });
        }
        serde_json::from_str(json).map_err(|error| {
            self.protocol(format!(
                "sent an input for tool \"{name}\" (call {id}) that is not valid JSON ({error}): {}",
                failure::quote(json)
            ))
        })
    }

    fn finish(&mut self) -> Result<LlmReply, ProviderError> {
        if let Some((index, _)) = self.open.iter().find(|(_, block)| matches!(block, OpenBlock::ToolUse { .. })) {
            return Err(
                self.protocol(format!("ended its reply with the tool call in content block {index} unfinished"))
            );
        }
        Ok(LlmReply {
            text: std::mem::take(&mut self.text),
            tool_calls: std::mem::take(&mut self.tool_calls).into_values().collect(),
        })
    }

    fn push_text(&mut self, text: &str, sink: &dyn TextSink) {
        if !text.is_empty() {
            sink.text(text);
            self.text.push_str(text);
        }
    }

    fn protocol(&self, what: String) -> ProviderError {
        failure::error(ProviderErrorKind::Protocol, format!("{} {what}", self.peer.provider))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde_json::json;

    use super::*;

    #[derive(Default)]
    struct Recorder(Mutex<Vec<String>>);

    impl TextSink for Recorder {
        fn text(&self, delta: &str) {
            self.0.lock().unwrap().push(delta.to_owned());
        }
    }

    fn peer() -> Peer {
        Peer { provider: "Anthropic".into(), endpoint: "e".into(), model: "m".into(), key_hint: "k".into() }
    }

    fn event(data: Value) -> Event {
        let name = data["type"].as_str().unwrap_or_default().to_owned();
        Event { name, data: data.to_string() }
    }

    fn run(events: &[Value]) -> (Result<LlmReply, ProviderError>, Vec<String>) {
        let peer = peer();
        let sink = Recorder::default();
        let mut builder = ReplyBuilder::new(&peer);
        let mut outcome = Err(builder.cut_off());
        for data in events {
            match builder.apply(&event(data.clone()), &sink) {
                Ok(None) => {}
                Ok(Some(reply)) => {
                    outcome = Ok(reply);
                    break;
                }
                Err(error) => {
                    outcome = Err(error);
                    break;
                }
            }
        }
        (outcome, sink.0.into_inner().unwrap())
    }

    fn tool_start(index: usize, id: &str, name: &str) -> Value {
        json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})
    }

    fn json_delta(index: usize, piece: &str) -> Value {
        json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}})
    }

    fn stop(index: usize) -> Value {
        json!({"type": "content_block_stop", "index": index})
    }

    fn message_stop() -> Value {
        json!({"type": "message_stop"})
    }

    #[test]
    fn skips_thinking_and_unknown_events() {
        let (reply, sink) = run(&[
            json!({"type": "message_start", "message": {"id": "msg_1", "content": []}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hmm"}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "x"}}),
            stop(0),
            json!({"type": "something_new", "index": 9}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Hi"}}),
            stop(1),
            message_stop(),
        ]);
        assert_eq!(reply.unwrap().text, "Hi");
        assert_eq!(sink, vec!["Hi"]);
    }

    #[test]
    fn an_empty_tool_input_is_an_empty_object() {
        let (reply, _) = run(&[tool_start(0, "tu_1", "now"), json_delta(0, ""), stop(0), message_stop()]);
        assert_eq!(reply.unwrap().tool_calls[0].input, json!({}));
    }

    #[test]
    fn an_input_given_whole_at_the_start_is_kept() {
        let start = json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "n", "input": {"a": 1}}});
        let (reply, _) = run(&[start, stop(0), message_stop()]);
        assert_eq!(reply.unwrap().tool_calls[0].input, json!({"a": 1}));
    }

    #[test]
    fn tool_calls_come_out_in_block_order() {
        let (reply, _) = run(&[
            tool_start(1, "b", "second"),
            tool_start(0, "a", "first"),
            json_delta(1, "{\"x\":"),
            json_delta(0, "{}"),
            json_delta(1, "2}"),
            stop(1),
            stop(0),
            message_stop(),
        ]);
        let names: Vec<_> = reply.unwrap().tool_calls.into_iter().map(|call| (call.name, call.input)).collect();
        assert_eq!(names, vec![("first".to_owned(), json!({})), ("second".to_owned(), json!({"x": 2}))]);
    }

    #[test]
    fn broken_sequences_are_protocol_errors() {
        for (events, expected) in [
            (vec![json_delta(0, "{}")], "delta for content block 0, which is not open"),
            (vec![stop(3)], "stopped content block 3, which is not open"),
            (vec![tool_start(0, "a", "n"), tool_start(0, "a", "n")], "started content block 0 twice"),
            (vec![tool_start(0, "a", "n"), message_stop()], "tool call in content block 0 unfinished"),
            (
                vec![
                    tool_start(0, "a", "n"),
                    json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}),
                ],
                "delta of the wrong kind",
            ),
            (vec![json!({"type": "content_block_delta", "delta": {}})], "cannot be read"),
            (
                vec![tool_start(0, "a", "n"), json_delta(0, "{\"x\": tru"), stop(0)],
                "tool \"n\" (call a) that is not valid JSON",
            ),
            (vec![], "before message_stop"),
        ] {
            let error = run(&events).0.unwrap_err();
            assert_eq!(error.kind, ProviderErrorKind::Protocol, "{events:?}");
            assert!(error.message.starts_with("Anthropic "), "{}", error.message);
            assert!(error.message.contains(expected), "{} does not say {expected}", error.message);
        }
    }
}
