//! What the window receives besides the runtime's own types.

use beckon_runtime::WindowSnapshot;
use beckon_runtime::agents::{AgentInfo, AgentProblem};
use beckon_runtime::api::{CreatedToken, LiveEvent, TokenView};
use serde::{Deserialize, Serialize};

use crate::settings::SettingsView;

/// Everything the window needs to draw itself at start, and the seq it is complete up to.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Bootstrap {
    /// The inbox, sessions and figures, and the seq they are complete up to (subscribe after
    /// it): what a window in a browser starts with too.
    #[serde(flatten)]
    pub window: WindowSnapshot,
    /// The agents, by name.
    pub agents: Vec<AgentInfo>,
    /// Agent files that could not be loaded.
    pub agent_problems: Vec<AgentProblem>,
    /// The agent a new chat starts with.
    pub default_agent: String,
    /// The settings.
    pub settings: SettingsView,
    /// The data folder.
    pub data_dir: String,
    /// Where to go first (the link that started the app, if any).
    pub navigate: Option<NavTarget>,
    /// The local gateway's URL for external agents, when it runs.
    pub gateway_url: Option<String>,
    /// Why the gateway is not running, when it is not.
    pub gateway_problem: Option<String>,
}

/// What the `subscribe` channel carries.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum UiEvent {
    /// A committed change (in seq order, none missed or doubled).
    Live {
        /// The change.
        event: LiveEvent,
    },
    /// Assistant text as it streams (not stored; the committed message follows).
    TextDelta {
        /// The session.
        session_id: beckon_core::SessionId,
        /// The text.
        text: String,
    },
}

/// Where the window should go (from a notification, the tray or a `beckon://` link).
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "to", rename_all = "snake_case")]
pub enum NavTarget {
    /// The inbox.
    Inbox,
    /// A session.
    Session {
        /// Its id.
        id: beckon_core::SessionId,
    },
    /// A question (in its session, or the inbox).
    Question {
        /// Its id.
        id: beckon_core::RequestId,
    },
    /// Nowhere: tell the person why (a malformed or unknown link).
    Problem {
        /// What is wrong.
        message: String,
    },
}

/// Telegram's pairing as the settings screen shows it.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TelegramPairing {
    /// The chat paired so far, if any.
    pub chat: Option<String>,
    /// The code the person asked for, to send to the bot as `/start <code>`, while it is good.
    pub code: Option<String>,
    /// When that code stops being good (Unix ms).
    pub code_expires_at_ms: Option<i64>,
    /// A chat that used a code while another is paired, waiting for the person to confirm or
    /// refuse it.
    pub request: Option<TelegramChatRequest>,
}

/// A chat waiting to replace the paired one.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TelegramChatRequest {
    /// The chat.
    pub chat: String,
    /// Who sent the code ("@handle" or a first name), as Telegram names them.
    pub name: Option<String>,
}

impl From<beckon_channels::TelegramPairing> for TelegramPairing {
    fn from(pairing: beckon_channels::TelegramPairing) -> Self {
        TelegramPairing {
            chat: pairing.chat,
            code: pairing.code,
            code_expires_at_ms: pairing.code_expires_at_ms,
            request: pairing.request.map(|request| TelegramChatRequest { chat: request.chat, name: request.name }),
        }
    }
}

/// What came of the test notification the person asked for.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotificationTest {
    /// The notification service took it (it shows, with its button).
    pub delivered: bool,
    /// Why it could not be shown.
    pub problem: Option<String>,
    /// "Do not disturb" is on: this one was shown because the person asked for it, questions'
    /// notifications stay silent.
    pub do_not_disturb: bool,
}

/// A token for agents on another machine, just made: the only time its secret is seen.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Serialize, Deserialize)]
pub struct NewToken {
    /// The token.
    pub token: TokenView,
    /// The secret agents send as their bearer token (`BECKON_TOKEN`).
    pub secret: String,
}

impl std::fmt::Debug for NewToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secret is a credential: never in logs.
        f.debug_struct("NewToken").field("token", &self.token).finish_non_exhaustive()
    }
}

impl From<CreatedToken> for NewToken {
    fn from(created: CreatedToken) -> Self {
        NewToken { token: created.token, secret: created.secret }
    }
}
