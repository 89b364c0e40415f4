//! LLM providers: what the executor sends a model and what comes back.
//!
//! A provider makes one attempt per call and classifies its failure; retrying (with backoff
//! that honours `retry-after`, bounded by `MAX_LLM_ATTEMPTS`) is the conversation state
//! machine's job, so a retry survives a restart.

mod anthropic;
mod openai;
mod scripted;
mod set;
mod sse;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use beckon_core::conversation::{ToolCall, ToolResult};
use serde_json::Value;

pub use anthropic::{Anthropic, AnthropicConfig};
pub use openai::{OpenAi, OpenAiConfig};
pub use scripted::{Script, Scripted};
pub(crate) use set::ProviderSet;

/// One piece of a turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// Text.
    Text(String),
    /// A tool call the model made (assistant turns only).
    ToolUse(ToolCall),
    /// A tool's result (user turns only).
    ToolResult(ToolResult),
}

/// One turn of the conversation, as providers see it. Consecutive blocks of the same role
/// are already grouped into one turn; every `ToolUse` is answered by a `ToolResult` in the
/// next user turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Turn {
    /// The person's messages and tool results.
    User(Vec<Block>),
    /// The model's text and tool calls.
    Assistant(Vec<Block>),
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// Its name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// A JSON Schema of its input.
    pub input_schema: Value,
}

/// Everything a provider needs for one completion.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmRequest {
    /// The model name.
    pub model: String,
    /// The system prompt.
    pub system: String,
    /// The conversation so far, oldest first; never empty, starts with a user turn.
    pub turns: Vec<Turn>,
    /// The tools on offer.
    pub tools: Vec<ToolSpec>,
    /// The most tokens to generate.
    pub max_tokens: u32,
}

/// What the model said.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LlmReply {
    /// Its text (all text blocks joined).
    pub text: String,
    /// Its tool calls, in order.
    pub tool_calls: Vec<ToolCall>,
}

/// Why a completion failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderErrorKind {
    /// The key is missing, wrong or not allowed (401, 403). Not retried.
    Auth,
    /// The request was refused as invalid: unknown model, bad parameters (400, 404, 422).
    /// Not retried.
    BadRequest,
    /// Too many requests (429). Retried, after `retry_after` when the server gave one.
    RateLimited,
    /// The server failed or is overloaded (5xx, 529, an `error` event in the stream).
    /// Retried.
    Server,
    /// The server could not be reached, or the connection broke. Retried.
    Network,
    /// The reply could not be understood (malformed stream or JSON). Not retried.
    Protocol,
}

/// A failed completion, with a message a person can act on.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderError {
    /// What kind of failure.
    pub kind: ProviderErrorKind,
    /// What happened, naming the provider, the status and the server's own message.
    pub message: String,
    /// How long the server asked us to wait before trying again.
    pub retry_after: Option<Duration>,
}

impl ProviderError {
    /// A failure of `kind`.
    pub fn new(kind: ProviderErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), retry_after: None }
    }

    /// Whether trying again may help.
    pub fn retryable(&self) -> bool {
        matches!(self.kind, ProviderErrorKind::RateLimited | ProviderErrorKind::Server | ProviderErrorKind::Network)
    }
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ProviderError {}

/// Receives the model's text as it streams, for live display. Not persisted.
pub trait TextSink: Send + Sync {
    /// A piece of text, in order.
    fn text(&self, delta: &str);
}

/// A sink that drops everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoText;

impl TextSink for NoText {
    fn text(&self, _delta: &str) {}
}

/// What `Provider::complete` returns.
pub type Completion<'a> = Pin<Box<dyn Future<Output = Result<LlmReply, ProviderError>> + Send + 'a>>;

/// An LLM behind an API.
pub trait Provider: Send + Sync + fmt::Debug {
    /// Asks the model for its next turn, streaming its text to `sink`. One attempt.
    fn complete<'a>(&'a self, request: &'a LlmRequest, sink: &'a dyn TextSink) -> Completion<'a>;
}

/// The HTTP client providers are called with. It never follows a redirect: a redirect would
/// carry the API key (in a header reqwest does not know to drop) to the address it names.
pub fn http_client() -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .redirect(reqwest::redirect::Policy::none())
        .build()
}

/// The Anthropic provider for these settings, when a key is set.
pub(crate) fn anthropic_from(
    settings: &crate::config::ProviderSettings,
    http: &reqwest::Client,
) -> Option<std::sync::Arc<dyn Provider>> {
    let key = settings.api_key.clone()?;
    let mut config = AnthropicConfig::new(key);
    if let Some(base_url) = &settings.base_url {
        config.base_url = base_url.clone();
    }
    Some(std::sync::Arc::new(Anthropic::new(config, http.clone())))
}

/// The OpenAI-compatible provider for these settings, when a key or base URL is set.
pub(crate) fn openai_from(
    settings: &crate::config::ProviderSettings,
    http: &reqwest::Client,
) -> Option<std::sync::Arc<dyn Provider>> {
    let config = match (&settings.api_key, &settings.base_url) {
        (None, None) => return None,
        (key, Some(base_url)) => OpenAiConfig { api_key: key.clone(), ..OpenAiConfig::compatible(base_url.clone()) },
        (Some(key), None) => OpenAiConfig::new(key.clone()),
    };
    Some(std::sync::Arc::new(OpenAi::new(config, http.clone())))
}
