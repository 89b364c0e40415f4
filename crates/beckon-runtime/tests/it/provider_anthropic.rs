//! The Anthropic provider against a fake Messages API on loopback that speaks the real wire
//! format: what it sends, how it reads the stream, and how it classifies every failure.

use std::sync::Arc;
use std::time::Duration;

use beckon_core::conversation::ToolCall;
use beckon_runtime::providers::{Anthropic, AnthropicConfig, NoText, Provider, ProviderErrorKind};
use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::raw_llm::{FakeLlm, Part, Recorder, Reply};
use crate::support::provider_scenarios::{ProviderUnderTest, tiny_chunks};

const KEY: &str = "sk-ant-test-key";

const ANTHROPIC: ProviderUnderTest =
    ProviderUnderTest { keyed: |url| Box::new(provider(url)), model: "claude-test", max_tokens: 1024 };

fn provider(base_url: &str) -> Anthropic {
    let config = AnthropicConfig { base_url: base_url.to_owned(), ..AnthropicConfig::new(KEY) };
    Anthropic::new(config, beckon_runtime::providers::http_client().unwrap())
}

/// Events as Anthropic writes them: `event: <type>` then `data: <json>`, a blank line after each.
fn stream(events: &[Value]) -> String {
    events.iter().map(|event| format!("event: {}\ndata: {event}\n\n", event["type"].as_str().unwrap())).collect()
}

fn message_start() -> Value {
    json!({"type": "message_start", "message": {
        "id": "msg_01", "type": "message", "role": "assistant", "content": [], "model": "claude-test",
        "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 12, "output_tokens": 1}
    }})
}

fn text_block(index: usize, deltas: &[&str]) -> Vec<Value> {
    let mut events =
        vec![json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})];
    events.push(json!({"type": "ping"}));
    for text in deltas {
        events.push(
            json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}}),
        );
    }
    events.push(json!({"type": "content_block_stop", "index": index}));
    events
}

fn tool_block(index: usize, id: &str, name: &str, pieces: &[&str]) -> Vec<Value> {
    let mut events = vec![json!({"type": "content_block_start", "index": index,
        "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})];
    for piece in pieces {
        events.push(
            json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}),
        );
    }
    events.push(json!({"type": "content_block_stop", "index": index}));
    events
}

fn message_end(stop_reason: &str) -> Vec<Value> {
    vec![
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null}, "usage": {"output_tokens": 30}}),
        json!({"type": "message_stop"}),
    ]
}

fn whole_reply(blocks: Vec<Vec<Value>>, stop_reason: &str) -> String {
    let mut events = vec![message_start()];
    events.extend(blocks.into_iter().flatten());
    events.extend(message_end(stop_reason));
    stream(&events)
}

fn error_body(kind: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_011"})
}

#[tokio::test]
async fn streams_text_to_the_sink_in_order_and_sends_the_documented_request() {
    let sent = ANTHROPIC.streams_text(|deltas| whole_reply(vec![text_block(0, deltas)], "end_turn")).await;

    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some(KEY));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(
        sent.body,
        json!({
            "model": "claude-test",
            "max_tokens": 1024,
            "system": "You help.",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Hello"}]}],
            "stream": true
        }),
        "no tools means no `tools` field"
    );
}

#[tokio::test]
async fn text_reaches_the_sink_before_the_reply_ends() {
    let gate = Arc::new(Notify::new());
    let mut events = vec![message_start()];
    events.extend(text_block(0, &["first", " second"]));
    let (head, tail) = events.split_at(3); // message_start, block start, ping
    let head = stream(head) + &stream(&[tail[0].clone()]);
    let mut rest = tail[1..].to_vec();
    rest.extend(message_end("end_turn"));
    let reply = Reply::sse(head).then(Part::WaitFor(gate.clone())).then(Part::Bytes(stream(&rest).into_bytes()));
    let server = FakeLlm::start(vec![reply]).await;
    let sink = Recorder::default();
    let provider = provider(server.url());
    let request = ANTHROPIC.request();

    let mut completion = provider.complete(&request, &sink);
    let waited = tokio::time::timeout(Duration::from_secs(5), async {
        while sink.pieces().is_empty() {
            tokio::select! {
                result = &mut completion => panic!("the reply ended while the server held it back: {result:?}"),
                () = tokio::time::sleep(Duration::from_millis(5)) => {}
            }
        }
    })
    .await;
    assert!(waited.is_ok(), "the first delta never reached the sink");
    assert_eq!(sink.pieces(), ["first"]);
    gate.notify_one();
    assert_eq!(completion.await.unwrap().text, "first second");
    assert_eq!(sink.pieces(), ["first", " second"]);
}

