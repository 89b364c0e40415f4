//! What the shell keeps for its commands, its tray and its workers.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use beckon_gateway::RunningGateway;
use beckon_runtime::Beckon;
use tauri::{AppHandle, Manager};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use crate::channels::RunningChannels;
use crate::dto::{NavTarget, NotificationTest};
use crate::notify::Input;
use crate::settings::{SaveError, Settings, SettingsInput, SettingsView};
use crate::start::{GatewayDown, StartError};

/// The app's managed state.
pub struct App {
    /// The runtime, or why it could not start (the window shows it).
    pub beckon: Result<Beckon, StartError>,
    /// The settings.
    pub settings: Mutex<Settings>,
    /// The data folder.
    pub data_dir: PathBuf,
    /// One event forwarder per window: a reload replaces its window's forwarder.
    pub forwarders: Mutex<HashMap<String, AbortHandle>>,
    /// The attention worker's inbox (settings changes reach it here).
    pub attention: mpsc::UnboundedSender<Input>,
    /// Where the window should go when it next loads (a link that started the app).
    pub navigation: Mutex<Option<NavTarget>>,
    /// The gateway, or why it is not running.
    pub gateway: Mutex<Result<RunningGateway, GatewayDown>>,
    /// The channels (Slack, Telegram) that post questions and take answers there.
    pub channels: RunningChannels,
    /// The team inboxes the app is connected to.
    pub teams: crate::team::Teams,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl App {
    /// The settings, locked.
    pub fn settings(&self) -> std::sync::MutexGuard<'_, Settings> {
        lock(&self.settings)
    }

    /// The forwarders, locked.
    pub fn forwarders(&self) -> std::sync::MutexGuard<'_, HashMap<String, AbortHandle>> {
        lock(&self.forwarders)
    }

    /// Where the window should go on its next load, taken.
    pub fn take_navigation(&self) -> Option<NavTarget> {
        lock(&self.navigation).take()
    }

    /// The gateway's URL, or why it is not running.
    pub fn gateway(&self) -> Result<String, String> {
        lock(&self.gateway).as_ref().map(|g| g.url.clone()).map_err(ToString::to_string)
    }

    /// Tells everything that reaches the person that "do not disturb" is on or off: the
    /// notifications (the attention worker) and the channels.
    pub fn do_not_disturb_changed(&self, on: bool) {
        let _ = self.attention.send(Input::DoNotDisturb(on));
        self.channels.set_do_not_disturb(on);
    }

    /// Saves new settings and puts them to work: providers for the next model request,
    /// notifications at once, and the channels started again when theirs changed.
    pub async fn save_settings(&self, input: SettingsInput) -> Result<SettingsView, SaveError> {
        let (view, dnd, reminder, channels_changed) = {
            let mut current = self.settings();
            let before = current.channels();
            let before = (before.0.clone(), before.1.clone());
            current.apply(input)?;
            if let Ok(beckon) = &self.beckon {
                beckon.configuration().set_providers(current.anthropic(), current.openai(), current.default_provider());
                beckon.configuration().set_scripts_may_approve(current.scripts_may_approve());
            }
            let after = current.channels();
            (current.view(), current.do_not_disturb(), current.reminder_minutes(), (&before.0, &before.1) != after)
        };
        self.do_not_disturb_changed(dnd);
        let _ = self.attention.send(Input::Reminder(reminder));
        if channels_changed && let Ok(beckon) = &self.beckon {
            self.channels.restart(beckon, &self.settings).await;
        }
        Ok(view)
    }

    /// Shows the test notification through the attention worker (the same connection and
    /// service every notification uses) and says what came of it.
    pub async fn test_notification(&self) -> NotificationTest {
        /// Longer than any notification service takes to answer.
        const PATIENCE: Duration = Duration::from_secs(10);
        let do_not_disturb = self.settings().do_not_disturb();
        let (reply, answer) = oneshot::channel();
        let shown = if self.attention.send(Input::Test(reply)).is_err() {
            Err("Beckon's notifications are not running, because Beckon itself could not start.".to_owned())
        } else {
            match tokio::time::timeout(PATIENCE, answer).await {
                Ok(Ok(shown)) => shown,
                Ok(Err(_)) => Err("Beckon's notifications stopped.".to_owned()),
                Err(_) => {
                    Err(format!("The notification service did not answer within {} seconds.", PATIENCE.as_secs()))
                }
            }
        };
        NotificationTest { delivered: shown.is_ok(), problem: shown.err(), do_not_disturb }
    }

    /// Stops the gateway (at quit).
    pub fn stop_gateway(&self) {
        let gateway = std::mem::replace(&mut *lock(&self.gateway), Err(GatewayDown::Stopped));
        if let Ok(gateway) = gateway {
            gateway.stop();
        }
    }
}

/// Remembers where the window was last sent, for a window that has not loaded yet.
pub fn remember_navigation(app: &AppHandle, target: NavTarget) {
    if let Some(state) = app.try_state::<App>() {
        *lock(&state.navigation) = Some(target);
    }
}

/// Flips "do not disturb", saves it, and tells the attention worker.
pub fn toggle_do_not_disturb(app: &AppHandle) {
    let Some(state) = app.try_state::<App>() else { return };
    let on = {
        let mut settings = state.settings();
        let on = !settings.do_not_disturb();
        if let Err(err) = settings.set_do_not_disturb(on) {
            tracing::warn!(%err, "cannot save do-not-disturb");
        }
        on
    };
    state.do_not_disturb_changed(on);
}
