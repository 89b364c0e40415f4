//! A channel's settings (Slack, Telegram): as the file keeps them, and how the person's new
//! settings change them. Tokens are secrets like the providers' keys: an absent token keeps the
//! stored one and an empty one clears it, and a token given for one API address is never sent
//! to another — changing the address without giving the tokens again drops them.

use serde::{Deserialize, Serialize};

use super::value::{edit_secret, non_empty};

/// A channel (Slack, Telegram) as the file keeps it: its tokens (secrets, like the providers'
/// keys) and which questions go there.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

    /// Applies `input`. Nothing here refuses: the result is checked afterwards, with the rest
    /// of the file ([`SettingsFile::check`](super::SettingsFile::check)).
    pub fn apply(&mut self, input: ChannelInput) {
        let api_base_url = non_empty(input.api_base_url);
        let moved = api_base_url != non_empty(self.api_base_url.clone());
        edit_secret(&mut self.bot_token, input.bot_token, moved);
        edit_secret(&mut self.app_token, input.app_token, moved);
        self.enabled = input.enabled;
        self.channel = non_empty(input.channel);
        self.person = non_empty(input.person);
        self.api_base_url = api_base_url;
        self.after_minutes = input.after_minutes;
        let mut agents: Vec<String> = Vec::new();
        for agent in input.agents.into_iter().filter_map(|a| non_empty(Some(a))) {
            if !agents.contains(&agent) {
                agents.push(agent);
            }
        }
        self.agents = agents;
    }
}

/// Whether `id` names a Slack member (`U…`, or `W…` on Enterprise Grid) rather than a channel.
pub fn is_slack_member(id: &str) -> bool {
    id.starts_with('U') || id.starts_with('W')
}

/// One channel's new settings. An absent token keeps the stored one; an empty one clears it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChannelInput {
    /// Whether the channel runs.
    pub enabled: bool,
    /// The bot token: absent keeps, empty clears.
    #[cfg_attr(feature = "ts", ts(optional))]
    pub bot_token: Option<String>,
    /// Slack's app-level token: absent keeps, empty clears.
    #[cfg_attr(feature = "ts", ts(optional))]
    pub app_token: Option<String>,
    /// Slack: the channel id (empty for none).
    pub channel: Option<String>,
    /// Slack: the person's own member id (empty for none).
    pub person: Option<String>,
    /// The API address (empty for the service's own).
    pub api_base_url: Option<String>,
    /// Post only questions unanswered this long (minutes, at most a week; 0: at once).
    pub after_minutes: u32,
    /// Only these agents' questions (empty: every agent's).
    pub agents: Vec<String>,
}

impl std::fmt::Debug for ChannelInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Tokens are secrets: say only whether one came, and whether it clears.
        let token = |t: &Option<String>| t.as_ref().map(|t| if t.is_empty() { "<clear>" } else { "<given>" });
        f.debug_struct("ChannelInput")
            .field("enabled", &self.enabled)
            .field("bot_token", &token(&self.bot_token))
            .field("app_token", &token(&self.app_token))
            .field("channel", &self.channel)
            .field("person", &self.person)
            .field("api_base_url", &self.api_base_url)
            .field("after_minutes", &self.after_minutes)
            .field("agents", &self.agents)
            .finish()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A Slack channel set up as the person would: on, both tokens, a channel.
    pub(crate) fn slack() -> ChannelFile {
        ChannelFile {
            enabled: true,
            bot_token: Some("xoxb-secret-bot".into()),
            app_token: Some("xapp-secret-app".into()),
            channel: Some("C0123456789".into()),
            ..ChannelFile::default()
        }
    }

    fn input_of(file: &ChannelFile) -> ChannelInput {
        ChannelInput {
            enabled: file.enabled,
            bot_token: None,
            app_token: None,
            channel: file.channel.clone(),
            person: file.person.clone(),
            api_base_url: file.api_base_url.clone(),
            after_minutes: file.after_minutes,
            agents: file.agents.clone(),
        }
    }

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
    fn debug_never_shows_a_token() {
        let file = slack();
        let stored = format!("{file:?}");
        assert!(!stored.contains("secret") && stored.contains("<set>"), "{stored}");
        let mut input = input_of(&file);
        input.bot_token = Some("xoxb-secret-new".into());
        input.app_token = Some(String::new());
        let debug = format!("{input:?}");
        assert!(!debug.contains("secret") && debug.contains("<given>") && debug.contains("<clear>"), "{debug}");
    }

    #[test]
    fn an_absent_token_keeps_an_empty_one_clears_a_given_one_replaces() {
        let mut file = slack();
        file.apply(input_of(&slack()));
        assert_eq!(
            (file.bot_token.as_deref(), file.app_token.as_deref()),
            (Some("xoxb-secret-bot"), Some("xapp-secret-app"))
        );

        let input =
            ChannelInput { bot_token: Some(" xoxb-new ".into()), app_token: Some(String::new()), ..input_of(&file) };
        file.apply(input);
        assert_eq!((file.bot_token.as_deref(), file.app_token.as_deref()), (Some("xoxb-new"), None));
        assert_eq!(file.app_token(), None);
    }

    #[test]
    fn a_new_api_address_drops_the_tokens_not_given_with_it() {
        let mut file = slack();
        let moved = |file: &ChannelFile, url: &str| ChannelInput { api_base_url: Some(url.into()), ..input_of(file) };
        file.apply(moved(&slack(), "  "));
        assert!(file.bot_token.is_some() && file.app_token.is_some(), "blank is still the service's own address");

        file.apply(ChannelInput {
            bot_token: Some("xoxb-for-proxy".into()),
            ..moved(&slack(), "http://127.0.0.1:9/api")
        });
        assert_eq!(file.bot_token.as_deref(), Some("xoxb-for-proxy"), "a token given with the address is kept");
        assert_eq!(file.app_token, None, "the other was given for another address");
        assert_eq!(file.api_base_url.as_deref(), Some("http://127.0.0.1:9/api"));

        let same = moved(&file, "http://127.0.0.1:9/api");
        file.apply(same);
        assert_eq!(file.bot_token.as_deref(), Some("xoxb-for-proxy"), "the same address keeps its token");
        let home = ChannelInput { api_base_url: None, ..input_of(&file) };
        file.apply(home);
        assert_eq!(file.bot_token, None, "back to Slack's own address: not sent there either");
    }

    #[test]
    fn agents_are_trimmed_and_deduplicated() {
        let mut file = ChannelFile::default();
        let agents = vec![" research ".into(), String::new(), "research".into(), "deploy-bot".into()];
        file.apply(ChannelInput { agents, ..ChannelInput::default() });
        assert_eq!(file.agents, ["research", "deploy-bot"]);
    }
}
