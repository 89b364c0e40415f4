//! What the shell keeps for its commands, its tray and its workers.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use beckon_gateway::RunningGateway;
use beckon_runtime::Beckon;
use tauri::{AppHandle, Manager};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use crate::dto::NavTarget;
use crate::notify::Input;
use crate::settings::Settings;

/// The app's managed state.
pub struct App {
    /// The runtime, or why it could not start (the window shows it).
    pub beckon: Result<Beckon, String>,
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
    pub gateway: Mutex<Result<RunningGateway, String>>,
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
        lock(&self.gateway).as_ref().map(|g| g.url.clone()).map_err(Clone::clone)
    }

    /// Stops the gateway (at quit).
    pub fn stop_gateway(&self) {
        let gateway = std::mem::replace(&mut *lock(&self.gateway), Err("stopped".into()));
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
    let _ = state.attention.send(Input::DoNotDisturb(on));
}