#[tokio::test]
async fn tool_inputs_arrive_in_pieces_and_several_calls_keep_their_order() {
    let body = whole_reply(
        vec![
            tool_block(
                0,
                "toolu_01",
                "read_file",
                &["", "{\"pa", "th\": \"src/", "main.rs\", \"li", "nes\": [1, ", "20]}"],
            ),
            tool_block(1, "toolu_02", "ask_user_question", &["{\"questions\":[{\"question\":\"Which ", "café?\"}]}"]),
            tool_block(2, "toolu_03", "now", &[]),
        ],
        "tool_use",
    );
    let server = FakeLlm::start(vec![tiny_chunks(Reply::sse(body))]).await;

    let reply = ANTHROPIC.complete(&server).await.unwrap();

    assert_eq!(reply.text, "");
    assert_eq!(
        reply.tool_calls,
        vec![
            ToolCall {
                id: "toolu_01".into(),
                name: "read_file".into(),
                input: json!({"path": "src/main.rs", "lines": [1, 20]})
            },
            ToolCall {
                id: "toolu_02".into(),
                name: "ask_user_question".into(),
                input: json!({"questions": [{"question": "Which café?"}]}),
            },
            ToolCall { id: "toolu_03".into(), name: "now".into(), input: json!({}) },
        ]
    );
}

#[tokio::test]
async fn text_and_tool_calls_together_and_the_history_is_sent_in_api_shape() {
    let body = whole_reply(
        vec![text_block(0, &["Let me ", "check."]), tool_block(1, "toolu_09", "list", &["{\"dir\":", "\".\"}"])],
        "tool_use",
    );

    let sent = ANTHROPIC.history_with_tools(["toolu_07", "toolu_08", "toolu_09"], body).await;

    assert_eq!(
        sent["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "Tidy up"}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Asking first."},
                {"type": "tool_use", "id": "toolu_07", "name": "ask_user_question", "input": {"q": 1}},
                {"type": "tool_use", "id": "toolu_08", "name": "list", "input": {}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_07", "content": "{\"outcome\":\"answered\"}", "is_error": false},
                {"type": "tool_result", "tool_use_id": "toolu_08", "content": "not allowed", "is_error": true}
            ]}
        ])
    );
    assert_eq!(
        sent["tools"],
        json!([{"name": "list", "description": "Lists a folder.",
                "input_schema": {"type": "object", "properties": {"dir": {"type": "string"}}}}])
    );
}

