//! The scenarios both providers' suites play against their fake servers: text streamed in tiny
//! chunks, a history of calls and results with text and a call in the reply, a call's input that
//! is not JSON, a reply cut off or broken mid-stream, a server that cannot be reached, and a failure answered at once. The
//! scenario checks what every provider must do alike; each suite writes its own wire format and
//! checks what differs: what was sent, and how each failure is worded.

use std::time::Duration;

use beckon_core::conversation::{ToolCall, ToolResult};
use beckon_runtime::providers::{
    Block, LlmReply, LlmRequest, NoText, Provider, ProviderError, ProviderErrorKind, ToolSpec, Turn,
};
use serde_json::{Value, json};

use crate::raw_llm::{FakeLlm, Part, Recorded, Recorder, Reply, closed_port_url};

/// A provider as its suite builds it.
pub struct ProviderUnderTest {
    /// The provider with the suite's API key, on the server at this address (a fake server's
    /// [`FakeLlm::url`]).
    pub keyed: fn(&str) -> Box<dyn Provider>,
    /// The model its requests name.
    pub model: &'static str,
    /// The most tokens its requests ask for.
    pub max_tokens: u32,
}

impl ProviderUnderTest {
    /// "Hello" from the user, with a system prompt and no tools.
    pub fn request(&self) -> LlmRequest {
        LlmRequest {
            model: self.model.into(),
            system: "You help.".into(),
            turns: vec![Turn::User(vec![Block::Text("Hello".into())])],
            tools: vec![],
            max_tokens: self.max_tokens,
        }
    }

    /// [`Self::request`] with its key on `server`, its text streamed nowhere.
    pub async fn complete(&self, server: &FakeLlm) -> Result<LlmReply, ProviderError> {
        (self.keyed)(server.url()).complete(&self.request(), &NoText).await
    }

    /// The failure of [`Self::request`] on a server that answers with `reply`.
    pub async fn failure(&self, reply: Reply) -> ProviderError {
        let server = FakeLlm::start(vec![reply]).await;
        self.complete(&server).await.unwrap_err()
    }

    /// A reply of five text deltas, `body` as the wire writes them, streamed in tiny chunks:
    /// each delta reaches the sink in order and the reply is their text. The request the
    /// server received, a JSON `POST`.
    pub async fn streams_text(&self, body: impl FnOnce(&[&str]) -> String) -> Recorded {
        let deltas = ["Hel", "lo, ", "wörld ", "👋", "!"];
        let server = FakeLlm::start(vec![tiny_chunks(Reply::sse(body(&deltas)))]).await;
        let sink = Recorder::default();

        let reply = (self.keyed)(server.url()).complete(&self.request(), &sink).await.unwrap();

        assert_eq!(sink.pieces(), deltas);
        assert_eq!(reply, LlmReply { text: "Hello, wörld 👋!".into(), tool_calls: vec![] });
        let sent = server.only_request();
        assert_eq!(sent.method, "POST");
        assert_eq!(sent.header("content-type"), Some("application/json"));
        sent
    }

    /// A history of "Tidy up", then two calls (`ids[0]` asking, `ids[1]` listing) with their
    /// results (answered; refused), and a `list` tool on offer; the reply, `body` as the wire
    /// writes it, says "Let me " and "check." and calls `list` on "." as `ids[2]`. The text
    /// streams and the call is read; the body the server received.
    pub async fn history_with_tools(&self, ids: [&str; 3], body: String) -> Value {
        let server = FakeLlm::start(vec![tiny_chunks(Reply::sse(body))]).await;
        let request = LlmRequest {
            turns: vec![
                Turn::User(vec![Block::Text("Tidy up".into())]),
                Turn::Assistant(vec![
                    Block::Text("Asking first.".into()),
                    Block::ToolUse(ToolCall {
                        id: ids[0].into(),
                        name: "ask_user_question".into(),
                        input: json!({"q": 1}),
                    }),
                    Block::ToolUse(ToolCall { id: ids[1].into(), name: "list".into(), input: json!({}) }),
                ]),
                Turn::User(vec![
                    Block::ToolResult(ToolResult::ok(ids[0], "{\"outcome\":\"answered\"}")),
                    Block::ToolResult(ToolResult::error(ids[1], "not allowed")),
                ]),
            ],
            tools: vec![ToolSpec {
                name: "list".into(),
                description: "Lists a folder.".into(),
                input_schema: json!({"type": "object", "properties": {"dir": {"type": "string"}}}),
            }],
            ..self.request()
        };
        let sink = Recorder::default();

        let reply = (self.keyed)(server.url()).complete(&request, &sink).await.unwrap();

        assert_eq!(reply.text, "Let me check.");
        assert_eq!(sink.pieces(), ["Let me ", "check."]);
        assert_eq!(
            reply.tool_calls,
            vec![ToolCall { id: ids[2].into(), name: "list".into(), input: json!({"dir": "."}) }]
        );
        server.only_request().body
    }

    /// A reply that streams "Half a thou" and ends before the wire says it is done (`body`): a
    /// protocol error, and the text that streamed before the cut still reached the sink.
    pub async fn cut_off(&self, body: String) -> ProviderError {
        let server = FakeLlm::start(vec![tiny_chunks(Reply::sse(body))]).await;
        let sink = Recorder::default();

        let error = (self.keyed)(server.url()).complete(&self.request(), &sink).await.unwrap_err();

        assert_eq!(error.kind, ProviderErrorKind::Protocol);
        assert_eq!(sink.pieces(), ["Half a thou"], "what streamed before the cut was still shown");
        error
    }

    /// A reply (`body`) that calls `list` with its input in two pieces, `{"dir": ` and `nope}`:
    /// a protocol error that ends with the input as it came.
    pub async fn tool_input_not_json(&self, body: String) -> ProviderError {
        let error = self.failure(Reply::sse(body)).await;

        assert_eq!(error.kind, ProviderErrorKind::Protocol);
        assert!(error.message.ends_with(": {\"dir\": nope}"), "{}", error.message);
        error
    }

    /// A reply that starts (`body`) and then loses its connection: a network error.
    pub async fn broken_mid_reply(&self, body: String) -> ProviderError {
        // The pause lets the status and the first events out before the break.
        let reply = Reply::sse(body).then(Part::Sleep(Duration::from_millis(50))).then(Part::Abort);

        let error = self.failure(reply).await;

        assert_eq!(error.kind, ProviderErrorKind::Network);
        error
    }

    /// A server address where nothing listens: a network error. The address, and the error.
    pub async fn unreachable(&self) -> (String, ProviderError) {
        let url = closed_port_url().await;

        let error = (self.keyed)(&url).complete(&self.request(), &NoText).await.unwrap_err();

        assert_eq!(error.kind, ProviderErrorKind::Network);
        (url, error)
    }
}

/// `reply` in chunks of seven bytes, a millisecond apart: every boundary a reader must survive.
pub fn tiny_chunks(reply: Reply) -> Reply {
    reply.chunked(7, Duration::from_millis(1))
}
