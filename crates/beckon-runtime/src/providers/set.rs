//! Which provider runs which agent.

use std::sync::Arc;

use beckon_core::agent::{AgentDefinition, ProviderKind};

use super::{Provider, Script, Scripted};
use crate::config::RuntimeConfig;

/// The model used when neither the agent file nor the settings name one.
const ANTHROPIC_DEFAULT_MODEL: &str = "claude-sonnet-4-5";
const OPENAI_DEFAULT_MODEL: &str = "gpt-4o-mini";

/// The configured providers.
pub(crate) struct ProviderSet {
    anthropic: Option<(Arc<dyn Provider>, String)>,
    openai: Option<(Arc<dyn Provider>, String)>,
    default: Option<ProviderKind>,
}

impl ProviderSet {
    /// Builds the providers the configuration has settings for.
    pub(crate) fn new(config: &RuntimeConfig, http: &reqwest::Client) -> ProviderSet {
        let anthropic = super::anthropic_from(&config.anthropic, http).map(|provider| {
            let model = config.anthropic.model.clone().unwrap_or_else(|| ANTHROPIC_DEFAULT_MODEL.into());
            (provider, model)
        });
        let openai = super::openai_from(&config.openai, http).map(|provider| {
            let model = config.openai.model.clone().unwrap_or_else(|| OPENAI_DEFAULT_MODEL.into());
            (provider, model)
        });
        ProviderSet { anthropic, openai, default: config.default_provider }
    }

    /// Whether any network provider is configured.
    pub(crate) fn any_configured(&self) -> bool {
        self.anthropic.is_some() || self.openai.is_some()
    }

    /// The provider and model for an agent (with its script, for the scripted provider), or
    /// why it cannot run.
    pub(crate) fn for_agent(
        &self,
        definition: &AgentDefinition,
        script: Option<&Arc<Script>>,
    ) -> Result<(Arc<dyn Provider>, String), String> {
        let kind = match definition.provider.or(self.default) {
            Some(kind) => kind,
            None if self.anthropic.is_some() => ProviderKind::Anthropic,
            None if self.openai.is_some() => ProviderKind::OpenAi,
            None => {
                return Err("no LLM provider is configured: add an Anthropic or OpenAI key in Settings (or ANTHROPIC_API_KEY / OPENAI_API_KEY), or use the poet demo agent".into());
            }
        };
        let configured = match kind {
            ProviderKind::Scripted => {
                let script = script.ok_or("provider: scripted needs a script")?;
                return Ok((Arc::new(Scripted::new(script.as_ref().clone())), "script".into()));
            }
            ProviderKind::Anthropic => self.anthropic.as_ref().ok_or(
                "it uses Anthropic, but no Anthropic API key is configured (Settings, or ANTHROPIC_API_KEY)",
            )?,
            ProviderKind::OpenAi => self.openai.as_ref().ok_or(
                "it uses an OpenAI-compatible API, but none is configured (Settings, or OPENAI_API_KEY / OPENAI_BASE_URL)",
            )?,
        };
        let model = definition.model.clone().unwrap_or_else(|| configured.1.clone());
        Ok((configured.0.clone(), model))
    }
}
