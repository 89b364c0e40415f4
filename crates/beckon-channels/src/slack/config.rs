//! Where and as whom Beckon talks to Slack: the two tokens (secrets), the person and the
//! channel.

use std::fmt;

/// Where and as whom Beckon talks to Slack.
#[derive(Clone)]
pub struct SlackConfig {
    /// The app-level token (`xapp-…`, scope `connections:write`), for Socket Mode.
    pub app_token: String,
    /// The bot token (`xoxb-…`), for the Web API.
    pub bot_token: String,
    /// The person's own member id (`U…`): questions only they may answer go to their direct
    /// messages with the app, and only their presses answer those. None: such questions are
    /// not posted to Slack.
    pub person: Option<String>,
    /// The channel id (`C…`) for questions that allow nothing; none: those go to the person.
    pub channel: Option<String>,
    /// The Web API's base URL, normally [`SlackConfig::DEFAULT_API_BASE`].
    pub api_base: String,
}

impl SlackConfig {
    /// Slack's Web API.
    pub const DEFAULT_API_BASE: &'static str = "https://slack.com/api";

    /// A configuration for Slack's own API.
    pub fn new(
        app_token: impl Into<String>,
        bot_token: impl Into<String>,
        person: Option<String>,
        channel: Option<String>,
    ) -> Self {
        SlackConfig {
            app_token: app_token.into(),
            bot_token: bot_token.into(),
            person,
            channel,
            api_base: Self::DEFAULT_API_BASE.to_owned(),
        }
    }
}

impl fmt::Debug for SlackConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SlackConfig")
            .field("app_token", &"[redacted]")
            .field("bot_token", &"[redacted]")
            .field("person", &self.person)
            .field("channel", &self.channel)
            .field("api_base", &self.api_base)
            .finish()
    }
}
