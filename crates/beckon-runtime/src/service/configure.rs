//! What the settings change while Beckon runs: who may approve, providers, the gateway's
//! address, the callback secret.

use std::path::Path;

use beckon_core::agent::ProviderKind;

use super::handle::Beckon;
use crate::config::{ProviderSettings, RuntimeConfig};
use crate::error::Result;
use crate::executor::Executor;
use crate::providers::ProviderSet;
use crate::runtime::{Approvals, CallbackLinks, Records};

/// What the settings change while Beckon runs, and where it runs.
#[derive(Debug, Clone, Copy)]
pub struct Configuration<'a> {
    config: &'a RuntimeConfig,
    records: &'a Records,
    /// Whether scripts may approve.
    approvals: &'a Approvals,
    /// The providers Beckon's own agents use.
    executor: &'a Executor,
    /// The public URL and the callback secret.
    callbacks: &'a CallbackLinks,
}

impl Beckon {
    /// What the settings change while Beckon runs.
    pub fn configuration(&self) -> Configuration<'_> {
        Configuration {
            config: &self.rt.config,
            records: &self.rt.records,
            approvals: &self.rt.approvals,
            executor: &self.rt.executor,
            callbacks: &self.rt.callbacks,
        }
    }
}

impl<'a> Configuration<'a> {
    /// Lets HTTP, MCP and the CLI allow tool calls waiting for approval, or stops them.
    pub fn set_scripts_may_approve(self, allowed: bool) {
        self.approvals.let_scripts_approve(allowed);
    }

    /// Whether HTTP, MCP and the CLI may allow tool calls waiting for approval.
    pub fn scripts_may_approve(self) -> bool {
        self.approvals.scripts_may_approve()
    }

    /// Uses new provider settings from now on (sessions asking a model later pick them up).
    pub fn set_providers(self, anthropic: ProviderSettings, openai: ProviderSettings, default: Option<ProviderKind>) {
        let mut config = self.config.clone();
        config.anthropic = anthropic;
        config.openai = openai;
        config.default_provider = default;
        let providers = ProviderSet::new(&config, &self.executor.http);
        *self.executor.providers.write().unwrap_or_else(std::sync::PoisonError::into_inner) = providers;
    }

    /// Tells the runtime where the gateway listens, so callbacks carry answer links.
    pub fn set_public_url(self, url: Option<String>) {
        self.callbacks.set_public_url(url);
    }

    /// The data folder.
    pub fn data_dir(self) -> &'a Path {
        &self.config.data_dir
    }

    /// Where the data is kept: `"sqlite"` (the data folder's `beckon.db`) or `"postgresql"` (a
    /// database shared by a team server's replicas).
    pub fn database(self) -> &'static str {
        if self.config.database_url.is_some() { "postgresql" } else { "sqlite" }
    }

    /// The secret callbacks are signed with now (receivers verify `Beckon-Signature` with it).
    pub fn callback_secret(self) -> String {
        self.callbacks.secret()
    }

    /// Replaces the callback secret with a new random one and returns it. It is stored before
    /// it is returned, and every callback sent from then on is signed with it; signatures made
    /// with the old one no longer verify against it.
    pub async fn rotate_callback_secret(self) -> Result<String> {
        self.callbacks.rotate_secret(self.records.db()).await
    }
}
