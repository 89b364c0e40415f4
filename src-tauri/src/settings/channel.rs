//! A channel's settings (Slack, Telegram) as the window shows and edits them. Tokens are
//! secrets like the providers' keys: the window sees only whether they are set, an absent token
//! keeps the stored one and an empty one clears it, and a token given for one API address is
//! never sent to another — changing the address without giving the tokens again drops them.

use beckon_core::Problems;
use beckon_core::notice::AGENT_MAX_BYTES;
use beckon_runtime::settings::{ChannelFile, is_slack_member, non_empty};
use serde::{Deserialize, Serialize};

/// The longest a channel may wait before posting: a week.
pub const AFTER_MINUTES_MAX: u32 = 7 * 24 * 60;
/// How many agents a channel's filter may name.
pub const AGENTS_MAX: usize = 32;
/// The longest token accepted (Slack's and Telegram's are well under 300 bytes).
const TOKEN_MAX_BYTES: usize = 1024;
/// The longest API address accepted.
const URL_MAX_BYTES: usize = 2048;

/// Which service a channel talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    /// Slack, through Socket Mode.
    Slack,
    /// Telegram, through the Bot API.
    Telegram,
}

impl Service {
    /// Its name for a person.
    fn label(self) -> &'static str {
        match self {
            Service::Slack => "Slack",
            Service::Telegram => "Telegram",
        }
    }

    /// Its key in the settings (and the start of its fields' paths).
    fn key(self) -> &'static str {
        match self {
            Service::Slack => "slack",
            Service::Telegram => "telegram",
        }
    }
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

/// One channel's new settings. An absent token keeps the stored one; an empty one clears it.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChannelInput {
    /// Whether the channel runs.
    pub enabled: bool,
    /// The bot token: absent keeps, empty clears.
    #[cfg_attr(test, ts(optional))]
    pub bot_token: Option<String>,
    /// Slack's app-level token: absent keeps, empty clears.
    #[cfg_attr(test, ts(optional))]
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

/// Applies `input` to `file`. Checked afterwards with [`check`]: nothing here refuses.
pub fn apply(file: &mut ChannelFile, input: ChannelInput) {
    let api_base_url = non_empty(input.api_base_url);
    // A stored token was given for the old address: it is not sent to a new one until the
    // person gives it again.
    let moved = api_base_url != non_empty(file.api_base_url.clone());
    let token = |stored: &mut Option<String>, given: Option<String>| match given {
        Some(token) => *stored = non_empty(Some(token)),
        None if moved => *stored = None,
        None => {}
    };
    token(&mut file.bot_token, input.bot_token);
    token(&mut file.app_token, input.app_token);
    file.enabled = input.enabled;
    file.channel = non_empty(input.channel);
    file.person = non_empty(input.person);
    file.api_base_url = api_base_url;
    file.after_minutes = input.after_minutes;
    let mut agents: Vec<String> = Vec::new();
    for agent in input.agents.into_iter().filter_map(|a| non_empty(Some(a))) {
        if !agents.contains(&agent) {
            agents.push(agent);
        }
    }
    file.agents = agents;
}

/// A text from the person quoted back in a message: its start, as a string literal.
fn quoted(text: &str) -> String {
    let head: String = text.chars().take(40).collect();
    if head.len() < text.len() { format!("{head:?}…") } else { format!("{head:?}") }
}

