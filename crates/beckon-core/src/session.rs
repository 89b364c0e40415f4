//! Where sessions and answers come from.

use std::fmt;

use serde::{Deserialize, Serialize};

/// How a session came to exist.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionOrigin {
    /// A person started it from the window (or the CLI) with a message.
    Chat,
    /// A webhook triggered it with a payload.
    Webhook,
    /// An agent Beckon does not run asks through the gateway, MCP or the CLI.
    External,
    /// Another session's agent spawned it.
    Subagent,
}

/// Which front end a person used to answer or decline.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnsweredVia {
    /// The app window.
    Window,
    /// A button on an OS notification.
    Notification,
    /// The tray menu.
    Tray,
    /// A `beckon://` link (navigation only; the answer itself came from the window).
    DeepLink,
    /// The HTTP gateway.
    Http,
    /// The MCP server.
    Mcp,
    /// The `beckon` command.
    Cli,
    /// A button or form on Beckon's Slack message.
    Slack,
    /// A button or reply on Beckon's Telegram message.
    Telegram,
    /// A rule the person made allowed it on their behalf; the answerer names the rule
    /// ("rule 3").
    Rule,
}

/// Who answered or declined: the front end, and the person when the front end knows them (a
/// channel's user, a person signed in on a team server).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answerer {
    /// The front end.
    pub via: AnsweredVia,
    /// The person, as the front end names them ("slack:U123 (ada)").
    pub by: Option<String>,
    /// Who they are to the team's identity provider, when they signed in on a team server:
    /// what decides whether a question addressed to a person or group is theirs to answer.
    pub signed_in: Option<SignedInPerson>,
}

/// A person as the team's identity provider names them: their subject and groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedInPerson {
    pub subject: String,
    pub groups: Vec<String>,
}

impl From<AnsweredVia> for Answerer {
    fn from(via: AnsweredVia) -> Self {
        Answerer { via, by: None, signed_in: None }
    }
}

macro_rules! names {
    ($ty:ty { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value.
            pub const ALL: &'static [$ty] = &[$(<$ty>::$variant),+];

            /// The snake_case name, as stored and sent.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(<$ty>::$variant => $name),+
                }
            }

            /// Reads the snake_case name.
            pub fn parse(text: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == text)
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

names!(SessionOrigin { Chat => "chat", Webhook => "webhook", External => "external", Subagent => "subagent" });
names!(AnsweredVia {
    Window => "window",
    Notification => "notification",
    Tray => "tray",
    DeepLink => "deep_link",
    Http => "http",
    Mcp => "mcp",
    Cli => "cli",
    Slack => "slack",
    Telegram => "telegram",
    Rule => "rule",
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_serde() {
        for via in AnsweredVia::ALL {
            assert_eq!(serde_json::to_value(via).unwrap(), serde_json::Value::from(via.as_str()));
            assert_eq!(AnsweredVia::parse(via.as_str()), Some(*via));
        }
        for origin in SessionOrigin::ALL {
            assert_eq!(serde_json::to_value(origin).unwrap(), serde_json::Value::from(origin.as_str()));
            assert_eq!(SessionOrigin::parse(origin.as_str()), Some(*origin));
        }
        assert_eq!(AnsweredVia::parse("email"), None);
    }
}
