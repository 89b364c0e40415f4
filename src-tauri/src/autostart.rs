//! "Start Beckon when I log in": Tauri's autostart plugin writes the platform's login item (on
//! Linux an XDG autostart entry, `~/.config/autostart/Beckon.desktop`) that starts this very
//! binary with [`HIDDEN_ARG`], so Beckon waits in the tray after login instead of opening its
//! window. Whether it is on is read back from the platform, never kept anywhere else.

use tauri::{AppHandle, Manager, Runtime, State};
use tauri_plugin_autostart::{AutoLaunchManager, Error};

use crate::launch::HIDDEN_ARG;

/// The plugin, writing entries that start Beckon hidden.
pub fn plugin<R: Runtime>() -> tauri::plugin::TauriPlugin<R> {
    tauri_plugin_autostart::Builder::new().arg(HIDDEN_ARG).build()
}

/// The plugin's manager; absent only when the plugin could not set itself up.
fn manager(app: &AppHandle) -> Result<State<'_, AutoLaunchManager>, Error> {
    app.try_state::<AutoLaunchManager>().ok_or_else(|| Error::Anyhow("starting at login is not available here".into()))
}

/// Whether Beckon starts at login.
pub fn enabled(app: &AppHandle) -> Result<bool, Error> {
    manager(app)?.is_enabled()
}

/// Turns starting at login on or off; whether it is on afterwards.
pub fn set(app: &AppHandle, on: bool) -> Result<bool, Error> {
    let manager = manager(app)?;
    if on {
        manager.enable()?
    } else {
        manager.disable()?
    }
    tracing::info!(on, "start at login");
    manager.is_enabled()
}
