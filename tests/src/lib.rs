//! A harness for driving the real Beckon app: each test gets its own home folder, data folder,
//! session bus and tauri-driver, talks to the app's WebView over WebDriver, and watches what
//! the app does on the bus (notifications, the tray item).

mod app;
mod bus;
mod fake_telegram;
pub mod gateway;
mod home;
pub mod minimal_tauri;
mod notifications;
pub mod packages;
pub mod procs;
pub mod seed;
mod transcript;
mod tray;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use app::App;
pub use bus::Bus;
pub use fake_telegram::FakeTelegram;
pub use home::Home;
pub use notifications::{Notifications, Notified, parse_monitor_log};
pub use transcript::Transcript;
pub use tray::{MenuEntry, TrayItem, TrayWatcher, parse_menu_layout};

/// How long any one expectation may take.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// Anything that can go wrong driving the app.
pub type Failure = Box<dyn std::error::Error + Send + Sync>;

/// Cargo's target folder: `CARGO_TARGET_DIR`, else the workspace's `target/`.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

/// The desktop binary the tests drive (built by `scripts/test` before the suite runs).
pub fn app_binary() -> PathBuf {
    target_dir().join("debug").join("beckon-desktop")
}

/// The `beckon` command, built beside the app by the same `cargo nextest run`.
pub fn cli_binary() -> PathBuf {
    target_dir().join("debug").join("beckon")
}

/// Where a test saves the screenshot `name`: the README's own folder when
/// `BECKON_UPDATE_SCREENSHOTS=1` asks for them to be redrawn, otherwise under `target/`, so a
/// test run leaves the tree as it found it.
pub fn screenshot_path(name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if std::env::var_os("BECKON_UPDATE_SCREENSHOTS").is_some_and(|v| v == "1") {
        root.join("docs/screenshots").join(name)
    } else {
        root.join("target/screenshots").join(name)
    }
}

/// Polls `probe` until it yields something, for at most [`PATIENCE`]; `what` names the
/// expectation in the error.
pub async fn eventually<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> Result<T, Failure> {
    let started = Instant::now();
    loop {
        if let Some(found) = probe() {
            return Ok(found);
        }
        if started.elapsed() > PATIENCE {
            return Err(format!("{what}: not within {PATIENCE:?}").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
