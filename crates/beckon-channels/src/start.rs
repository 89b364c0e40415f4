//! Starting a Beckon's channels from its settings, and stopping them.

use std::sync::Arc;
use std::time::Duration;

use beckon_runtime::Beckon;
use beckon_runtime::settings::ChannelFile;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::error::{Error, Result};
use crate::slack::{Slack, SlackConfig};
use crate::telegram::{Telegram, TelegramConfig};
use crate::worker::{self, Policy};

/// How long connecting to a channel's service may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one call may take: longer than Telegram's long poll.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// How long stopping waits for a channel's tasks (real time, as a caller waiting to quit counts
/// it, not the runtime's clock).
const STOP_WAIT: Duration = Duration::from_secs(5);

/// The running channels of one Beckon.
#[derive(Debug)]
pub struct Channels {
    stop: CancellationToken,
    dnd: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

/// The HTTP client channels call their services with: no redirects (a token must never follow
/// one to another address), bounded times.
fn client() -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(CALL_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("Beckon/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|err| Error::Unreachable { channel: "channels", detail: beckon_runtime::http_error::describe(err) })
}

fn policy(file: &ChannelFile) -> Policy {
    Policy {
        delay: Duration::from_secs(u64::from(file.after_minutes) * 60),
        agents: (!file.agents.is_empty()).then(|| file.agents.clone()),
        ..Policy::default()
    }
}

impl Channels {
    /// Starts every enabled, configured channel for `beckon` (none when neither is). A channel
    /// missing a token it needs is logged and left off.
    pub fn start(beckon: &Beckon, slack: &ChannelFile, telegram: &ChannelFile, do_not_disturb: bool) -> Channels {
        let stop = CancellationToken::new();
        let (dnd, watching) = watch::channel(do_not_disturb);
        let mut tasks = Vec::new();
        let http = match client() {
            Ok(http) => http,
            Err(err) => {
                tracing::warn!(%err, "channels cannot start");
                return Channels { stop, dnd, tasks };
            }
        };
        if slack.enabled {
            match (slack.app_token(), slack.bot_token(), slack.person(), slack.shared_channel()) {
                (Some(app_token), Some(bot_token), person, channel) if person.is_some() || channel.is_some() => {
                    let mut config = SlackConfig::new(app_token, bot_token, person, channel);
                    if let Some(base) = slack.api_base_url.clone().filter(|b| !b.trim().is_empty()) {
                        config.api_base = base.trim().trim_end_matches('/').to_owned();
                    }
                    let channel = Slack::new(config, http.clone());
                    tasks.push(tokio::spawn(worker::run(
                        beckon.clone(),
                        channel,
                        policy(slack),
                        watching.clone(),
                        stop.clone(),
                    )));
                    tracing::info!("Slack channel started");
                }
                _ => tracing::warn!(
                    "Slack is on but its app token, bot token, or both the person and the channel are missing; it stays off"
                ),
            }
        }
        if telegram.enabled {
            match telegram.bot_token() {
                Some(token) => {
                    let mut config = TelegramConfig::new(token);
                    if let Some(base) = telegram.api_base_url.clone().filter(|b| !b.trim().is_empty()) {
                        config.api_base = base.trim().trim_end_matches('/').to_owned();
                    }
                    let channel = Telegram::new(config, http, Arc::new(beckon.clone()));
                    tokio::spawn(announce_pairing(beckon.clone()));
                    tasks.push(tokio::spawn(worker::run(
                        beckon.clone(),
                        channel,
                        policy(telegram),
                        watching,
                        stop.clone(),
                    )));
                    tracing::info!("Telegram channel started");
                }
                None => tracing::warn!("Telegram is on but has no bot token; it stays off"),
            }
        }
        Channels { stop, dnd, tasks }
    }

    /// How many channels run.
    pub fn running(&self) -> usize {
        self.tasks.iter().filter(|task| !task.is_finished()).count()
    }

    /// Do-not-disturb on or off: while on, nothing new is posted (messages are still updated
    /// when their questions end).
    pub fn set_do_not_disturb(&self, on: bool) {
        self.dnd.send_replace(on);
    }

    /// Stops them and waits (a few seconds at most) for them to end.
    pub async fn stop(self) {
        self.stop.cancel();
        for task in self.tasks {
            if tokio::time::timeout(STOP_WAIT, task).await.is_err() {
                tracing::warn!("a channel did not stop in time");
            }
        }
    }
}

/// Says in the log that no chat is paired and how to pair one, never with a code: a log is read
/// by more than the person (a shared terminal, the journal, a support bundle), and a code in it
/// would pair whoever read it first.
async fn announce_pairing(beckon: Beckon) {
    match crate::telegram::paired_chat(&beckon).await {
        Ok(Some(_)) => {}
        Ok(None) => tracing::info!(
            "Telegram: no chat is paired yet; press Pair a chat under Settings › Channels in Beckon's window (or start beckon serve with --pair-telegram) for a code to send the bot"
        ),
        Err(err) => tracing::warn!(%err, "Telegram: cannot read the paired chat"),
    }
}

/// Telegram's pairing as the settings show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TelegramPairing {
    /// The chat paired so far.
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TelegramChatRequest {
    /// The chat.
    pub chat: String,
    /// Who sent the code ("@handle" or a first name), when Telegram said.
    pub name: Option<String>,
}

impl From<crate::telegram::Pairing> for TelegramPairing {
    fn from(pairing: crate::telegram::Pairing) -> Self {
        TelegramPairing {
            chat: pairing.chat.map(|chat| chat.to_string()),
            code_expires_at_ms: pairing.code.as_ref().map(|code| code.expires_at_ms),
            code: pairing.code.map(|code| code.code),
            request: pairing
                .request
                .map(|request| TelegramChatRequest { chat: request.chat.to_string(), name: request.name }),
        }
    }
}

/// Telegram's pairing now: the chat paired, the code the person asked for while it is good,
/// and a chat waiting for confirmation. Reading makes no code.
pub async fn telegram_pairing(beckon: &Beckon) -> Result<TelegramPairing> {
    Ok(crate::telegram::pairing(beckon, beckon.now_ms()).await?.into())
}

/// The person asks to pair a (new) chat: a new code, good for ten minutes, replacing any code
/// or request still waiting; the pairing with it.
pub async fn new_telegram_pairing_code(beckon: &Beckon) -> Result<TelegramPairing> {
    crate::telegram::new_pairing_code(beckon, beckon.now_ms()).await?;
    telegram_pairing(beckon).await
}

/// The person confirms that `chat` replaces the paired chat: it is paired, and both chats are
/// told through the bot `telegram` configures. Refused when `chat` has no request waiting, or
/// when there is no bot token to tell them with.
pub async fn confirm_telegram_chat(beckon: &Beckon, telegram: &ChannelFile, chat: &str) -> Result<TelegramPairing> {
    let chat = requesting_chat(chat)?;
    let Some(token) = telegram.bot_token() else {
        return Err(Error::Refused {
            channel: "Telegram",
            method: "sendMessage",
            detail: "Telegram has no bot token: save one first".into(),
        });
    };
    let mut config = TelegramConfig::new(token);
    if let Some(base) = telegram.api_base_url.clone().filter(|b| !b.trim().is_empty()) {
        config.api_base = base.trim().trim_end_matches('/').to_owned();
    }
    let bot = Telegram::new(config, client()?, Arc::new(beckon.clone()));
    if !bot.confirm_chat(chat).await? {
        return Err(Error::NoPairingRequest);
    }
    telegram_pairing(beckon).await
}

/// The person refuses `chat`'s request to replace the paired chat: the request is dropped, no
/// chat is told, nothing else changes.
pub async fn refuse_telegram_chat(beckon: &Beckon, chat: &str) -> Result<TelegramPairing> {
    let chat = requesting_chat(chat)?;
    if !crate::telegram::refuse_chat(beckon, chat).await? {
        return Err(Error::NoPairingRequest);
    }
    telegram_pairing(beckon).await
}

/// The chat id the window names; one that is not a chat id has no request waiting.
fn requesting_chat(chat: &str) -> Result<i64> {
    chat.trim().parse().map_err(|_| Error::NoPairingRequest)
}
