//! The app's settings as the window shows and edits them. The file, how the environment
//! overrides it, how an edit changes it and what it may hold are the runtime's
//! ([`beckon_runtime::Settings`], [`SettingsFile::check`](beckon_runtime::settings::SettingsFile::check)),
//! shared with `beckon serve`.

use std::ops::{Deref, DerefMut};
use std::path::Path;

use beckon_core::Problems;
use beckon_core::agent::ProviderKind;
use beckon_runtime::ProviderSettings;
use beckon_runtime::settings::{ChannelFile, ChannelInput, ProviderInput, env, non_empty};
use serde::{Deserialize, Serialize};

/// One provider as the settings screen shows it: never the key itself.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderView {
    /// Whether a key is set (in the file or the environment).
    pub key_set: bool,
    /// Whether the environment sets it (and so overrides the file).
    pub key_from_env: bool,
    /// The base URL in effect, if not the provider's own.
    pub base_url: Option<String>,
    /// The default model in effect.
    pub model: Option<String>,
}

/// One channel as the settings screen shows it: never a token itself.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelView {
    /// Whether the channel runs.
    pub enabled: bool,
    /// Whether a bot token is stored.
    pub bot_token_set: bool,
    /// Whether an app-level token is stored (Slack only).
    pub app_token_set: bool,
    /// Slack: the channel (`C…`) questions that allow nothing are posted to.
    pub channel: Option<String>,
    /// Slack: the person's own member id (`U…`); approvals go only to their direct messages.
    pub person: Option<String>,
    /// The service's API address, if not its own.
    pub api_base_url: Option<String>,
    /// Only questions unanswered this many minutes after they were asked (0: at once).
    pub after_minutes: u32,
    /// Only these agents' questions (empty: every agent's).
    pub agents: Vec<String>,
}

impl ChannelView {
    /// What the window shows of `file`.
    pub fn of(file: &ChannelFile) -> ChannelView {
        ChannelView {
            enabled: file.enabled,
            bot_token_set: file.bot_token().is_some(),
            app_token_set: file.app_token().is_some(),
            channel: non_empty(file.channel.clone()),
            person: non_empty(file.person.clone()),
            api_base_url: non_empty(file.api_base_url.clone()),
            after_minutes: file.after_minutes,
            agents: file.agents.clone(),
        }
    }
}

/// The settings as the window shows them.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingsView {
    /// Anthropic's Messages API.
    pub anthropic: ProviderView,
    /// An OpenAI-compatible API.
    pub openai: ProviderView,
    /// The agent a new chat starts with.
    pub default_agent: Option<String>,
    /// The provider for agents that name none.
    pub default_provider: Option<ProviderKind>,
    /// Notifications are silenced (the tray still counts).
    pub do_not_disturb: bool,
    /// Minutes before a reminder about a question still waiting; 0 turns reminders off.
    pub reminder_minutes: u32,
    /// Finished sessions older than this many days are deleted; never when unset.
    pub retention_days: Option<u32>,
    /// HTTP, MCP and the CLI may allow tool calls waiting for approval.
    pub scripts_may_approve: bool,
    /// The environment (`BECKON_SCRIPTS_MAY_APPROVE`) lets them, whatever the file says.
    pub scripts_may_approve_from_env: bool,
    /// Questions posted to Slack and answered there.
    pub slack: ChannelView,
    /// Questions posted to Telegram and answered there.
    pub telegram: ChannelView,
    /// The person put the getting-started guide away ("Got it"); the window no longer opens on it.
    pub guide_dismissed: bool,
    /// The settings file.
    pub file: String,
    /// Why the file could not be read, if it could not (defaults are in use).
    pub problem: Option<String>,
}

/// New settings from the window.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsInput {
    /// Anthropic.
    pub anthropic: ProviderInput,
    /// OpenAI-compatible.
    pub openai: ProviderInput,
    /// The agent a new chat starts with.
    pub default_agent: Option<String>,
    /// The provider for agents that name none.
    pub default_provider: Option<ProviderKind>,
    /// Silence notifications.
    pub do_not_disturb: bool,
    /// Reminder interval in minutes (0: off).
    pub reminder_minutes: u32,
    /// Retention in days (none: keep everything).
    pub retention_days: Option<u32>,
    /// Let HTTP, MCP and the CLI allow tool calls.
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub scripts_may_approve: Option<bool>,
    /// Slack (absent: as it is).
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub slack: Option<ChannelInput>,
    /// Telegram (absent: as it is).
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub telegram: Option<ChannelInput>,
}

