//! The main window's life. Closing it hides it: Beckon stays in the tray and agents keep
//! working. Once it has stayed hidden for the keep-warm time, its WebView is released — the
//! page, the WebKit web process that drew it, and what the app held for it — so Beckon weighs
//! little while it waits in the tray. Whatever opens it next (the tray, a notification, a
//! link, a second launch) shows it at once while it is warm, or makes it again from the app's
//! configuration; the new page starts where it was sent, with the inbox read afresh.
//!
//! Every step runs on the main thread, one after another, so a release never races a show.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use tauri::{AppHandle, Manager, WebviewWindow, WebviewWindowBuilder};

/// The main window's label, as tauri.conf.json declares it.
pub const LABEL: &str = "main";

/// How long a hidden window stays ready to show at once. A person who closes the window often
/// opens it again within a minute or two — the next question of a burst, a notification they
/// were waiting for — and a warm window shows in a frame; after that, the tray's weight matters
/// more than the fraction of a second a new page takes.
pub const KEEP_WARM: Duration = Duration::from_secs(180);

/// How long after a page loaded start-up's code is given back: start-up is over by then.
const START_UP_OVER: Duration = Duration::from_secs(3);

/// A page loaded and ran (it subscribed to events): once start-up is over, gives back what it
/// took and will not need again.
pub fn loaded(app: &AppHandle) {
    let trimmed = app.try_state::<WindowLife>().is_some_and(|life| life.start_up_trimmed.swap(true, Ordering::SeqCst));
    if trimmed {
        return;
    }
    tauri::async_runtime::spawn(async {
        tokio::time::sleep(START_UP_OVER).await;
        if let Ok(dropped) = tokio::task::spawn_blocking(crate::trim::after_start).await {
            tracing::info!(code_bytes = dropped, "gave back what start-up took");
        }
    });
}

/// How long after a release its memory is given back: WebKit tears the page down first.
const TRIM_AFTER: Duration = Duration::from_secs(2);

/// The environment variable that sets the keep-warm time, in whole seconds (`0` releases the
/// window as soon as it is hidden).
pub const KEEP_WARM_VARIABLE: &str = "BECKON_WINDOW_KEEP_WARM_SECONDS";

/// The keep-warm time `value` (the variable's value, when set) asks for; `None` when it is
/// not a number of seconds.
pub fn keep_warm(value: Option<&str>) -> Option<Duration> {
    match value.map(str::trim) {
        None | Some("") => Some(KEEP_WARM),
        Some(seconds) => seconds.parse().ok().map(Duration::from_secs),
    }
}

/// The keep-warm time this process runs with: the variable's, or [`KEEP_WARM`] (with a
/// warning when the variable is not a number).
fn keep_warm_from_environment() -> Duration {
    let value = std::env::var(KEEP_WARM_VARIABLE).ok();
    keep_warm(value.as_deref()).unwrap_or_else(|| {
        tracing::warn!(
            variable = KEEP_WARM_VARIABLE,
            ?value,
            "not a number of seconds; the window keeps warm {} s",
            KEEP_WARM.as_secs()
        );
        KEEP_WARM
    })
}

/// What the app keeps about its window.
pub struct WindowLife {
    keep_warm: Duration,
    /// Whether a release also stops WebKit's network process. Not while a WebDriver session
    /// drives the app (tauri-driver sets `TAURI_WEBVIEW_AUTOMATION`): WebKitWebDriver takes the
    /// network process's exit for a crash of the page it drives and ends its session.
    stops_network_process: bool,
    /// Counts the window's hides: a release planned after a hide goes ahead only if no other
    /// hide came since (a show in between leaves the window visible, which also stops it).
    hides: AtomicU64,
    /// Whether start-up's memory was given back (once, after the first page loaded).
    start_up_trimmed: AtomicBool,
}

impl WindowLife {
    /// The window's life with the keep-warm time from the environment.
    pub fn from_environment() -> WindowLife {
        let automated = std::env::var("TAURI_WEBVIEW_AUTOMATION").is_ok_and(|value| value == "true");
        WindowLife {
            keep_warm: keep_warm_from_environment(),
            stops_network_process: !automated,
            hides: AtomicU64::new(0),
            start_up_trimmed: AtomicBool::new(false),
        }
    }
}

