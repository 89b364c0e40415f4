//! What the settings change while Beckon runs: who may approve, providers, the gateway's
//! address, the callback secret.

use std::path::Path;

use beckon_core::agent::ProviderKind;

use super::handle::Beckon;
use crate::config::ProviderSettings;
use crate::error::Result;
use crate::providers::ProviderSet;

impl Beckon {
    /// Lets HTTP, MCP and the CLI allow tool calls waiting for approval, or stops them.
    pub fn set_scripts_may_approve(&self, allowed: bool) {
        self.rt.approvals.let_scripts_approve(allowed);
    }

    /// Whether HTTP, MCP and the CLI may allow tool calls waiting for approval.
    pub fn scripts_may_approve(&self) -> bool {
        self.rt.approvals.scripts_may_approve()
    }

    /// Uses new provider settings from now on (sessions asking a model later pick them up).
    pub fn configure_providers(
        &self,
        anthropic: ProviderSettings,
        openai: ProviderSettings,
        default: Option<ProviderKind>,
    ) {
        let mut config = self.rt.config.clone();
        config.anthropic = anthropic;
        config.openai = openai;
        config.default_provider = default;
        let providers = ProviderSet::new(&config, &self.rt.executor.http);
        *self.rt.executor.providers.write().unwrap_or_else(std::sync::PoisonError::into_inner) = providers;
    }

    /// Tells the runtime where the gateway listens, so callbacks carry answer links.
    pub fn set_public_url(&self, url: Option<String>) {
        self.rt.callbacks.set_public_url(url);
    }

    /// The data folder.
    pub fn data_dir(&self) -> &Path {
        &self.rt.config.data_dir
    }

    /// Where the data is kept: `"sqlite"` (the data folder's `beckon.db`) or `"postgresql"` (a
    /// database shared by a team server's replicas).
    pub fn database(&self) -> &'static str {
        if self.rt.config.database_url.is_some() { "postgresql" } else { "sqlite" }
    }

    /// The secret callbacks are signed with now (receivers verify `Beckon-Signature` with it).
    pub fn callback_secret(&self) -> String {
        self.rt.callbacks.secret()
    }

    /// Replaces the callback secret with a new random one and returns it. It is stored before
    /// it is returned, and every callback sent from then on is signed with it; signatures made
    /// with the old one no longer verify against it.
    pub async fn rotate_callback_secret(&self) -> Result<String> {
        self.rt.callbacks.rotate_secret(self.rt.records.db()).await
    }
}
