//! The commands only the desktop app serves, besides the window's commands a team server
//! serves too (`beckon_runtime::api::window`): the settings, agents, tokens, triage rules, the
//! audit export, starting at login and the team inboxes it follows. One list, from which the
//! enum, the handler trait and the TypeScript bindings are written.

use beckon_core::SessionId;
use beckon_runtime::api::TokenView;
use beckon_runtime::api::window::NoArgs;
use beckon_store::{RuleOffer, RuleRecord, RuleSource};
use serde::{Deserialize, Serialize};

use crate::agents::AgentView;
use crate::dto::{Bootstrap, NewToken, NotificationTest, TelegramPairing};
use crate::settings::{SettingsInput, SettingsView};
use crate::team::{TeamInboxView, TeamState};

beckon_runtime::window_commands! {
    #[cfg_attr(test, derive(ts_rs::TS))]
    commands DesktopCommand, replies DesktopReplies, reply DesktopReply, handler DesktopWindow;

    /// Everything the window draws at start, and the seq it is complete up to.
    read start = Start(NoArgs) -> Bootstrap;
    /// Starts a session of an agent with a first message; its id.
    write start_session = StartSession(StartSession) -> SessionId;
    /// Continues a session whose turn has finished.
    write send_message = SendMessage(SendMessage) -> ();
    /// The settings.
    read get_settings = GetSettings(NoArgs) -> SettingsView;
    /// Saves new settings (nothing when one is refused); they apply at once.
    write save_settings = SaveSettings(SaveSettings) -> SettingsView;
    /// The secret that signs callbacks (`Beckon-Signature`), shown when the person asks.
    read callback_secret = CallbackSecret(NoArgs) -> String;
    /// Replaces the callback secret with a new random one; the new one.
    write rotate_callback_secret = RotateCallbackSecret(NoArgs) -> String;
    /// Telegram's pairing: the chat paired so far, the code asked for while it is good, and a
    /// chat waiting to replace the paired one. Reading makes no code.
    read telegram_pairing = TelegramPairing(NoArgs) -> TelegramPairing;
    /// A new code to pair a (new) chat, good for ten minutes.
    write new_telegram_pairing_code = NewTelegramPairingCode(NoArgs) -> TelegramPairing;
    /// The chat replaces the paired chat; both chats are told.
    write confirm_telegram_chat = ConfirmTelegramChat(OfChat) -> TelegramPairing;
    /// The chat's request to replace the paired chat is refused.
    write refuse_telegram_chat = RefuseTelegramChat(OfChat) -> TelegramPairing;
    /// Every agent Beckon connects to, and where each stands.
    read agents_status = AgentsStatus(NoArgs) -> Vec<AgentView>;
    /// Connects an agent to Beckon (user scope), or disconnects it.
    write connect_agent = ConnectAgent(ConnectAgent) -> AgentView;
    /// The tokens agents on other machines ask with, newest first.
    read tokens = Tokens(NoArgs) -> Vec<TokenView>;
    /// Makes an ask-only token; it comes back with its secret, shown this once.
    write create_token = CreateToken(OfToken) -> NewToken;
    /// Revokes a token: requests carrying it are refused from now on.
    write revoke_token = RevokeToken(OfToken) -> TokenView;
    /// Whether Beckon starts, hidden in the tray, when the person logs in.
    read start_at_login = StartAtLogin(NoArgs) -> bool;
    /// Turns starting at login on or off; whether it is on afterwards.
    write set_start_at_login = SetStartAtLogin(SetStartAtLogin) -> bool;
    /// The real path of the `beckon` command, for the configuration the guide shows.
    read beckon_command = BeckonCommand(NoArgs) -> Option<String>;
    /// Shows a notification with a button the way questions' are shown; whether the
    /// notification service took it.
    write send_test_notification = SendTestNotification(NoArgs) -> NotificationTest;
    /// Puts the getting-started guide away for good (it stays under Settings).
    write dismiss_guide = DismissGuide(NoArgs) -> SettingsView;
    /// Every rule, newest first; revoked ones too when asked.
    read rules = Rules(ListRules) -> Vec<RuleRecord>;
    /// Makes a rule, checked as a hand-written one is: problems come back by field.
    write create_rule = CreateRule(CreateRule) -> RuleRecord;
    /// Revokes a rule.
    write revoke_rule = RevokeRule(OfRule) -> RuleRecord;
    /// The rules Beckon offers after repeated allows.
    read rule_offers = RuleOffers(NoArgs) -> Vec<RuleOffer>;
    /// Turns down an offered rule.
    write dismiss_rule_offer = DismissRuleOffer(OfRuleOffer) -> ();
    /// Writes the whole audit trail into the downloads folder; the file's path.
    write export_audit = ExportAudit(ExportAudit) -> String;
    /// The team inboxes, where each stands, and what waits in them.
    read team_inboxes = TeamInboxes(NoArgs) -> TeamState;
    /// Adds a team inbox: the person's browser opens on its sign-in.
    write add_team_inbox = AddTeamInbox(AddTeamInbox) -> TeamInboxView;
    /// Signs in to a team inbox again: the person's browser opens on it.
    write sign_in_team_inbox = SignInTeamInbox(OfInbox) -> TeamInboxView;
    /// Removes a team inbox: its questions leave the window and its secret the keyring.
    write remove_team_inbox = RemoveTeamInbox(OfInbox) -> Vec<TeamInboxView>;
}

/// A session started.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartSession {
    /// The agent's name.
    pub agent: String,
    /// The first message.
    pub message: String,
}

/// A message to a session.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendMessage {
    /// The session's id.
    pub session_id: String,
    /// What the person wrote.
    pub text: String,
}

/// Settings to save.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SaveSettings {
    /// The settings, whole.
    pub settings: SettingsInput,
}

/// A Telegram chat, by id.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OfChat {
    /// The chat's id.
    pub chat: String,
}

/// An agent connected or disconnected.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectAgent {
    /// The agent's name (`claude-code`, `codex`, …).
    pub name: String,
    /// Disconnect it instead.
    pub remove: bool,
}

/// A token, by name.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OfToken {
    /// The token's name.
    pub name: String,
}

/// Starting at login, on or off.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetStartAtLogin {
    /// On.
    pub on: bool,
}

/// Which rules.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListRules {
    /// Revoked ones too.
    pub include_revoked: bool,
}

/// A rule to make.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateRule {
    /// `{tool, matcher, project}`, checked as a hand-written rule is.
    #[cfg_attr(test, ts(as = "beckon_core::rules::RuleSpec"))]
    pub spec: serde_json::Value,
    /// Where it comes from.
    pub source: RuleSource,
}

/// A rule, by id.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OfRule {
    /// The rule's id.
    pub id: i64,
}

/// An offered rule, by key.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OfRuleOffer {
    /// The offer's key.
    pub key: String,
}

/// The audit trail's format.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExportAudit {
    /// `jsonl` or `csv`.
    #[cfg_attr(test, ts(type = "\"jsonl\" | \"csv\""))]
    pub format: String,
}

/// A team inbox to add.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AddTeamInbox {
    /// What the person calls it.
    pub name: String,
    /// The team server's address.
    pub url: String,
}

/// A team inbox, by id.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OfInbox {
    /// The inbox's id.
    pub id: String,
}
