//! The OpenAI-compatible provider against a fake chat-completions API on loopback that speaks
//! the real wire format: what it sends, how it reads the stream, and how it classifies failures.

use std::time::Duration;

use beckon_core::conversation::ToolCall;
use beckon_runtime::providers::{NoText, OpenAi, OpenAiConfig, Provider, ProviderErrorKind};
use serde_json::{Value, json};

use crate::raw_llm::{FakeLlm, Reply};
use crate::support::provider_scenarios::{ProviderUnderTest, tiny_chunks};

const KEY: &str = "sk-test-key";

/// Keyed, on the fake server's `/v1`.
const OPENAI: ProviderUnderTest = ProviderUnderTest {
    keyed: |url| Box::new(provider(&format!("{url}/v1"), Some(KEY))),
    model: "gpt-test",
    max_tokens: 2048,
};

fn provider(base_url: &str, api_key: Option<&str>) -> OpenAi {
    let config = OpenAiConfig { api_key: api_key.map(str::to_owned), ..OpenAiConfig::compatible(base_url) };
    OpenAi::new(config, reqwest::Client::new())
}

/// A chunk as OpenAI writes it, around one choice's `delta`.
fn chunk(delta: Value, finish_reason: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_700_000_000, "model": "gpt-test",
        "system_fingerprint": "fp_1",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}]
    })
}

fn text(piece: &str) -> Value {
    chunk(json!({"content": piece}), None)
}

