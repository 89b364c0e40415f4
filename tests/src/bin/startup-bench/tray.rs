//! The app's weight while it waits in the tray: started on its own as people run it (no
//! WebDriver, whose session would keep WebKit's network process), with a realistic inbox, its
//! window closed and left closed.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use beckon_e2e::{App, Bus, Failure, Home, eventually, seed};

use crate::log;
use crate::memory::{self, ProcessMemory};
use crate::plain::PlainApp;

/// Questions pending while the app waits in the tray.
pub const PENDING: usize = 1_000;

/// What the app weighed after waiting in the tray.
pub struct TrayWeight {
    /// How long it waited after its window was closed.
    pub waited: Duration,
    /// The keep-warm time set for it; `None`: the app's default.
    pub keep_warm: Option<u64>,
    /// How long after the close the app released the WebView, as its log times it.
    pub released_after: Option<Duration>,
    /// How long after the close it gave back what the window took, as its log times it.
    pub gave_back_after: Option<Duration>,
    /// Its process tree at the end.
    pub memory: Vec<ProcessMemory>,
}

/// How long after `closed` the first line holding `text` was written.
fn logged_after(app: &PlainApp, text: &str, closed: SystemTime) -> Option<Duration> {
    let line = log::nth_holding(&app.lines(), text, 0)?;
    log::written_at(&line)?.duration_since(closed).ok()
}

/// Starts `program` with [`PENDING`] questions pending, closes its window once on screen, lets
/// it wait `wait` (a progress line a minute) and weighs its process tree.
pub async fn weigh(program: &Path, wait: Duration, keep_warm: Option<u64>) -> Result<TrayWeight, Failure> {
    let home = Home::new()?;
    let seeding = Instant::now();
    seed::pending(&home, PENDING).await?;
    eprintln!("tray: seeded {PENDING} pending questions in {:.1} s", seeding.elapsed().as_secs_f64());
    let mut bus = Bus::start()?;
    bus.start_notification_daemon(&home).await?;
    let keep_warm_text = keep_warm.map(|seconds| seconds.to_string());
    let variables: Vec<(&str, &str)> =
        keep_warm_text.iter().map(|seconds| ("BECKON_WINDOW_KEEP_WARM_SECONDS", seconds.as_str())).collect();
    let app = PlainApp::start(program, home, bus, &variables).await?;
    let closed = SystemTime::now();
    App::close_window(&app.home)?;
    eventually("the window off screen", || (!App::window_on_screen(&app.home).ok()?).then_some(())).await?;
    eprintln!("tray: the window is closed; waiting {:.1} min", wait.as_secs_f64() / 60.0);
    let started = Instant::now();
    while started.elapsed() < wait {
        tokio::time::sleep((wait - started.elapsed()).min(Duration::from_secs(60))).await;
        let (_, pss) = memory::totals(&memory::of_tree(&app.process()?));
        let released = match logged_after(&app, log::RELEASED, closed) {
            Some(after) => format!("WebView released {:.0} s after the close", after.as_secs_f64()),
            None => "WebView kept".to_owned(),
        };
        eprintln!(
            "tray: {:.1}/{:.1} min: {:.1} MiB PSS, {released}",
            started.elapsed().as_secs_f64() / 60.0,
            wait.as_secs_f64() / 60.0,
            memory::mib(pss)
        );
    }
    let memory = memory::of_tree(&app.process()?);
    let weight = TrayWeight {
        waited: started.elapsed(),
        keep_warm,
        released_after: logged_after(&app, log::RELEASED, closed),
        gave_back_after: logged_after(&app, log::GAVE_BACK, closed),
        memory,
    };
    app.quit().await?;
    Ok(weight)
}
