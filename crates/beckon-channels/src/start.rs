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
/// How long stopping waits for a channel's tasks.
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

/// Says in the log how to pair a chat while none is paired: a headless `beckon serve` has no
/// settings screen to show the code.
async fn announce_pairing(beckon: Beckon) {
    match crate::telegram::paired_chat(&beckon).await {
        Ok(Some(_)) => {}
        Ok(None) => match crate::telegram::pairing_code(&beckon).await {
            Ok(code) => tracing::info!(code = %code, "Telegram: no chat is paired yet; send /start {code} to the bot"),
            Err(err) => tracing::warn!(%err, "Telegram: cannot make a pairing code"),
        },
        Err(err) => tracing::warn!(%err, "Telegram: cannot read the paired chat"),
    }
}

/// Telegram's pairing as the settings show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TelegramPairing {
    /// The one-time code to send to the bot as `/start <code>`.
    pub code: String,
    /// The chat paired so far.
    pub chat: Option<String>,
}

/// Telegram's pairing: the one-time code to send to the bot as `/start <code>` (made when
/// none is open), and the chat paired so far.
pub async fn telegram_pairing(beckon: &Beckon) -> Result<TelegramPairing> {
    let code = crate::telegram::pairing_code(beckon).await?;
    let chat = crate::telegram::paired_chat(beckon).await?.map(|chat| chat.to_string());
    Ok(TelegramPairing { code, chat })
}