fn is_slack_id(text: &str) -> bool {
    (2..=20).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

/// Records what is wrong with `file` as `service`'s settings, each problem at its field's path
/// (`slack.after_minutes`) with a message that names the field.
pub fn check(service: Service, file: &ChannelFile, problems: &mut Problems) {
    let (name, key) = (service.label(), service.key());
    let path = |field: &str| format!("{key}.{field}");
    for (field, what, token) in
        [("bot_token", "bot token", &file.bot_token), ("app_token", "app-level token", &file.app_token)]
    {
        let Some(token) = token else { continue };
        if service == Service::Telegram && field == "app_token" {
            problems.push(path(field), "Telegram has no app-level token; only a bot token.");
        } else if token.len() > TOKEN_MAX_BYTES || token.chars().any(|c| c.is_whitespace() || c.is_control()) {
            problems.push(
                path(field),
                format!("{name}'s {what} must be one line without spaces, at most {TOKEN_MAX_BYTES} characters."),
            );
        }
    }
    if let Some(channel) = &file.channel {
        match service {
            Service::Slack if !is_slack_id(channel) => problems.push(
                path("channel"),
                format!(
                    "Slack's channel must be a channel or member id such as C0123456789 (2 to 20 capital letters and digits), not {}.",
                    quoted(channel)
                ),
            ),
            Service::Slack => {}
            Service::Telegram => {
                problems.push(path("channel"), "Telegram has no channel setting: the chat is paired with /start.");
            }
        }
    }
    if let Some(person) = &file.person {
        let member = is_slack_id(person) && is_slack_member(person);
        match service {
            Service::Slack if !member => problems.push(
                path("person"),
                format!(
                    "Slack's person must be your own member id such as U0123456789 (in Slack: your profile › ⋮ › Copy member ID), not {}.",
                    quoted(person)
                ),
            ),
            Service::Slack => {}
            Service::Telegram => {
                problems.push(path("person"), "Telegram has no person setting: the person's chat is paired with /start.");
            }
        }
    }
    if let Some(url) = &file.api_base_url {
        let web = url.starts_with("https://") || url.starts_with("http://");
        if !web || url.len() > URL_MAX_BYTES || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
            problems.push(
                path("api_base_url"),
                format!(
                    "{name}'s API address must be an http:// or https:// address without spaces, not {}.",
                    quoted(url)
                ),
            );
        }
    }
    if file.after_minutes > AFTER_MINUTES_MAX {
        problems.push(
            path("after_minutes"),
            format!(
                "{name}'s \"post only after\" must be at most {AFTER_MINUTES_MAX} minutes (a week), not {}.",
                file.after_minutes
            ),
        );
    }
    if file.agents.len() > AGENTS_MAX {
        problems.push(
            path("agents"),
            format!("{name}'s agent list names {} agents; at most {AGENTS_MAX} are allowed.", file.agents.len()),
        );
    }
    for agent in &file.agents {
        let mut wrong = Problems::new();
        beckon_core::check_name("agent", agent, AGENT_MAX_BYTES, &mut wrong);
        if !wrong.is_empty() {
            problems.push(
                path("agents"),
                format!(
                    "{name}'s agent list: {} is not an agent name (1 to {AGENT_MAX_BYTES} letters, digits, '-', '_', '.', ':' or '/').",
                    quoted(agent)
                ),
            );
            break;
        }
    }
    if file.enabled {
        let missing = match service {
            Service::Slack if file.app_token().is_none() => Some(("app_token", "app-level token")),
            Service::Slack if file.bot_token().is_none() => Some(("bot_token", "bot token")),
            Service::Slack if file.channel.is_none() && file.person.is_none() => Some(("person", "person or channel")),
            Service::Telegram if file.bot_token().is_none() => Some(("bot_token", "bot token")),
            Service::Slack | Service::Telegram => None,
        };
        if let Some((field, what)) = missing {
            problems.push(path(field), format!("{name} is on but has no {what}: give one, or turn {name} off."));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slack() -> ChannelFile {
        ChannelFile {
            enabled: true,
            bot_token: Some("xoxb-secret-bot".into()),
            app_token: Some("xapp-secret-app".into()),
            channel: Some("C0123456789".into()),
            ..ChannelFile::default()
        }
    }

    fn problems_of(service: Service, file: &ChannelFile) -> Vec<(String, String)> {
        let mut problems = Problems::new();
        check(service, file, &mut problems);
        problems.iter().map(|p| (p.path.clone(), p.message.clone())).collect()
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
    fn the_view_and_debug_never_show_a_token() {
        let file = slack();
        let view = ChannelView::of(&file);
        assert!(view.bot_token_set && view.app_token_set);
        let shown = format!("{} {view:?}", serde_json::to_string(&view).unwrap());
        assert!(!shown.contains("secret"), "{shown}");
        let mut input = input_of(&file);
        input.bot_token = Some("xoxb-secret-new".into());
        input.app_token = Some(String::new());
        let debug = format!("{input:?}");
        assert!(!debug.contains("secret") && debug.contains("<given>") && debug.contains("<clear>"), "{debug}");
    }

    #[test]
    fn an_absent_token_keeps_an_empty_one_clears_a_given_one_replaces() {
        let mut file = slack();
        apply(&mut file, input_of(&slack()));
        assert_eq!(
            (file.bot_token.as_deref(), file.app_token.as_deref()),
            (Some("xoxb-secret-bot"), Some("xapp-secret-app"))
        );

        let input =
            ChannelInput { bot_token: Some(" xoxb-new ".into()), app_token: Some(String::new()), ..input_of(&file) };
        apply(&mut file, input);
        assert_eq!((file.bot_token.as_deref(), file.app_token.as_deref()), (Some("xoxb-new"), None));
        assert!(!ChannelView::of(&file).app_token_set);
    }

    #[test]
    fn a_new_api_address_drops_the_tokens_not_given_with_it() {
        let mut file = slack();
        let moved = |file: &ChannelFile, url: &str| ChannelInput { api_base_url: Some(url.into()), ..input_of(file) };
        apply(&mut file, moved(&slack(), "  "));
        assert!(file.bot_token.is_some() && file.app_token.is_some(), "blank is still the service's own address");

        apply(
            &mut file,
            ChannelInput { bot_token: Some("xoxb-for-proxy".into()), ..moved(&slack(), "http://127.0.0.1:9/api") },
        );
        assert_eq!(file.bot_token.as_deref(), Some("xoxb-for-proxy"), "a token given with the address is kept");
        assert_eq!(file.app_token, None, "the other was given for another address");
        assert_eq!(file.api_base_url.as_deref(), Some("http://127.0.0.1:9/api"));

        let same = moved(&file, "http://127.0.0.1:9/api");
        apply(&mut file, same);
        assert_eq!(file.bot_token.as_deref(), Some("xoxb-for-proxy"), "the same address keeps its token");
        let home = ChannelInput { api_base_url: None, ..input_of(&file) };
        apply(&mut file, home);
        assert_eq!(file.bot_token, None, "back to Slack's own address: not sent there either");
    }

    #[test]
    fn agents_are_trimmed_and_deduplicated() {
        let mut file = ChannelFile::default();
        let agents = vec![" research ".into(), String::new(), "research".into(), "deploy-bot".into()];
        apply(&mut file, ChannelInput { agents, ..ChannelInput::default() });
        assert_eq!(file.agents, ["research", "deploy-bot"]);
    }

    #[test]
    fn good_settings_pass() {
        assert_eq!(problems_of(Service::Slack, &slack()), []);
        let telegram = ChannelFile {
            enabled: true,
            bot_token: Some("123456:ABC-def_ghi".into()),
            api_base_url: Some("https://api.telegram.org".into()),
            after_minutes: AFTER_MINUTES_MAX,
            agents: vec!["research".into(), "claude-code:repo/x".into()],
            ..ChannelFile::default()
        };
        assert_eq!(problems_of(Service::Telegram, &telegram), []);
        assert_eq!(problems_of(Service::Slack, &ChannelFile::default()), [], "off and empty is fine");
    }

    #[test]
    fn each_wrong_field_is_named() {
        let wrong = ChannelFile {
            enabled: false,
            bot_token: Some("xoxb two words".into()),
            channel: Some("#general".into()),
            api_base_url: Some("ftp://example.com".into()),
            after_minutes: AFTER_MINUTES_MAX + 1,
            agents: vec!["bad name!".into()],
            ..ChannelFile::default()
        };
        let paths: Vec<String> = problems_of(Service::Slack, &wrong).into_iter().map(|(path, _)| path).collect();
        assert_eq!(
            paths,
            ["slack.bot_token", "slack.channel", "slack.api_base_url", "slack.after_minutes", "slack.agents"]
        );
        let messages = problems_of(Service::Slack, &wrong);
        assert!(messages[3].1.contains("at most 10080 minutes (a week)"), "{messages:?}");
        assert!(messages[4].1.contains("\"bad name!\" is not an agent name"), "{messages:?}");

        let many =
            ChannelFile { agents: (0..=AGENTS_MAX).map(|i| format!("agent-{i}")).collect(), ..ChannelFile::default() };
        assert_eq!(problems_of(Service::Telegram, &many)[0].0, "telegram.agents");
        for id in ["C", "c0123", "C0123456789012345678901"] {
            let file = ChannelFile { channel: Some(id.into()), ..ChannelFile::default() };
            assert_eq!(problems_of(Service::Slack, &file).len(), 1, "{id}");
        }
        for id in ["C0123456789", "u0ada", "#general"] {
            let file = ChannelFile { person: Some(id.into()), ..ChannelFile::default() };
            let problems = problems_of(Service::Slack, &file);
            assert_eq!(problems.len(), 1, "{id}");
            assert!(problems[0].0 == "slack.person" && problems[0].1.contains("member id"), "{problems:?}");
        }
        let telegram = ChannelFile {
            channel: Some("C0123".into()),
            person: Some("U0ADA".into()),
            app_token: Some("x".into()),
            ..ChannelFile::default()
        };
        let paths: Vec<String> = problems_of(Service::Telegram, &telegram).into_iter().map(|(path, _)| path).collect();
        assert_eq!(paths, ["telegram.app_token", "telegram.channel", "telegram.person"]);
    }

    #[test]
    fn a_channel_that_is_on_needs_what_it_connects_with() {
        let no_app_token = ChannelFile { app_token: None, ..slack() };
        let problems = problems_of(Service::Slack, &no_app_token);
        assert_eq!(problems[0].0, "slack.app_token");
        assert!(problems[0].1.contains("Slack is on but has no app-level token"), "{problems:?}");
        let nowhere = ChannelFile { channel: None, ..slack() };
        assert_eq!(problems_of(Service::Slack, &nowhere)[0].0, "slack.person");
        let only_the_person = ChannelFile { channel: None, person: Some("U0ADA".into()), ..slack() };
        assert_eq!(problems_of(Service::Slack, &only_the_person), []);
        let telegram = ChannelFile { enabled: true, ..ChannelFile::default() };
        assert_eq!(problems_of(Service::Telegram, &telegram)[0].0, "telegram.bot_token");
    }
}
