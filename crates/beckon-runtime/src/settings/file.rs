//! `settings.json` as stored: every value the person set, with its default when absent.

use beckon_core::agent::ProviderKind;
use serde::{Deserialize, Serialize};

use super::channel::ChannelFile;
use super::provider::ProviderFile;

/// The default interval for reminders about a question still pending.
pub const DEFAULT_REMINDER_MINUTES: u32 = 30;
/// The port the gateway listens on unless told otherwise.
pub const DEFAULT_GATEWAY_PORT: u16 = 7393;

/// The file as stored.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// Audit rows older than this many days are deleted (365 unless set).
    pub audit_days: u32,
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
            audit_days: crate::config::DEFAULT_AUDIT_DAYS,
            gateway_port: DEFAULT_GATEWAY_PORT,
            scripts_may_approve: false,
            slack: ChannelFile::default(),
            telegram: ChannelFile::default(),
            guide_dismissed: false,
        }
    }
}