/// Hides the window (closed by the person, or never shown at a start at login) and plans its
/// release once it has stayed hidden for the keep-warm time.
pub fn hidden(app: &AppHandle) {
    let Some(life) = app.try_state::<WindowLife>() else { return };
    let hide = life.hides.fetch_add(1, Ordering::SeqCst) + 1;
    let keep_warm = life.keep_warm;
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(keep_warm).await;
        let on_main = app.clone();
        if let Err(err) = app.run_on_main_thread(move || release(&on_main, hide)) {
            tracing::warn!(%err, "cannot release the window");
        }
    });
}

/// Releases the window if it is still hidden since `hide`.
fn release(app: &AppHandle, hide: u64) {
    let Some(life) = app.try_state::<WindowLife>() else { return };
    let Some(window) = app.get_webview_window(LABEL) else { return };
    if life.hides.load(Ordering::SeqCst) != hide || window.is_visible().unwrap_or(true) {
        return;
    }
    match window.destroy() {
        Ok(()) => tracing::info!(hidden_for = life.keep_warm.as_secs(), "released the window's WebView"),
        Err(err) => {
            tracing::warn!(%err, "cannot release the window");
            return;
        }
    }
    // Once WebKit has let the page go, and only if no window was made since.
    let stop_network = life.stops_network_process;
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(TRIM_AFTER).await;
        let on_main = app.clone();
        let trim = move || {
            if on_main.get_webview_window(LABEL).is_none() {
                let trimmed = crate::trim::after_release(stop_network);
                tracing::info!(?trimmed, "gave back what the window took");
            }
        };
        if let Err(err) = app.run_on_main_thread(trim) {
            tracing::warn!(%err, "cannot give back what the window took");
        }
    });
}

/// Shows, unminimises and focuses the main window, making it again if it was released.
pub fn show(app: &AppHandle) {
    let on_main = app.clone();
    if let Err(err) = app.run_on_main_thread(move || {
        if let Err(err) = bring_up(&on_main) {
            tracing::warn!(%err, "cannot show the window");
        }
    }) {
        tracing::warn!(%err, "cannot show the window");
    }
}

fn bring_up(app: &AppHandle) -> tauri::Result<()> {
    let window = match app.get_webview_window(LABEL) {
        Some(window) => window,
        None => make(app)?,
    };
    window.unminimize()?;
    window.show()?;
    window.set_focus()
}

/// Makes the main window at start, once the app has started what it hosts, shown or (a start
/// at login) hidden. Made earlier, its WebView would start while the start-up held the main
/// thread, and WebKit would wait on that thread for the page's first drawing (half a second).
pub fn first(app: &AppHandle, visible: bool) -> tauri::Result<WebviewWindow> {
    build(app, visible)
}

/// Makes the main window again, visible.
fn make(app: &AppHandle) -> tauri::Result<WebviewWindow> {
    tracing::info!("making the window again");
    build(app, true)
}

/// Makes the main window from the app's configuration.
fn build(app: &AppHandle, visible: bool) -> tauri::Result<WebviewWindow> {
    let config = app.config().app.windows.iter().find(|window| window.label == LABEL).cloned();
    let config = config.ok_or_else(|| tauri::Error::WindowNotFound)?;
    WebviewWindowBuilder::from_config(app, &config)?.visible(visible).build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keep_warm_time_is_read_in_seconds() {
        assert_eq!(keep_warm(None), Some(KEEP_WARM));
        assert_eq!(keep_warm(Some(" ")), Some(KEEP_WARM));
        assert_eq!(keep_warm(Some("0")), Some(Duration::ZERO));
        assert_eq!(keep_warm(Some(" 42 ")), Some(Duration::from_secs(42)));
        assert_eq!(keep_warm(Some("3m")), None);
        assert_eq!(keep_warm(Some("-1")), None);
    }
}
