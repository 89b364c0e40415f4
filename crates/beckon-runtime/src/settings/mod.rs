//! The person's settings: a `settings.json` in the data folder, readable only by its owner (it
//! holds API keys), resolved one way for every host — the file, then the environment over it
//! (environment values are never written to the file). The window edits it; the app and
//! `beckon serve` on the same data folder both start from it. How the person's edits change it
//! and what it may hold are here too, so every front end keeps the same rules: the window
//! checks a file before it saves it ([`SettingsFile::check`]), `beckon serve` before it starts.

mod channel;
mod checks;
mod file;
mod provider;
mod value;

use std::path::{Path, PathBuf};

use beckon_core::agent::ProviderKind;

use crate::config::{ProviderSettings, RuntimeConfig, scripts_may_approve_from_env};

pub use channel::{ChannelFile, ChannelInput, is_slack_member};
pub use checks::{AFTER_MINUTES_MAX, AGENTS_MAX};
pub use file::{DEFAULT_GATEWAY_PORT, DEFAULT_REMINDER_MINUTES, SettingsFile};
pub use provider::{ProviderFile, ProviderInput};
pub use value::non_empty;

/// The file's name in the data folder.
pub const FILE_NAME: &str = "settings.json";

/// The settings file and what the environment overrides.
#[derive(Debug, Clone)]
pub struct Settings {
    path: PathBuf,
    file: SettingsFile,
    problem: Option<String>,
}

/// An environment variable's value, if set and not blank.
pub fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl Settings {
    /// Reads `settings.json` in `data_dir`. A missing file means defaults; an unreadable one
    /// means defaults too, with the problem reported (the file is not overwritten until the
    /// person saves).
    pub fn load(data_dir: &Path) -> Settings {
        let path = data_dir.join(FILE_NAME);
        let unreadable = |err: &dyn std::fmt::Display| {
            Some(format!("{} could not be read ({err}); defaults are in use", path.display()))
        };
        let (file, problem) = match std::fs::read_to_string(&path) {
            Ok(text) => match serde_json::from_str(&text) {
                Ok(file) => (file, None),
                Err(err) => (SettingsFile::default(), unreadable(&err)),
            },
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => (SettingsFile::default(), None),
            Err(err) => (SettingsFile::default(), unreadable(&err)),
        };
        Settings { path, file, problem }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's values as stored (without the environment).
    pub fn file(&self) -> &SettingsFile {
        &self.file
    }

    /// Why the file could not be read, if it could not.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    fn provider(file: &ProviderFile, prefix: &str) -> ProviderSettings {
        ProviderSettings {
            api_key: env(&format!("{prefix}_API_KEY")).or_else(|| non_empty(file.api_key.clone())),
            base_url: env(&format!("{prefix}_BASE_URL")).or_else(|| non_empty(file.base_url.clone())),
            model: env(&format!("{prefix}_MODEL")).or_else(|| non_empty(file.model.clone())),
        }
    }

    /// Anthropic's settings in effect (`ANTHROPIC_API_KEY`, `_BASE_URL`, `_MODEL` over the file).
    pub fn anthropic(&self) -> ProviderSettings {
        Self::provider(&self.file.anthropic, "ANTHROPIC")
    }

    /// The OpenAI-compatible API's settings in effect (`OPENAI_…` over the file).
    pub fn openai(&self) -> ProviderSettings {
        Self::provider(&self.file.openai, "OPENAI")
    }

    /// The provider for agents that name none.
    pub fn default_provider(&self) -> Option<ProviderKind> {
        self.file.default_provider
    }

    /// The agent a new chat starts with, if set (`BECKON_DEFAULT_AGENT` over the file).
    pub fn default_agent(&self) -> Option<String> {
        env("BECKON_DEFAULT_AGENT").or_else(|| self.file.default_agent.clone())
    }

    /// The gateway's port: `BECKON_GATEWAY_PORT`, else the file's (default 7393; 0 picks any).
    pub fn gateway_port(&self) -> u16 {
        env("BECKON_GATEWAY_PORT").and_then(|p| p.parse().ok()).unwrap_or(self.file.gateway_port)
    }

    /// Whether HTTP, MCP and the CLI may allow tool calls: the file's choice, or
    /// `BECKON_SCRIPTS_MAY_APPROVE` turning it on.
    pub fn scripts_may_approve(&self) -> bool {
        self.file.scripts_may_approve || scripts_may_approve_from_env()
    }

    /// The runtime's configuration on the file's data folder, for the host `holder`.
    pub fn runtime_config(&self, holder: &str) -> RuntimeConfig {
        let data_dir = self.path.parent().map(Path::to_path_buf).unwrap_or_default();
        RuntimeConfig {
            holder: holder.into(),
            anthropic: self.anthropic(),
            openai: self.openai(),
            default_provider: self.file.default_provider,
            retention_days: self.file.retention_days,
            audit_days: self.file.audit_days,
            scripts_may_approve: self.scripts_may_approve(),
            slack_webhooks: crate::config::slack_webhooks_from_env(),
            ..RuntimeConfig::new(data_dir)
        }
    }

    /// Changes the file's values with `edit` and saves them; a problem reading it is then gone.
    pub fn update(&mut self, edit: impl FnOnce(&mut SettingsFile)) -> std::io::Result<()> {
        let mut file = self.file.clone();
        edit(&mut file);
        let text = serde_json::to_string_pretty(&file).map_err(std::io::Error::other)?;
        crate::private_file::write(&self.path, text.as_bytes())?;
        self.file = file;
        self.problem = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_values_come_back_and_make_the_runtimes_configuration() {
        let dir = tempfile::tempdir().unwrap();
        let mut settings = Settings::load(dir.path());
        assert_eq!(settings.file(), &SettingsFile::default());
        settings
            .update(|file| {
                file.openai.base_url = Some("http://127.0.0.1:9/v1".into());
                file.openai.model = Some(" ".into());
                file.retention_days = Some(7);
                file.default_provider = Some(ProviderKind::OpenAi);
            })
            .unwrap();
        let config = Settings::load(dir.path()).runtime_config("beckon serve");
        assert_eq!(config.data_dir, dir.path());
        assert_eq!(config.holder, "beckon serve");
        assert_eq!(config.retention_days, Some(7));
        assert_eq!(config.default_provider, Some(ProviderKind::OpenAi));
        assert_eq!(config.openai.base_url.as_deref(), Some("http://127.0.0.1:9/v1"));
        assert_eq!(config.openai.model, None, "blank means Beckon's choice");
    }

    #[test]
    fn an_unreadable_file_means_defaults_a_problem_and_no_change_until_saved() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE_NAME), "{not json").unwrap();
        let mut settings = Settings::load(dir.path());
        assert!(settings.problem().unwrap().contains("could not be read"));
        assert_eq!(std::fs::read_to_string(dir.path().join(FILE_NAME)).unwrap(), "{not json");
        settings.update(|file| file.reminder_minutes = 5).unwrap();
        assert_eq!(settings.problem(), None);
        assert_eq!(Settings::load(dir.path()).file().reminder_minutes, 5);
    }
}
