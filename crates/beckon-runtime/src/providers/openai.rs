//! OpenAI's chat-completions API (`POST {base_url}/chat/completions`), streamed; also every
//! server that speaks it: Ollama, vLLM, llama.cpp's server, LM Studio.

mod body;
mod reply;

use std::fmt;
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, HeaderValue};

use super::sse::exchange::{self, Timeouts};
use super::sse::failure::Peer;
use super::{Completion, LlmReply, LlmRequest, Provider, ProviderError, ProviderErrorKind, TextSink};
use body::{ChatBody, TokenLimit};

const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// How to reach OpenAI or a server that speaks its API.
#[derive(Clone, PartialEq, Eq)]
pub struct OpenAiConfig {
    /// The API key, sent as `Authorization: Bearer`; `None` for servers that take none (Ollama,
    /// llama.cpp). Never logged or shown.
    pub api_key: Option<String>,
    /// The API's address up to and including its version: `https://api.openai.com/v1`,
    /// `http://localhost:11434/v1` for Ollama.
    pub base_url: String,
    /// How long to wait for the reply to start (its status and headers). Generous: a local
    /// server may first load the model.
    pub response_timeout: Duration,
    /// How long the stream may stay silent before the connection is given up. Generous: a
    /// reasoning model streams nothing while it thinks, and a local one may be slow.
    pub idle_timeout: Duration,
}

impl OpenAiConfig {
    /// OpenAI's own API with `api_key`, and the default timeouts.
    pub fn new(api_key: impl Into<String>) -> Self {
        Self { api_key: Some(api_key.into()), ..Self::default() }
    }

    /// A compatible server at `base_url` that needs no key, such as Ollama at
    /// `http://localhost:11434/v1`.
    pub fn compatible(base_url: impl Into<String>) -> Self {
        Self { base_url: base_url.into(), ..Self::default() }
    }

    fn base_url(&self) -> &str {
        self.base_url.trim_end_matches('/')
    }

    /// The API's host, when the base URL has one.
    fn host(&self) -> Option<String> {
        let url = reqwest::Url::parse(self.base_url()).ok()?;
        let host = url.host_str()?.to_ascii_lowercase();
        Some(match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host,
        })
    }

    /// Whether this is OpenAI's own service (or Azure's), as opposed to a compatible server.
    fn is_openai(&self) -> bool {
        self.host().is_some_and(|host| host == "api.openai.com" || host.ends_with(".openai.azure.com"))
    }

    /// How error messages name the other end.
    fn provider_name(&self) -> String {
        match self.host() {
            _ if self.is_openai() => "OpenAI".to_owned(),
            Some(host) => format!("the OpenAI-compatible server at {host}"),
            None => format!("the OpenAI-compatible server at {}", self.base_url()),
        }
    }
}

impl Default for OpenAiConfig {
    /// OpenAI's own API, no key yet, five minutes to start answering, ten of silence at most.
    fn default() -> Self {
        Self {
            api_key: None,
            base_url: DEFAULT_BASE_URL.to_owned(),
            response_timeout: Duration::from_secs(300),
            idle_timeout: Duration::from_secs(600),
        }
    }
}

impl fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("base_url", &self.base_url)
            .field("response_timeout", &self.response_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .finish()
    }
}

/// A model behind OpenAI's chat-completions API, OpenAI's own or a compatible server's.
#[derive(Debug, Clone)]
pub struct OpenAi {
    config: OpenAiConfig,
    client: reqwest::Client,
}

impl OpenAi {
    /// A provider that sends its requests through `client` (share one client, so connections
    /// are reused).
    pub fn new(config: OpenAiConfig, client: reqwest::Client) -> Self {
        Self { config, client }
    }

    async fn run(&self, request: &LlmRequest, sink: &dyn TextSink) -> Result<LlmReply, ProviderError> {
        let has_key = self.config.api_key.as_deref().is_some_and(|key| !key.trim().is_empty());
        let peer = Peer {
            provider: self.config.provider_name(),
            endpoint: format!("{}/chat/completions", self.config.base_url()),
            model: request.model.clone(),
            key_hint: if has_key {
                "check the key in Beckon's settings or OPENAI_API_KEY".to_owned()
            } else {
                "this server needs an API key: add one in Beckon's settings or set OPENAI_API_KEY".to_owned()
            },
        };
        let limit = if self.config.is_openai() { TokenLimit::MaxCompletionTokens } else { TokenLimit::MaxTokens };
        let mut http = self.client.post(&peer.endpoint).json(&ChatBody::new(request, limit));
        if let Some(authorization) = self.authorization()? {
            http = http.header(AUTHORIZATION, authorization);
        }
        tracing::debug!(provider = %peer.provider, model = %request.model, turns = request.turns.len(), "asking for a completion");
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

    /// `Bearer <key>` marked sensitive, so no HTTP-level log shows it; `None` with no key.
    fn authorization(&self) -> Result<Option<HeaderValue>, ProviderError> {
        let key = self.config.api_key.as_deref().map(str::trim).unwrap_or_default();
        if key.is_empty() {
            if self.config.is_openai() {
                return Err(ProviderError::new(
                    ProviderErrorKind::Auth,
                    "No OpenAI API key is set; add one in Beckon's settings or set OPENAI_API_KEY",
                ));
            }
            return Ok(None);
        }
        let mut value = HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| {
            ProviderError::new(
                ProviderErrorKind::Auth,
                "The OpenAI API key contains characters an HTTP header cannot carry; check the key in Beckon's \
                 settings or OPENAI_API_KEY",
            )
        })?;
        value.set_sensitive(true);
        Ok(Some(value))
    }
}

impl Provider for OpenAi {
    fn complete<'a>(&'a self, request: &'a LlmRequest, sink: &'a dyn TextSink) -> Completion<'a> {
        Box::pin(self.run(request, sink))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_the_key() {
        let config = OpenAiConfig::new("sk-secret");
        let shown = format!("{config:?} {:?}", OpenAi::new(config.clone(), reqwest::Client::new()));
        assert!(!shown.contains("sk-secret"), "{shown}");
    }

    #[test]
    fn openai_itself_is_told_from_compatible_servers() {
        assert!(OpenAiConfig::default().is_openai());
        assert!(OpenAiConfig::compatible("https://example.openai.azure.com/openai/v1").is_openai());
        let ollama = OpenAiConfig::compatible("http://LocalHost:11434/v1/");
        assert!(!ollama.is_openai());
        assert_eq!(ollama.provider_name(), "the OpenAI-compatible server at localhost:11434");
        assert_eq!(ollama.base_url(), "http://LocalHost:11434/v1");
        assert_eq!(OpenAiConfig::compatible("not a url").provider_name(), "the OpenAI-compatible server at not a url");
    }
}