/// Why new settings were not saved.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// Some values are refused, each at its field's path (`slack.after_minutes`); nothing was
    /// saved.
    #[error("{}", .0.iter().map(|p| p.message.as_str()).collect::<Vec<_>>().join(" "))]
    Invalid(Problems),
    /// The file could not be written.
    #[error("the settings could not be saved: {0}")]
    Io(#[from] std::io::Error),
}

/// The runtime's settings, with what the window shows and how it saves.
#[derive(Debug, Clone)]
pub struct Settings(beckon_runtime::Settings);

impl Deref for Settings {
    type Target = beckon_runtime::Settings;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl DerefMut for Settings {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Settings {
    /// Reads `settings.json` in `data_dir` (see [`beckon_runtime::Settings::load`]).
    pub fn load(data_dir: &Path) -> Settings {
        Settings(beckon_runtime::Settings::load(data_dir))
    }

    /// Whether notifications are silenced.
    pub fn do_not_disturb(&self) -> bool {
        self.file().do_not_disturb
    }

    /// Reminder interval in minutes (0: off).
    pub fn reminder_minutes(&self) -> u32 {
        self.file().reminder_minutes
    }

    /// Turns "do not disturb" on or off and saves.
    pub fn set_do_not_disturb(&mut self, on: bool) -> std::io::Result<()> {
        self.update(|file| file.do_not_disturb = on)
    }

    /// Puts the getting-started guide away for good and saves.
    pub fn dismiss_guide(&mut self) -> std::io::Result<()> {
        self.update(|file| file.guide_dismissed = true)
    }

    fn view_of(settings: &ProviderSettings, prefix: &str) -> ProviderView {
        ProviderView {
            key_set: settings.api_key.is_some(),
            key_from_env: env(&format!("{prefix}_API_KEY")).is_some(),
            base_url: settings.base_url.clone(),
            model: settings.model.clone(),
        }
    }

    /// What the window shows.
    pub fn view(&self) -> SettingsView {
        let file = self.file();
        SettingsView {
            anthropic: Self::view_of(&self.anthropic(), "ANTHROPIC"),
            openai: Self::view_of(&self.openai(), "OPENAI"),
            default_agent: self.default_agent(),
            default_provider: file.default_provider,
            do_not_disturb: file.do_not_disturb,
            reminder_minutes: file.reminder_minutes,
            retention_days: file.retention_days,
            scripts_may_approve: file.scripts_may_approve,
            scripts_may_approve_from_env: beckon_runtime::scripts_may_approve_from_env(),
            slack: ChannelView::of(&file.slack),
            telegram: ChannelView::of(&file.telegram),
            guide_dismissed: file.guide_dismissed,
            file: self.path().display().to_string(),
            problem: self.problem().map(str::to_owned),
        }
    }

    /// The channels' settings as stored: Slack's, then Telegram's.
    pub fn channels(&self) -> (&ChannelFile, &ChannelFile) {
        (&self.file().slack, &self.file().telegram)
    }

    /// Applies new settings and saves them, or saves nothing and says what is wrong. A provider
    /// or channel whose address changes loses its stored key or tokens unless they come with
    /// the change.
    pub fn apply(&mut self, input: SettingsInput) -> Result<(), SaveError> {
        let mut file = self.file().clone();
        file.anthropic.apply(input.anthropic);
        file.openai.apply(input.openai);
        file.default_agent = non_empty(input.default_agent);
        file.default_provider = input.default_provider;
        file.do_not_disturb = input.do_not_disturb;
        file.reminder_minutes = input.reminder_minutes;
        file.retention_days = input.retention_days;
        if let Some(allowed) = input.scripts_may_approve {
            file.scripts_may_approve = allowed;
        }
        if let Some(slack) = input.slack {
            file.slack.apply(slack);
        }
        if let Some(telegram) = input.telegram {
            file.telegram.apply(telegram);
        }
        file.check().map_err(SaveError::Invalid)?;
        Ok(self.update(|stored| *stored = file)?)
    }
}

#[cfg(test)]
mod tests {
    use beckon_runtime::settings::{AFTER_MINUTES_MAX, AGENTS_MAX};

    use super::*;

    #[test]
    fn the_view_never_shows_a_token() {
        let file = ChannelFile {
            enabled: true,
            bot_token: Some("xoxb-secret-bot".into()),
            app_token: Some("xapp-secret-app".into()),
            channel: Some("C0123456789".into()),
            ..ChannelFile::default()
        };
        let view = ChannelView::of(&file);
        assert!(view.bot_token_set && view.app_token_set);
        let shown = format!("{} {view:?}", serde_json::to_string(&view).unwrap());
        assert!(!shown.contains("secret"), "{shown}");
    }

    #[test]
    fn saved_settings_are_private_and_keys_never_show() {
        let dir = tempfile::tempdir().unwrap();
        let mut settings = Settings::load(dir.path());
        assert_eq!(settings.view().reminder_minutes, beckon_runtime::settings::DEFAULT_REMINDER_MINUTES);
        settings
            .apply(SettingsInput {
                anthropic: ProviderInput {
                    api_key: Some("sk-ant-secret".into()),
                    base_url: Some(" ".into()),
                    model: Some("claude-x".into()),
                },
                reminder_minutes: 0,
                do_not_disturb: true,
                ..SettingsInput::default()
            })
            .unwrap();
        let path = dir.path().join("settings.json");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        let reread = Settings::load(dir.path());
        assert_eq!(reread.file().anthropic.api_key.as_deref(), Some("sk-ant-secret"));
        assert_eq!(reread.file().anthropic.base_url, None, "blank means the provider's own");
        let view = serde_json::to_string(&reread.view()).unwrap();
        assert!(!view.contains("sk-ant-secret"), "{view}");
        assert!(reread.view().do_not_disturb);
        // An absent key keeps the stored one; an empty one clears it.
        let mut again = reread.clone();
        again.apply(SettingsInput::default()).unwrap();
        assert_eq!(Settings::load(dir.path()).file().anthropic.api_key.as_deref(), Some("sk-ant-secret"));
        again
            .apply(SettingsInput {
                anthropic: ProviderInput { api_key: Some(String::new()), ..ProviderInput::default() },
                ..SettingsInput::default()
            })
            .unwrap();
        assert_eq!(Settings::load(dir.path()).file().anthropic.api_key, None);
    }

    #[test]
    fn a_new_base_url_drops_the_key_given_for_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let mut settings = Settings::load(dir.path());
        let openai = |api_key: Option<&str>, base_url: &str| SettingsInput {
            openai: ProviderInput { api_key: api_key.map(str::to_owned), base_url: Some(base_url.into()), model: None },
            ..SettingsInput::default()
        };
        settings.apply(openai(Some("sk-secret"), "https://api.example.com/v1")).unwrap();
        settings.apply(openai(None, "https://api.example.com/v1")).unwrap();
        assert_eq!(settings.file().openai.api_key.as_deref(), Some("sk-secret"), "the same address keeps its key");

        settings.apply(openai(None, "http://elsewhere.example:8080/v1")).unwrap();
        assert_eq!(Settings::load(dir.path()).file().openai.api_key, None, "not sent to the new address");
        assert!(!settings.view().openai.key_set, "the window shows that a key is needed");

        settings.apply(openai(Some("sk-new"), "http://elsewhere.example:8080/v1")).unwrap();
        assert_eq!(
            Settings::load(dir.path()).file().openai.api_key.as_deref(),
            Some("sk-new"),
            "a key given with it is kept"
        );
    }

    fn slack_on(bot_token: Option<&str>) -> ChannelInput {
        ChannelInput {
            enabled: true,
            bot_token: bot_token.map(str::to_owned),
            app_token: Some("xapp-1-secret-app".into()),
            channel: Some("C0123456789".into()),
            after_minutes: 15,
            agents: vec!["research".into()],
            ..ChannelInput::default()
        }
    }

    #[test]
    fn channels_are_saved_and_their_tokens_never_show() {
        let dir = tempfile::tempdir().unwrap();
        let mut settings = Settings::load(dir.path());
        let telegram =
            ChannelInput { enabled: false, bot_token: Some("123:telegram-secret".into()), ..ChannelInput::default() };
        let input = SettingsInput {
            slack: Some(slack_on(Some("xoxb-secret-bot"))),
            telegram: Some(telegram),
            ..SettingsInput::default()
        };
        assert!(!format!("{input:?}").contains("secret"), "{input:?}");
        settings.apply(input).unwrap();
        let reread = Settings::load(dir.path());
        assert_eq!(reread.file().slack.bot_token.as_deref(), Some("xoxb-secret-bot"));
        assert_eq!(reread.file().telegram.bot_token.as_deref(), Some("123:telegram-secret"));
        let view = reread.view();
        let shown = format!("{} {view:?} {:?}", serde_json::to_string(&view).unwrap(), reread.channels());
        assert!(!shown.contains("secret"), "{shown}");
        assert!(view.slack.enabled && view.slack.bot_token_set && view.slack.app_token_set);
        assert_eq!((view.slack.after_minutes, view.slack.agents.as_slice()), (15, ["research".to_owned()].as_slice()));
        assert!(!view.telegram.enabled && view.telegram.bot_token_set && !view.telegram.app_token_set);

        // Absent channels stay as they are; absent tokens are kept.
        let mut again = reread.clone();
        again.apply(SettingsInput::default()).unwrap();
        again.apply(SettingsInput { slack: Some(slack_on(None)), ..SettingsInput::default() }).unwrap();
        assert_eq!(Settings::load(dir.path()).file().slack.bot_token.as_deref(), Some("xoxb-secret-bot"));
        assert_eq!(Settings::load(dir.path()).file().telegram, reread.file().telegram);
    }

    #[test]
    fn refused_channel_settings_save_nothing_and_name_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let mut settings = Settings::load(dir.path());
        settings.apply(SettingsInput { slack: Some(slack_on(Some("xoxb-1"))), ..SettingsInput::default() }).unwrap();
        let before = std::fs::read_to_string(dir.path().join("settings.json")).unwrap();
        let wrong = SettingsInput {
            reminder_minutes: 5,
            slack: Some(ChannelInput { after_minutes: AFTER_MINUTES_MAX + 1, ..slack_on(Some("xoxb-2")) }),
            ..SettingsInput::default()
        };
        let Err(SaveError::Invalid(problems)) = settings.apply(wrong) else { panic!("refused") };
        assert_eq!(problems.first_path(), Some("slack.after_minutes"));
        let message = SaveError::Invalid(problems).to_string();
        assert!(message.starts_with("Slack's \"post only after\" must be at most 10080 minutes"), "{message}");
        assert_eq!(std::fs::read_to_string(dir.path().join("settings.json")).unwrap(), before, "nothing saved");
        assert_eq!(settings.file().slack.bot_token.as_deref(), Some("xoxb-1"));
        assert_eq!(settings.file().reminder_minutes, 0, "nor the other fields");

        let too_many =
            ChannelInput { agents: (0..=AGENTS_MAX).map(|i| format!("a{i}")).collect(), ..ChannelInput::default() };
        let Err(SaveError::Invalid(problems)) =
            settings.apply(SettingsInput { telegram: Some(too_many), ..SettingsInput::default() })
        else {
            panic!("refused")
        };
        assert_eq!(problems.first_path(), Some("telegram.agents"));
    }

    #[test]
    fn the_guide_stays_away_once_dismissed_whatever_else_is_saved() {
        let dir = tempfile::tempdir().unwrap();
        let mut settings = Settings::load(dir.path());
        assert!(!settings.view().guide_dismissed, "a new data folder shows the guide");
        settings.dismiss_guide().unwrap();
        settings.apply(SettingsInput { reminder_minutes: 5, ..SettingsInput::default() }).unwrap();
        let reread = Settings::load(dir.path());
        assert!(reread.view().guide_dismissed);
        assert_eq!(reread.view().reminder_minutes, 5);
        // A file written before the guide existed reads as not dismissed.
        std::fs::write(dir.path().join("settings.json"), r#"{"reminder_minutes": 7}"#).unwrap();
        let older = Settings::load(dir.path());
        assert!(older.problem().is_none() && !older.view().guide_dismissed);
    }

    #[test]
    fn an_unreadable_file_means_defaults_and_a_reported_problem() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("settings.json"), "{not json").unwrap();
        let settings = Settings::load(dir.path());
        assert!(settings.view().problem.unwrap().contains("could not be read"));
        assert_eq!(std::fs::read_to_string(dir.path().join("settings.json")).unwrap(), "{not json", "left as it was");
    }
}
