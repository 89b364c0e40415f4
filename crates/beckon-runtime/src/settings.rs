//! The person's settings: a `settings.json` in the data folder, readable only by its owner (it
//! holds API keys), resolved one way for every host — the file, then the environment over it
//! (environment values are never written to the file). The window edits it; the app and
//! `beckon serve` on the same data folder both start from it.

use std::path::{Path, PathBuf};

use beckon_core::agent::ProviderKind;
use serde::{Deserialize, Serialize};

use crate::config::{ProviderSettings, RuntimeConfig, scripts_may_approve_from_env};

/// The default interval for reminders about a question still pending.
pub const DEFAULT_REMINDER_MINUTES: u32 = 30;
/// The port the gateway listens on unless told otherwise.
pub const DEFAULT_GATEWAY_PORT: u16 = 7393;
/// The file's name in the data folder.
pub const FILE_NAME: &str = "settings.json";

/// One provider as the file keeps it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProviderFile {
    /// The API key.
    pub api_key: Option<String>,
    /// The base URL (none: the provider's own).
    pub base_url: Option<String>,
    /// The default model.
    pub model: Option<String>,
}

/// A channel (Slack, Telegram) as the file keeps it: its tokens (secrets, like the providers'
/// keys) and which questions go there.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChannelFile {
    /// Whether the channel runs (its tokens are kept while it is off).
    pub enabled: bool,
    /// The bot's token (Slack `xoxb-…`, Telegram's from BotFather).
    pub bot_token: Option<String>,
    /// Slack's app-level token (`xapp-…`) that opens the Socket Mode connection.
    pub app_token: Option<String>,
    /// Slack: the channel (`C…`) questions that allow nothing are posted to, when the person
    /// wants them there.
    pub channel: Option<String>,
    /// Slack: the person's own member id (`U…`). Only they may allow a tool call or answer a
    /// question that is theirs alone, and such questions go only to their direct messages.
    pub person: Option<String>,
    /// The service's API address (none: the service's own), for a proxy or a test double.
    pub api_base_url: Option<String>,
    /// Only questions still unanswered this many minutes after they were asked (0: at once).
    pub after_minutes: u32,
    /// Only these agents' questions (empty: every agent's).
    pub agents: Vec<String>,
}

impl std::fmt::Debug for ChannelFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Tokens are secrets: say only whether they are set.
        f.debug_struct("ChannelFile")
            .field("enabled", &self.enabled)
            .field("bot_token", &self.bot_token.as_ref().map(|_| "<set>"))
            .field("app_token", &self.app_token.as_ref().map(|_| "<set>"))
            .field("channel", &self.channel)
            .field("person", &self.person)
            .field("api_base_url", &self.api_base_url)
            .field("after_minutes", &self.after_minutes)
            .field("agents", &self.agents)
            .finish()
    }
}

impl ChannelFile {
    /// Slack: the person's member id. A `channel` that names a member (`U…`, `W…`, as earlier
    /// versions allowed for direct messages) is that person when none is set.
    pub fn person(&self) -> Option<String> {
        non_empty(self.person.clone()).or_else(|| non_empty(self.channel.clone()).filter(|id| is_slack_member(id)))
    }

    /// Slack: the channel for questions that allow nothing, when one is set (a member id in
    /// `channel` is the person, not a channel).
    pub fn shared_channel(&self) -> Option<String> {
        non_empty(self.channel.clone()).filter(|id| !is_slack_member(id))
    }

    /// The bot token, when set and not blank.
    pub fn bot_token(&self) -> Option<String> {
        non_empty(self.bot_token.clone())
    }

    /// The app-level token, when set and not blank.
    pub fn app_token(&self) -> Option<String> {
        non_empty(self.app_token.clone())
    }
}

/// Whether `id` names a Slack member (`U…`, or `W…` on Enterprise Grid) rather than a channel.
pub fn is_slack_member(id: &str) -> bool {
    id.starts_with('U') || id.starts_with('W')
}

/// The file as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SettingsFile {
    /// Anthropic's Messages API.
    pub anthropic: ProviderFile,
    /// An OpenAI-compatible API.
    pub openai: ProviderFile,
    /// The agent a new chat starts with.
    pub default_agent: Option<String>,
    /// The provider for agents that name none.
    pub default_provider: Option<ProviderKind>,
    /// Notifications are silenced.
    pub do_not_disturb: bool,
    /// Minutes before a reminder (0: off).
    pub reminder_minutes: u32,
    /// Finished sessions older than this many days are deleted; never when unset.
    pub retention_days: Option<u32>,
    /// The gateway's port on 127.0.0.1 (0 picks any).
    pub gateway_port: u16,
    /// HTTP, MCP and the CLI may allow tool calls waiting for approval.
    pub scripts_may_approve: bool,
    /// Questions posted to Slack and answered there.
    pub slack: ChannelFile,
    /// Questions posted to Telegram and answered there.
    pub telegram: ChannelFile,
    /// The person put the desktop's getting-started guide away; absent in older files, so a
    /// data folder that predates the guide shows it until it is put away.
    #[serde(default)]
    pub guide_dismissed: bool,
}

impl Default for SettingsFile {
    fn default() -> Self {
        SettingsFile {
            anthropic: ProviderFile::default(),
            openai: ProviderFile::default(),
            default_agent: None,
            default_provider: None,
            do_not_disturb: false,
            reminder_minutes: DEFAULT_REMINDER_MINUTES,
            retention_days: None,
            gateway_port: DEFAULT_GATEWAY_PORT,
            scripts_may_approve: false,
            slack: ChannelFile::default(),
            telegram: ChannelFile::default(),
            guide_dismissed: false,
        }
    }
}

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

/// `text` trimmed, or `None` when blank.
pub fn non_empty(text: Option<String>) -> Option<String> {
    text.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty())
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
    fn slacks_person_is_the_member_id_and_an_older_member_channel_is_read_as_them() {
        let both =
            ChannelFile { person: Some(" U0ADA ".into()), channel: Some("C0TEAM".into()), ..ChannelFile::default() };
        assert_eq!((both.person().as_deref(), both.shared_channel().as_deref()), (Some("U0ADA"), Some("C0TEAM")));
        let older = ChannelFile { channel: Some("U0ADA".into()), ..ChannelFile::default() };
        assert_eq!((older.person().as_deref(), older.shared_channel()), (Some("U0ADA"), None));
        let channel_only = ChannelFile { channel: Some("C0TEAM".into()), ..ChannelFile::default() };
        assert_eq!(channel_only.person(), None, "a channel is never the person");
    }

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
