//! What the channels' settings may hold. Every front end runs the same checks before it uses a
//! file: the window before it saves one, `beckon serve` before it starts from one — so a value
//! the window would refuse (a channel id where the person's own member id belongs, a token
//! with a space in it) never runs because it was written by hand.

use beckon_core::Problems;
use beckon_core::notice::AGENT_MAX_BYTES;

use super::channel::{ChannelFile, is_slack_member};
use super::file::SettingsFile;

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
enum Service {
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

impl SettingsFile {
    /// Whether Beckon may run with these settings: every problem with the channels' settings,
    /// each at its field's path (`slack.after_minutes`) with a message that names the field.
    pub fn check(&self) -> Result<(), Problems> {
        let mut problems = Problems::new();
        check(Service::Slack, &self.slack, &mut problems);
        check(Service::Telegram, &self.telegram, &mut problems);
        problems.into_result(())
    }
}

/// A text from the person quoted back in a message: its start, as a string literal.
fn quoted(text: &str) -> String {
    let head: String = text.chars().take(40).collect();
    if head.len() < text.len() { format!("{head:?}…") } else { format!("{head:?}") }
}

fn is_slack_id(text: &str) -> bool {
    (2..=20).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

/// Records what is wrong with `file` as `service`'s settings.
fn check(service: Service, file: &ChannelFile, problems: &mut Problems) {
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

    use crate::settings::channel::tests::slack;

    fn problems_of(service: Service, file: &ChannelFile) -> Vec<(String, String)> {
        let mut problems = Problems::new();
        check(service, file, &mut problems);
        problems.iter().map(|p| (p.path.clone(), p.message.clone())).collect()
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
        assert_eq!(SettingsFile::default().check(), Ok(()), "a new data folder's settings pass");
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

    #[test]
    fn the_file_is_checked_slack_then_telegram() {
        let file = SettingsFile {
            slack: ChannelFile { person: Some("C0TEAM".into()), ..ChannelFile::default() },
            telegram: ChannelFile { after_minutes: AFTER_MINUTES_MAX + 1, ..ChannelFile::default() },
            ..SettingsFile::default()
        };
        let problems = file.check().unwrap_err();
        let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["slack.person", "telegram.after_minutes"]);
    }
}
