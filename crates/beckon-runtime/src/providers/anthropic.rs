//! Anthropic's Messages API (`POST /v1/messages`), streamed.

mod body;
mod reply;

use std::fmt;
use std::time::Duration;

use reqwest::header::HeaderValue;

use super::sse::exchange::{self, Timeouts};
use super::sse::failure::Peer;
use super::{Completion, LlmReply, LlmRequest, Provider, ProviderError, ProviderErrorKind, TextSink};

const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// The API version Beckon speaks; the stream events it reads are this version's.
const API_VERSION: &str = "2023-06-01";

const KEY_HINT: &str = "check the key in Beckon's settings or ANTHROPIC_API_KEY";

/// How to reach Anthropic.
#[derive(Clone, PartialEq, Eq)]
pub struct AnthropicConfig {
    /// The API key, sent as `x-api-key`. Never logged or shown.
    pub api_key: String,
    /// The API's address without `/v1`: `https://api.anthropic.com` unless a proxy stands between.
    pub base_url: String,
    /// How long to wait for the reply to start (its status and headers).
    pub response_timeout: Duration,
    /// How long the stream may stay silent before the connection is given up. Anthropic sends
    /// `ping` events while the model works, so a long silence means a dead connection.
    pub idle_timeout: Duration,
}

impl AnthropicConfig {
    /// Anthropic's own API with `api_key`, and the default timeouts.
    pub fn new(api_key: impl Into<String>) -> Self {
        Self { api_key: api_key.into(), ..Self::default() }
    }
}

impl Default for AnthropicConfig {
    /// Anthropic's own API, no key yet, two minutes to start answering, five of silence at most.
    fn default() -> Self {
        Self {
            api_key: String::new(),
            base_url: DEFAULT_BASE_URL.to_owned(),
            response_timeout: Duration::from_secs(120),
            idle_timeout: Duration::from_secs(300),
        }
    }
}

impl fmt::Debug for AnthropicConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnthropicConfig")
            .field("api_key", &if self.api_key.is_empty() { "<none>" } else { "<redacted>" })
            .field("base_url", &self.base_url)
            .field("response_timeout", &self.response_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .finish()
    }
}

/// Claude, through Anthropic's Messages API.
#[derive(Debug, Clone)]
pub struct Anthropic {
    config: AnthropicConfig,
    client: reqwest::Client,
}

impl Anthropic {
    /// A provider that sends its requests through `client` (share one client, so connections
    /// are reused).
    pub fn new(config: AnthropicConfig, client: reqwest::Client) -> Self {
        Self { config, client }
    }

    async fn run(&self, request: &LlmRequest, sink: &dyn TextSink) -> Result<LlmReply, ProviderError> {
        let peer = Peer {
            provider: "Anthropic".to_owned(),
            endpoint: format!("{}/v1/messages", self.config.base_url.trim_end_matches('/')),
            model: request.model.clone(),
            key_hint: KEY_HINT.to_owned(),
        };
        let http = self
            .client
            .post(&peer.endpoint)
            .header("x-api-key", self.key()?)
            .header("anthropic-version", API_VERSION)
            .json(&body::MessagesBody::new(request));
        tracing::debug!(provider = "anthropic", model = %request.model, turns = request.turns.len(), "asking for a completion");
        let timeouts = Timeouts { response: self.config.response_timeout, idle: self.config.idle_timeout };
        let mut events = exchange::open(&peer, http, timeouts).await?;
        let mut reply = reply::ReplyBuilder::new(&peer);
        while let Some(event) = events.next().await? {
            if let Some(done) = reply.apply(&event, sink)? {
                return Ok(done);
            }
        }
        Err(reply.cut_off())
    }

    /// The key as a header value marked sensitive, so no HTTP-level log shows it.
    fn key(&self) -> Result<HeaderValue, ProviderError> {
        let key = self.config.api_key.trim();
        if key.is_empty() {
            return Err(ProviderError::new(
                ProviderErrorKind::Auth,
                "No Anthropic API key is set; add one in Beckon's settings or set ANTHROPIC_API_KEY",
            ));
        }
        let mut value = HeaderValue::from_str(key).map_err(|_| {
            ProviderError::new(
                ProviderErrorKind::Auth,
                format!("The Anthropic API key contains characters an HTTP header cannot carry; {KEY_HINT}"),
            )
        })?;
        value.set_sensitive(true);
        Ok(value)
    }
}

impl Provider for Anthropic {
    fn complete<'a>(&'a self, request: &'a LlmRequest, sink: &'a dyn TextSink) -> Completion<'a> {
        Box::pin(self.run(request, sink))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_the_key() {
        let config = AnthropicConfig::new("sk-ant-secret");
        let shown = format!("{config:?} {:?}", Anthropic::new(config.clone(), reqwest::Client::new()));
        assert!(!shown.contains("sk-ant-secret"), "{shown}");
        assert!(shown.contains("<redacted>"));
    }
}
