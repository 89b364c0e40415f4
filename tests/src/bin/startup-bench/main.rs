//! Start-up, memory and latency of the real app, side by side with an empty Tauri app of the
//! same Tauri version (built here from `tests/bench/minimal-tauri`):
//!
//! - `frames`: the time from the process starting to the window's first painted frame with
//!   everything loaded (the UI's `beckon:ready` mark), with no question pending and with each
//!   count of `--pending N[,N…]` (1,000 and 10,000 by default) from twenty agents in five
//!   projects, and where that time goes; and the process tree's memory with the window open
//!   after `--idle-seconds`, every launch of Beckon with nothing pending and of the empty app;
//! - `tray`: the app started on its own (no WebDriver) with 1,000 questions pending, its window
//!   closed, weighed after `--tray-minutes` in the tray, and when it released its WebView;
//! - `clicks`: a click on a notification to its question on screen (the window's
//!   `beckon:question-shown` mark), with the window kept warm and with it released, and what
//!   starting WebKit's network process again adds to the latter;
//! - `notify`: a question asked over the gateway's HTTP API to the app's `Notify` call.
//!
//! Launches take turns, so all see the same machine. Run it under a display:
//!
//! `xvfb-run -a cargo run -p beckon-e2e --features e2e --bin startup-bench -- [--app PATH]
//! [--empty-app PATH] [--pending N[,N…]] [--runs N] [--idle-seconds N] [--tray-minutes N]
//! [--tray-keep-warm SECONDS] [--clicks N] [--asks N] [--only frames,tray,clicks,notify]
//! [--save PATH]`
//!
//! It measures `--app`, else the release build of the app if there is one, else the debug
//! build. It prints its figures and the goals they are judged on as text, then as one JSON
//! object; `--save` also writes that object, with the date, the machine and the binary's size.

mod clicks;
mod frames;
mod launch;
mod log;
mod memory;
mod notify;
mod options;
mod plain;
mod report;
mod tray;

use std::path::{Path, PathBuf};
use std::time::Instant;

use beckon_e2e::{Failure, minimal_tauri, target_dir};

use crate::frames::Kind;
use crate::options::{Options, Part};
use crate::report::Report;

/// The app binary to measure and which build it is.
fn app_to_measure(given: Option<PathBuf>) -> Result<(PathBuf, String), Failure> {
    let path = match given {
        Some(path) => path,
        None => {
            let release = target_dir().join("release").join("beckon-desktop");
            if release.exists() { release } else { beckon_e2e::app_binary() }
        }
    };
    // Canonical, so its name is what /proc shows as the process's executable.
    let path = path.canonicalize().map_err(|err| format!("cannot find the app at {}: {err}", path.display()))?;
    let profile = path.parent().and_then(Path::file_name).map(|name| name.to_string_lossy().into_owned());
    let build = match profile.as_deref() {
        Some(profile @ ("release" | "debug")) => format!("{profile} build"),
        _ => "given with --app".to_owned(),
    };
    Ok((path, build))
}

/// The empty Tauri app and which build it is: `given`, else built here (release).
fn empty_app(given: Option<PathBuf>, tauri: &str) -> Result<(PathBuf, String), Failure> {
    match given {
        Some(path) => Ok((path.canonicalize()?, "given with --empty-app".to_owned())),
        None => {
            let building = Instant::now();
            let built = minimal_tauri::build()?;
            eprintln!("built the empty Tauri {tauri} app in {:.0} s", building.elapsed().as_secs_f64());
            Ok((built, "release build".to_owned()))
        }
    }
}

/// A part's outcome, its error in words (and said at once, while the other parts go on).
fn outcome<T>(result: Result<T, Failure>) -> Result<T, String> {
    result.map_err(|err| {
        eprintln!("failed: {err}");
        err.to_string()
    })
}

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let options = Options::parse()?;
    let (app, build) = app_to_measure(options.app.clone())?;
    eprintln!("measuring {} ({build})", app.display());
    let lock = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock"))?;
    let (tauri, _) = minimal_tauri::tauri_versions(&lock).ok_or("Cargo.lock names no tauri")?;
    let needs_empty_app = options.runs_part(Part::Frames) || options.runs_part(Part::Clicks);
    let (empty, empty_app_build) = if needs_empty_app {
        let (path, build) = empty_app(options.empty_app.clone(), &tauri)?;
        (path, Some(build))
    } else {
        (PathBuf::new(), None)
    };
    let mut report = Report {
        app: within_workspace(&app),
        build: build.clone(),
        empty_app_build,
        tauri: tauri.clone(),
        runs: options.runs,
        idle: options.idle,
        pending: options.pending.clone(),
        frames: None,
        empty_first_frame: None,
        tray: None,
        clicks: None,
        notify: None,
    };

    if options.runs_part(Part::Frames) {
        let mut lineup = vec![("Beckon, nothing pending".to_owned(), Kind::Beckon { pending: 0 }, app.clone())];
        for &count in &options.pending {
            lineup.push((format!("Beckon, {count} questions pending"), Kind::Beckon { pending: count }, app.clone()));
        }
        lineup.push((format!("empty Tauri {tauri} app"), Kind::EmptyApp, empty.clone()));
        let frames = outcome(frames::measure(lineup, options.runs, options.idle).await);
        report.empty_first_frame = frames
            .as_ref()
            .ok()
            .map(|frames| frames.empty_app().map(|s| s.first_frame_ms().0).map_err(|err| err.to_string()));
        report.frames = Some(frames);
    }
    if options.runs_part(Part::Tray) {
        report.tray = Some(outcome(tray::weigh(&app, options.tray, options.tray_keep_warm).await));
    }
    if options.runs_part(Part::Clicks) {
        if report.empty_first_frame.is_none() {
            report.empty_first_frame = Some(outcome(frames::empty_app_first_frame(&empty, options.runs).await));
        }
        report.clicks = Some(clicks::measure(&app, options.clicks).await);
    }
    if options.runs_part(Part::Notify) {
        report.notify = Some(outcome(notify::ask_to_notification(&app, options.asks).await));
    }

    report.print_text();
    let json = report.json();
    println!("{json}");
    if let Some(path) = &options.save {
        let saved = report::saved(json, &app, &build);
        std::fs::write(path, format!("{}\n", serde_json::to_string_pretty(&saved)?))?;
        eprintln!("saved to {}", path.display());
    }
    if report.failed() {
        return Err("a part of the bench failed (see above)".into());
    }
    Ok(())
}

/// `path` as the report names it: relative to the workspace when it is inside it, so a saved
/// run names no folder of the machine it ran on; else its file name.
fn within_workspace(path: &Path) -> String {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let workspace = workspace.canonicalize().unwrap_or(workspace);
    match path.strip_prefix(&workspace) {
        Ok(inside) => inside.display().to_string(),
        Err(_) => {
            path.file_name().map_or_else(|| path.display().to_string(), |name| name.to_string_lossy().into_owned())
        }
    }
}