#[tokio::test]
async fn rate_limits_carry_the_servers_wait() {
    let reply = Reply::json(
        429,
        error_body("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
    )
    .header("retry-after", "7")
    .header("request-id", "req_011");
    let error = ANTHROPIC.failure(reply).await;

    assert_eq!(error.kind, ProviderErrorKind::RateLimited);
    assert_eq!(error.retry_after, Some(Duration::from_secs(7)));
    assert!(error.retryable());
    assert_eq!(
        error.message,
        "Anthropic is rate limiting requests (429 rate_limit_error: Number of request tokens has exceeded your \
         per-minute rate limit); it asked to wait 7 s [request id req_011]"
    );
}

#[tokio::test]
async fn a_500_is_a_server_error() {
    let error = ANTHROPIC.failure(Reply::json(500, error_body("api_error", "Internal server error"))).await;

    assert_eq!(error.kind, ProviderErrorKind::Server);
    assert_eq!(error.retry_after, None);
    assert_eq!(error.message, "Anthropic failed with a server error (500 api_error: Internal server error)");
}

#[tokio::test]
async fn overloaded_529_is_a_server_error_and_keeps_a_retry_after() {
    let reply = Reply::json(529, error_body("overloaded_error", "Overloaded")).header("retry-after", "2.5");
    let error = ANTHROPIC.failure(reply).await;

    assert_eq!(error.kind, ProviderErrorKind::Server);
    assert_eq!(error.retry_after, Some(Duration::from_millis(2500)));
    assert_eq!(error.message, "Anthropic is overloaded (529 overloaded_error: Overloaded)");
}

#[tokio::test]
async fn a_rejected_key_is_an_auth_error_that_says_what_to_do() {
    let error = ANTHROPIC.failure(Reply::json(401, error_body("authentication_error", "invalid x-api-key"))).await;

    assert_eq!(error.kind, ProviderErrorKind::Auth);
    assert!(!error.retryable());
    assert_eq!(
        error.message,
        "Anthropic rejected the API key (401 authentication_error: invalid x-api-key); check the key in Beckon's \
         settings or ANTHROPIC_API_KEY"
    );
    assert!(!error.message.contains(KEY));
}

#[tokio::test]
async fn an_unknown_model_is_a_bad_request_naming_the_model() {
    let error = ANTHROPIC.failure(Reply::json(404, error_body("not_found_error", "model: claude-test"))).await;

    assert_eq!(error.kind, ProviderErrorKind::BadRequest);
    assert_eq!(
        error.message,
        "Anthropic does not know the model \"claude-test\" (404 not_found_error: model: claude-test); check the \
         agent's model"
    );
}

#[tokio::test]
async fn an_invalid_request_is_a_bad_request_with_the_servers_words() {
    let message = "messages.1.content.0.tool_result: unexpected `tool_use_id` found";
    let error = ANTHROPIC.failure(Reply::json(400, error_body("invalid_request_error", message))).await;

    assert_eq!(error.kind, ProviderErrorKind::BadRequest);
    assert_eq!(
        error.message,
        format!("Anthropic refused the request as invalid (400 invalid_request_error: {message})")
    );
}

#[tokio::test]
async fn garbage_json_in_a_data_line_is_a_protocol_error() {
    let body =
        stream(&[message_start()]) + "event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"ind\n\n";
    let error = ANTHROPIC.failure(Reply::sse(body)).await;

    assert_eq!(error.kind, ProviderErrorKind::Protocol);
    assert!(
        error.message.starts_with("Anthropic sent a content_block_delta event that cannot be read"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn a_stream_that_ends_before_message_stop_is_a_protocol_error() {
    let mut events = vec![message_start()];
    events.extend(text_block(0, &["Half a thou"]));

    let error = ANTHROPIC.cut_off(stream(&events)).await;

    assert_eq!(error.message, "Anthropic ended its reply before message_stop; the stream was cut off");
}

#[tokio::test]
async fn a_tool_input_that_is_not_json_is_a_protocol_error() {
    let body = whole_reply(vec![tool_block(0, "toolu_01", "list", &["{\"dir\": ", "nope}"])], "tool_use");
    let error = ANTHROPIC.tool_input_not_json(body).await;

    assert!(
        error.message.starts_with("Anthropic sent an input for tool \"list\" (call toolu_01) that is not valid JSON"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn an_error_event_mid_stream_is_classified_by_its_type() {
    for (kind, expected) in [
        ("overloaded_error", ProviderErrorKind::Server),
        ("rate_limit_error", ProviderErrorKind::RateLimited),
        ("api_error", ProviderErrorKind::Server),
        ("invalid_request_error", ProviderErrorKind::BadRequest),
    ] {
        let mut events = vec![message_start()];
        events.extend(text_block(0, &["Partial"]));
        events.push(json!({"type": "error", "error": {"type": kind, "message": "Something happened"}}));
        let error = ANTHROPIC.failure(Reply::sse(stream(&events))).await;

        assert_eq!(error.kind, expected, "{kind}");
        assert_eq!(error.message, format!("Anthropic reported an error mid-reply ({kind}: Something happened)"));
    }
}

#[tokio::test]
async fn a_closed_port_is_a_network_error() {
    let (url, error) = ANTHROPIC.unreachable().await;

    assert!(error.retryable());
    assert!(
        error.message.starts_with(&format!("Could not reach Anthropic ({url}/v1/messages): ")),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn a_connection_broken_mid_stream_is_a_network_error() {
    let mut events = vec![message_start()];
    events.extend(text_block(0, &["Hi"]));

    let error = ANTHROPIC.broken_mid_reply(stream(&events)).await;

    assert!(error.message.starts_with("The connection to Anthropic broke mid-reply"), "{}", error.message);
}

#[tokio::test]
async fn a_server_that_goes_silent_times_out_as_a_network_error() {
    let gate = Arc::new(Notify::new());
    let server = FakeLlm::start(vec![Reply::sse(stream(&[message_start()])).then(Part::WaitFor(gate))]).await;
    let config = AnthropicConfig {
        base_url: server.url().to_owned(),
        idle_timeout: Duration::from_millis(200),
        ..AnthropicConfig::new(KEY)
    };

    let error =
        Anthropic::new(config, reqwest::Client::new()).complete(&ANTHROPIC.request(), &NoText).await.unwrap_err();

    assert_eq!(error.kind, ProviderErrorKind::Network);
    assert_eq!(error.message, "Anthropic sent nothing for 0.2 s mid-reply; the connection was given up");
}

#[tokio::test]
async fn a_server_slow_to_answer_times_out_as_a_network_error() {
    let server =
        FakeLlm::start(vec![Reply::sse(whole_reply(vec![], "end_turn")).delayed(Duration::from_secs(5))]).await;
    let config = AnthropicConfig {
        base_url: server.url().to_owned(),
        response_timeout: Duration::from_millis(200),
        ..AnthropicConfig::new(KEY)
    };

    let error =
        Anthropic::new(config, reqwest::Client::new()).complete(&ANTHROPIC.request(), &NoText).await.unwrap_err();

    assert_eq!(error.kind, ProviderErrorKind::Network);
    assert!(error.message.ends_with("did not answer within 0.2 s"), "{}", error.message);
}

#[tokio::test]
async fn no_key_fails_before_any_request() {
    let server = FakeLlm::start(vec![]).await;
    let config = AnthropicConfig { base_url: server.url().to_owned(), ..AnthropicConfig::default() };

    let error =
        Anthropic::new(config, reqwest::Client::new()).complete(&ANTHROPIC.request(), &NoText).await.unwrap_err();

    assert_eq!(error.kind, ProviderErrorKind::Auth);
    assert_eq!(error.message, "No Anthropic API key is set; add one in Beckon's settings or set ANTHROPIC_API_KEY");
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_trailing_slash_on_the_base_url_is_ignored() {
    let server = FakeLlm::start(vec![Reply::sse(whole_reply(vec![text_block(0, &["ok"])], "end_turn"))]).await;

    let reply = provider(&format!("{}/", server.url())).complete(&ANTHROPIC.request(), &NoText).await.unwrap();

    assert_eq!(reply.text, "ok");
    assert_eq!(server.only_request().path, "/v1/messages");
}

#[tokio::test]
async fn crlf_line_ends_and_comments_are_read() {
    let body = whole_reply(vec![text_block(0, &["a", "b"])], "end_turn").replace('\n', "\r\n");
    let server = FakeLlm::start(vec![tiny_chunks(Reply::sse(format!(": hello\r\n\r\n{body}")))]).await;

    assert_eq!(ANTHROPIC.complete(&server).await.unwrap().text, "ab");
}

#[tokio::test]
async fn an_endless_event_is_a_protocol_error_not_unbounded_memory() {
    let body = stream(&[message_start()]) + "event: content_block_delta\ndata: " + &"x".repeat(5 * 1024 * 1024);
    let error = ANTHROPIC.failure(Reply::sse(body)).await;

    assert_eq!(error.kind, ProviderErrorKind::Protocol);
    assert_eq!(error.message, "Anthropic's event stream is broken: an event passed the limit of 4194304 bytes");
}

#[tokio::test]
async fn a_redirect_is_not_followed_so_the_key_never_reaches_its_target() {
    let elsewhere = FakeLlm::start(vec![Reply::sse(whole_reply(vec![text_block(0, &["stolen"])], "end_turn"))]).await;
    let target = format!("{}/v1/messages", elsewhere.url());
    let error = ANTHROPIC.failure(Reply::json(307, json!({})).header("location", &target)).await;

    assert!(elsewhere.requests().is_empty(), "the redirect's target was sent {:?}", elsewhere.requests());
    assert_eq!(error.kind, ProviderErrorKind::Protocol);
    assert!(error.message.starts_with("Anthropic answered with a redirect (307"), "{}", error.message);
    assert!(error.message.ends_with("check the provider's base URL"), "{}", error.message);
}