fn tool_start(index: usize, id: &str, name: &str) -> Value {
    chunk(
        json!({"tool_calls": [{"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
        None,
    )
}

fn arguments(index: usize, piece: &str) -> Value {
    chunk(json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}), None)
}

/// Chunks as OpenAI streams them: `data: <json>` lines, then `data: [DONE]`.
fn stream(chunks: &[Value]) -> String {
    unfinished(chunks) + "data: [DONE]\n\n"
}

fn unfinished(chunks: &[Value]) -> String {
    chunks.iter().map(|chunk| format!("data: {chunk}\n\n")).collect()
}

fn role() -> Value {
    chunk(json!({"role": "assistant", "content": "", "refusal": null}), None)
}

fn finish(reason: &str) -> Value {
    chunk(json!({}), Some(reason))
}

fn error_body(message: &str, kind: &str, code: Option<&str>) -> Value {
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
}

#[tokio::test]
async fn streams_text_to_the_sink_in_order_and_sends_the_documented_request() {
    let sent = OPENAI
        .streams_text(|pieces| {
            let mut chunks = vec![role()];
            chunks.extend(pieces.iter().map(|piece| text(piece)));
            chunks.push(finish("stop"));
            stream(&chunks)
        })
        .await;

    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.header("authorization"), Some("Bearer sk-test-key"));
    assert_eq!(
        sent.body,
        json!({
            "model": "gpt-test",
            "messages": [{"role": "system", "content": "You help."}, {"role": "user", "content": "Hello"}],
            "stream": true,
            "max_tokens": 2048
        }),
        "a compatible server gets max_tokens, and no tools means no `tools` field"
    );
}

#[tokio::test]
async fn no_key_means_no_authorization_header() {
    let server = FakeLlm::start(vec![Reply::sse(stream(&[text("hi"), finish("stop")]))]).await;

    let reply = provider(&format!("{}/v1/", server.url()), None).complete(&OPENAI.request(), &NoText).await.unwrap();

    assert_eq!(reply.text, "hi");
    let sent = server.only_request();
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(sent.path, "/v1/chat/completions", "the trailing slash of the base URL is trimmed");
}

#[tokio::test]
async fn tool_call_arguments_split_across_chunks_are_joined() {
    let chunks = [
        role(),
        tool_start(0, "call_abc", "read_file"),
        arguments(0, "{\"pa"),
        arguments(0, "th\": \"src/"),
        arguments(0, "main.rs\", \"note\": \"caf"),
        arguments(0, "é\"}"),
        finish("tool_calls"),
    ];
    let server = FakeLlm::start(vec![tiny_chunks(Reply::sse(stream(&chunks)))]).await;

    let reply = OPENAI.complete(&server).await.unwrap();

    assert_eq!(
        reply.tool_calls,
        vec![ToolCall {
            id: "call_abc".into(),
            name: "read_file".into(),
            input: json!({"path": "src/main.rs", "note": "café"})
        }]
    );
}

#[tokio::test]
async fn parallel_tool_calls_are_kept_apart_by_index_and_in_order() {
    let chunks = [
        role(),
        tool_start(0, "call_1", "list"),
        arguments(0, "{\"dir\":"),
        tool_start(1, "call_2", "ask_user_question"),
        arguments(1, "{\"questions\":"),
        arguments(0, "\"src\"}"),
        tool_start(2, "call_3", "now"),
        arguments(1, "[]}"),
        finish("tool_calls"),
    ];
    let server = FakeLlm::start(vec![tiny_chunks(Reply::sse(stream(&chunks)))]).await;

    let reply = OPENAI.complete(&server).await.unwrap();

    assert_eq!(
        reply.tool_calls,
        vec![
            ToolCall { id: "call_1".into(), name: "list".into(), input: json!({"dir": "src"}) },
            ToolCall { id: "call_2".into(), name: "ask_user_question".into(), input: json!({"questions": []}) },
            ToolCall { id: "call_3".into(), name: "now".into(), input: json!({}) },
        ]
    );
}

#[tokio::test]
async fn ollama_style_calls_that_all_say_index_zero_stay_separate() {
    let whole_call = |id: &str, path: &str| {
        chunk(
            json!({"role": "assistant", "content": "", "tool_calls": [{"id": id, "index": 0, "type": "function",
                "function": {"name": "write", "arguments": format!("{{\"path\":\"{path}\"}}")}}]}),
            None,
        )
    };
    let chunks = [whole_call("call_a", "a.py"), whole_call("call_b", "b.py"), finish("tool_calls")];
    let server = FakeLlm::start(vec![Reply::sse(stream(&chunks))]).await;

    let reply = OPENAI.complete(&server).await.unwrap();

    assert_eq!(
        reply.tool_calls,
        vec![
            ToolCall { id: "call_a".into(), name: "write".into(), input: json!({"path": "a.py"}) },
            ToolCall { id: "call_b".into(), name: "write".into(), input: json!({"path": "b.py"}) },
        ]
    );
}

#[tokio::test]
async fn text_and_tool_calls_together_and_the_history_is_sent_in_api_shape() {
    let chunks = [
        role(),
        text("Let me "),
        text("check."),
        tool_start(0, "call_9", "list"),
        arguments(0, "{\"dir\":\".\"}"),
        finish("tool_calls"),
    ];

    let sent = OPENAI.history_with_tools(["call_7", "call_8", "call_9"], stream(&chunks)).await;

    assert_eq!(
        sent["messages"],
        json!([
            {"role": "system", "content": "You help."},
            {"role": "user", "content": "Tidy up"},
            {"role": "assistant", "content": "Asking first.", "tool_calls": [
                {"id": "call_7", "type": "function", "function": {"name": "ask_user_question", "arguments": "{\"q\":1}"}},
                {"id": "call_8", "type": "function", "function": {"name": "list", "arguments": "{}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_7", "content": "{\"outcome\":\"answered\"}"},
            {"role": "tool", "tool_call_id": "call_8", "content": "Error: not allowed"}
        ])
    );
    assert_eq!(
        sent["tools"],
        json!([{"type": "function", "function": {"name": "list", "description": "Lists a folder.",
                "parameters": {"type": "object", "properties": {"dir": {"type": "string"}}}}}])
    );
}

#[tokio::test]
async fn rate_limits_carry_the_servers_wait() {
    let body = error_body(
        "Rate limit reached for gpt-test in organization org-1 on requests per min (RPM)",
        "requests",
        Some("rate_limit_exceeded"),
    );
    let reply = Reply::json(429, body).header("retry-after", "7").header("x-request-id", "req_abc");
    let server = FakeLlm::start(vec![reply]).await;

    let error = OPENAI.complete(&server).await.unwrap_err();

    assert_eq!(error.kind, ProviderErrorKind::RateLimited);
    assert_eq!(error.retry_after, Some(Duration::from_secs(7)));
    assert!(error.message.starts_with(&format!(
        "The OpenAI-compatible server at {} is rate limiting requests (429 rate_limit_exceeded: Rate limit reached",
        server.url().trim_start_matches("http://")
    )));
    assert!(error.message.ends_with("; it asked to wait 7 s [request id req_abc]"), "{}", error.message);
}

#[tokio::test]
async fn a_500_is_a_server_error() {
    let body = error_body("The server had an error while processing your request.", "server_error", None);
    let error = OPENAI.failure(Reply::json(500, body)).await;

    assert_eq!(error.kind, ProviderErrorKind::Server);
    assert!(
        error.message.ends_with(
            "failed with a server error (500 server_error: The server had an error while processing your request.)"
        ),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn an_overloaded_server_is_a_server_error_and_keeps_a_retry_after() {
    let reply = Reply::json(503, error_body("The engine is currently overloaded", "server_error", None))
        .header("retry-after", "3");
    let error = OPENAI.failure(reply).await;

    assert_eq!(error.kind, ProviderErrorKind::Server);
    assert_eq!(error.retry_after, Some(Duration::from_secs(3)));
    assert!(
        error.message.ends_with("is overloaded (503 server_error: The engine is currently overloaded)"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn a_rejected_key_is_an_auth_error_that_says_what_to_do() {
    let body =
        error_body("Incorrect API key provided: sk-test-***-key.", "invalid_request_error", Some("invalid_api_key"));
    let error = OPENAI.failure(Reply::json(401, body)).await;

    assert_eq!(error.kind, ProviderErrorKind::Auth);
    assert!(
        error.message.ends_with(
            "rejected the API key (401 invalid_api_key: Incorrect API key provided: sk-test-***-key.); check the key \
             in Beckon's settings or OPENAI_API_KEY"
        ),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn a_server_that_wants_a_key_says_so_when_none_was_given() {
    let server = FakeLlm::start(vec![Reply::json(401, json!({"error": "unauthorized"}))]).await;

    let error = provider(server.url(), None).complete(&OPENAI.request(), &NoText).await.unwrap_err();

    assert_eq!(error.kind, ProviderErrorKind::Auth);
    assert!(
        error.message.ends_with(
            "rejected the API key (401 unauthorized); this server needs an API key: add one in Beckon's settings or \
             set OPENAI_API_KEY"
        ),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn an_unknown_model_is_a_bad_request_naming_the_model() {
    let body = error_body(
        "The model `gpt-test` does not exist or you do not have access to it.",
        "invalid_request_error",
        Some("model_not_found"),
    );
    let error = OPENAI.failure(Reply::json(404, body)).await;

    assert_eq!(error.kind, ProviderErrorKind::BadRequest);
    assert!(
        error.message.contains("does not know the model \"gpt-test\" (404 model_not_found: The model `gpt-test`"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn a_wrong_base_url_names_both_the_model_and_the_address() {
    let server = FakeLlm::start(vec![Reply::json(404, json!({"detail": "Not Found"}))]).await;

    let error = provider(server.url(), None).complete(&OPENAI.request(), &NoText).await.unwrap_err();

    assert_eq!(error.kind, ProviderErrorKind::BadRequest);
    assert!(
        error
            .message
            .contains(&format!("\"gpt-test\" or has no API at {}/chat/completions (404 Not Found)", server.url())),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn garbage_json_in_a_data_line_is_a_protocol_error() {
    let body = unfinished(&[role(), text("Hi")])
        + "data: {\"choices\": [{\"delta\": {\"content\": \"x\"}\n\n"
        + "data: [DONE]\n\n";
    let error = OPENAI.failure(Reply::sse(body)).await;

    assert_eq!(error.kind, ProviderErrorKind::Protocol);
    assert!(error.message.contains("sent a chunk that cannot be read"), "{}", error.message);
}

#[tokio::test]
async fn a_stream_that_ends_before_done_is_a_protocol_error() {
    let error = OPENAI.cut_off(unfinished(&[role(), text("Half a thou")])).await;

    assert!(
        error.message.ends_with("ended its reply before data: [DONE]; the stream was cut off"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn arguments_that_are_not_json_are_a_protocol_error() {
    let chunks =
        [tool_start(0, "call_1", "list"), arguments(0, "{\"dir\": "), arguments(0, "nope}"), finish("tool_calls")];
    let error = OPENAI.tool_input_not_json(stream(&chunks)).await;

    assert!(
        error.message.contains("sent arguments for tool \"list\" (call call_1) that are not valid JSON"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn an_error_object_in_the_stream_is_a_server_error() {
    let body = unfinished(&[role(), text("Partial")])
        + &unfinished(&[error_body("The server had an error while processing your request.", "server_error", None)]);
    let error = OPENAI.failure(Reply::sse(body)).await;

    assert_eq!(error.kind, ProviderErrorKind::Server);
    assert!(
        error.message.ends_with(
            "reported an error mid-reply (server_error: The server had an error while processing your request.)"
        ),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn json_instead_of_a_stream_is_a_protocol_error() {
    let whole = json!({"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}}]});
    let error = OPENAI.failure(Reply::json(200, whole)).await;

    assert_eq!(error.kind, ProviderErrorKind::Protocol);
    assert!(error.message.contains("answered 200 with JSON instead of an event stream"), "{}", error.message);
}

#[tokio::test]
async fn a_closed_port_is_a_network_error() {
    let (_, error) = OPENAI.unreachable().await;

    assert!(
        error.message.starts_with("Could not reach the OpenAI-compatible server at 127.0.0.1:"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn a_connection_broken_mid_stream_is_a_network_error() {
    let error = OPENAI.broken_mid_reply(unfinished(&[role(), text("Hi")])).await;

    assert!(error.message.contains("broke mid-reply"), "{}", error.message);
}

#[tokio::test]
async fn openai_itself_without_a_key_fails_before_any_request() {
    let error = OpenAi::new(OpenAiConfig::default(), reqwest::Client::new())
        .complete(&OPENAI.request(), &NoText)
        .await
        .unwrap_err();

    assert_eq!(error.kind, ProviderErrorKind::Auth);
    assert_eq!(error.message, "No OpenAI API key is set; add one in Beckon's settings or set OPENAI_API_KEY");
}
