//! How a runtime is set up: where its data lives and how it reaches LLM providers.

use std::path::PathBuf;

use beckon_core::agent::ProviderKind;

use crate::callbacks::CallbackDestinations;

pub use beckon_client::{APP_ID, app_data_dir, default_data_dir};

/// One provider's connection settings. `Debug` shows whether a key is set, never the key.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ProviderSettings {
    /// The API key (optional for local OpenAI-compatible servers such as Ollama).
    pub api_key: Option<String>,
    /// The API's base URL; the provider's public one when `None`.
    pub base_url: Option<String>,
    /// The model agents use when their file names none.
    pub model: Option<String>,
}

impl std::fmt::Debug for ProviderSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderSettings")
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .finish()
    }
}

/// How many days the audit trail keeps a decision unless told otherwise.
pub const DEFAULT_AUDIT_DAYS: u32 = 365;

/// A runtime's configuration.
#[derive(Debug, Clone)]
pub struct RuntimeConfig {
    /// The data folder: `beckon.db`, `beckon.lock`, `agents/`, `workspaces/`.
    pub data_dir: PathBuf,
    /// Who this runtime is, written into the data dir's lock ("Beckon desktop", "beckon serve").
    pub holder: String,
    /// Anthropic's Messages API.
    pub anthropic: ProviderSettings,
    /// An OpenAI-compatible Chat Completions API.
    pub openai: ProviderSettings,
    /// The provider for agents whose file names none; the first configured one when `None`.
    pub default_provider: Option<ProviderKind>,
    /// Delete finished sessions older than this many days; `None` keeps everything.
    pub retention_days: Option<u32>,
    /// Delete audit rows older than this many days (whether or not sessions are kept); at
    /// least one day.
    pub audit_days: u32,
    /// Whether HTTP, MCP and the CLI may allow a tool call waiting for approval. Off by
    /// default: the gateway's token is readable by the very agent that asks, which could
    /// otherwise approve itself.
    pub scripts_may_approve: bool,
    /// URL prefixes of Slack-compatible incoming webhooks (Mattermost, Rocket.Chat, a relay)
    /// whose callbacks are sent as Slack messages, besides Slack's own `https://hooks.slack.com/`.
    pub slack_webhooks: Vec<String>,
    /// A PostgreSQL database shared by several `beckon serve` replicas (`postgres://…`), in place
    /// of the data folder's `beckon.db`.
    pub database_url: Option<String>,
    /// How long a replica's claim on shared work lasts unless renewed: how long the work of a
    /// replica that died waits before another takes it up (PostgreSQL only).
    pub lease: std::time::Duration,
    /// The receivers callbacks may go to: anywhere for the desktop app (its callbacks are the
    /// person's own); public addresses and the operator's networks for a server facing a
    /// network.
    pub callback_destinations: CallbackDestinations,
    /// How long a signed-in person's session (a browser's or a connected app's) lasts before
    /// they must sign in again.
    pub person_session_lifetime: std::time::Duration,
    /// How long a person's Slack or Telegram pairing answers for them after they last signed in:
    /// someone who left the team and signs in no more stops answering from their phone.
    pub pairing_window: std::time::Duration,
}

/// How long a signed-in session lasts unless a server says otherwise: a week.
pub const DEFAULT_PERSON_SESSION_LIFETIME: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);
/// How long a pairing answers after its person last signed in unless a server says otherwise.
pub const DEFAULT_PAIRING_WINDOW: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);

/// The environment variable naming the PostgreSQL database of a team server.
pub const DATABASE_URL_ENV: &str = "BECKON_DATABASE_URL";

/// The environment variable naming Slack-compatible incoming webhooks: URL prefixes separated by
/// commas or spaces.
pub const SLACK_WEBHOOKS_ENV: &str = "BECKON_SLACK_WEBHOOKS";

/// The Slack-compatible webhook prefixes the environment names.
pub fn slack_webhooks_from_env() -> Vec<String> {
    std::env::var(SLACK_WEBHOOKS_ENV)
        .unwrap_or_default()
        .split([',', ' '])
        .map(str::trim)
        .filter(|prefix| prefix.starts_with("https://") || prefix.starts_with("http://"))
        .map(str::to_owned)
        .collect()
}

/// The environment variable that lets scripts approve tool calls (`1` or `true`).
pub const SCRIPTS_MAY_APPROVE_ENV: &str = "BECKON_SCRIPTS_MAY_APPROVE";

/// Whether the environment lets scripts approve tool calls.
pub fn scripts_may_approve_from_env() -> bool {
    std::env::var(SCRIPTS_MAY_APPROVE_ENV).is_ok_and(|value| matches!(value.trim(), "1" | "true" | "yes"))
}

impl RuntimeConfig {
    /// A configuration with no provider keys: only the offline demo agent can run.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        RuntimeConfig {
            data_dir: data_dir.into(),
            holder: "Beckon".into(),
            anthropic: ProviderSettings::default(),
            openai: ProviderSettings::default(),
            default_provider: None,
            retention_days: None,
            audit_days: DEFAULT_AUDIT_DAYS,
            scripts_may_approve: false,
            slack_webhooks: Vec::new(),
            database_url: None,
            lease: crate::leases::DEFAULT_LEASE,
            callback_destinations: CallbackDestinations::Anywhere,
            person_session_lifetime: DEFAULT_PERSON_SESSION_LIFETIME,
            pairing_window: DEFAULT_PAIRING_WINDOW,
        }
    }

    /// The database file.
    pub fn database_path(&self) -> PathBuf {
        self.data_dir.join("beckon.db")
    }

    /// The folder agent files are loaded from.
    pub fn agents_dir(&self) -> PathBuf {
        self.data_dir.join("agents")
    }

    /// The folder holding one workspace per top-level session.
    pub fn workspaces_dir(&self) -> PathBuf {
        self.data_dir.join("workspaces")
    }
}
