//! Start-up, idle memory and notification latency of the real app, side by side with an empty
//! Tauri app of the same Tauri version (built here from `tests/bench/minimal-tauri`):
//!
//! - the time from the process starting to the window's first painted frame with everything
//!   loaded (the UI's `beckon:ready` mark), with no question pending and with each count of
//!   `--pending N[,N…]` (1,000 and 10,000 by default) from twenty agents in five projects, and
//!   where that time goes (page created, page parsed, snapshot in, view in the DOM);
//! - the resident and proportional memory of each app and its WebKit processes once idle;
//! - the time from a question asked over the gateway's HTTP API to the app's `Notify` call on
//!   the session bus (as `dbus-monitor` timestamps it), with dunst as the notification daemon.
//!
//! Launches take turns (Beckon empty, Beckon with each count pending, the empty Tauri app), so
//! all see the same machine. Run it under a display:
//!
//! `xvfb-run -a cargo run -p beckon-e2e --features e2e --bin startup-bench -- [--app PATH]
//! [--pending N[,N…]] [--runs N] [--idle-seconds N] [--asks N]`
//!
//! It measures `--app`, else the release build of the app if there is one, else the debug build.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use beckon_e2e::{App, Bus, Failure, Home, Notifications, gateway, minimal_tauri, procs, seed, target_dir};
use serde_json::{Value, json};

/// The first frame with this many questions pending must be out within that; counts between
/// take the goal of the next count up, and counts beyond the last its goal.
const FIRST_FRAME_GOALS: [(usize, Duration); 2] =
    [(1_000, Duration::from_millis(1_000)), (10_000, Duration::from_millis(1_500))];
/// The app's idle memory may exceed the empty Tauri app's by at most this share.
const MEMORY_GOAL: f64 = 0.20;
/// A question asked over HTTP must reach the bus as a notification within this.
const NOTIFY_GOAL: Duration = Duration::from_millis(50);
/// Asks are this far apart: more than three questions within five seconds become one
/// notification for them all, and this measures the one for a question.
const ASK_SPACING: Duration = Duration::from_secs(2);

struct Options {
    app: Option<PathBuf>,
    pending: Vec<usize>,
    runs: usize,
    idle: Duration,
    asks: usize,
}

fn options() -> Result<Options, Failure> {
    let mut options =
        Options { app: None, pending: vec![1_000, 10_000], runs: 5, idle: Duration::from_secs(10), asks: 9 };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--app" => options.app = Some(PathBuf::from(value()?)),
            "--pending" => {
                options.pending =
                    value()?.split(',').map(|count| count.trim().parse()).collect::<Result<Vec<usize>, _>>()?;
            }
            "--runs" => options.runs = value()?.parse::<usize>()?.max(1),
            "--idle-seconds" => options.idle = Duration::from_secs(value()?.parse()?),
            "--asks" => options.asks = value()?.parse::<usize>()?.max(1),
            other => {
                return Err(format!(
                    "unknown option {other}; use --app PATH, --pending N[,N…], --runs N, --idle-seconds N, --asks N"
                )
                .into());
            }
        }
    }
    Ok(options)
}

/// The app binary to measure and which build it is.
fn app_to_measure(given: Option<PathBuf>) -> Result<(PathBuf, &'static str), Failure> {
    let (path, build) = match given {
        Some(path) => (path, "given with --app"),
        None => {
            let release = target_dir().join("release").join("beckon-desktop");
            if release.exists() { (release, "release build") } else { (beckon_e2e::app_binary(), "debug build") }
        }
    };
    // Canonical, so its name is what /proc shows as the process's executable.
    let path = path.canonicalize().map_err(|err| format!("cannot find the app at {}: {err}", path.display()))?;
    Ok((path, build))
}

/// One process's memory: its name, RSS and PSS in bytes.
type ProcessMemory = (String, u64, u64);

/// One launch.
struct Launch {
    to_ready: Duration,
    /// When each of [`STAGES`] was reached after the process started, where the page timed it.
    stages: Vec<Option<Duration>>,
    /// Measured only when the launch was asked to idle.
    memory: Option<Vec<ProcessMemory>>,
}

/// Start-up's stages as the page times them, in the order they happen: what the page calls
/// each (`null` when it has none) and the label printed for it.
const STAGES: [(&str, &str); 5] = [
    ("page", "page created"),
    ("dom", "page parsed"),
    ("snapshot", "snapshot in"),
    ("rendered", "in the DOM"),
    ("ready", "first frame"),
];

/// The page's script reading the stages, in milliseconds since the epoch.
const STAGES_SCRIPT: &str = "const at = (name) => { const m = performance.getEntriesByName(name)[0]; return m ? performance.timeOrigin + m.startTime : null; };
const nav = performance.getEntriesByType('navigation')[0];
return { page: performance.timeOrigin, dom: nav ? performance.timeOrigin + nav.domContentLoadedEventEnd : null, snapshot: at('beckon:snapshot'), rendered: at('beckon:rendered'), ready: at('beckon:ready') };";

/// Waits for the window's `beckon:ready` mark; then when each stage was reached, in
/// milliseconds since the epoch (the last one, `ready`, always there).
async fn ready_stages(app: &App) -> Result<Vec<Option<f64>>, Failure> {
    let started = Instant::now();
    loop {
        let stages = app.eval(STAGES_SCRIPT).await?;
        if stages["ready"].as_f64().is_some() {
            return Ok(STAGES.iter().map(|(name, _)| stages[name].as_f64()).collect());
        }
        if started.elapsed() > Duration::from_secs(120) {
            return Err("the window never became ready".into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits for the window's `beckon:ready` mark.
async fn ready_mark(app: &App) -> Result<(), Failure> {
    ready_stages(app).await.map(drop)
}

/// Launches `program` in `home` on a bus of its own, times its first frame and, with `idle`,
/// measures its processes' memory after that long.
async fn launch(program: &Path, home: &Home, idle: Option<Duration>) -> Result<Launch, Failure> {
    let app = App::launch_program(home, Bus::start()?, program).await?;
    let stages = ready_stages(&app).await?;
    let name = program.file_name().ok_or("the program has no file name")?.to_string_lossy();
    let variable = format!("BECKON_DATA_DIR={}", home.data_dir().display());
    let process = procs::find(&name, &variable).ok_or_else(|| format!("cannot find the process of {name}"))?;
    let began = procs::started_at(&process).ok_or("cannot read the app's start time")?;
    let began_ms = began.duration_since(UNIX_EPOCH)?.as_secs_f64() * 1000.0;
    let since_start = |at: f64| Duration::from_secs_f64(((at - began_ms) / 1000.0).max(0.0));
    let stages: Vec<Option<Duration>> = stages.into_iter().map(|at| at.map(since_start)).collect();
    let to_ready = stages.last().copied().flatten().ok_or("the page has no ready mark")?;
    let memory = match idle {
        Some(idle) => {
            tokio::time::sleep(idle).await;
            Some(
                procs::tree(&process)
                    .into_iter()
                    .filter_map(|p| procs::memory(p.pid).map(|(rss, pss)| (p.name, rss, pss)))
                    .collect(),
            )
        }
        None => None,
    };
    app.quit().await?;
    Ok(Launch { to_ready, stages, memory })
}

/// The launches of one app in one home.
struct Subject {
    label: String,
    program: PathBuf,
    home: Home,
    launches: Vec<Launch>,
}

impl Subject {
    /// Median, fastest and slowest time to the first frame, in milliseconds.
    fn first_frame_ms(&self) -> (u128, u128, u128) {
        let mut times: Vec<u128> = self.launches.iter().map(|l| l.to_ready.as_millis()).collect();
        times.sort_unstable();
        (times[times.len() / 2], times[0], times[times.len() - 1])
    }

    /// The median time after the process started at which each of [`STAGES`] was reached, in
    /// milliseconds, over the launches that timed it.
    fn stages_ms(&self) -> Vec<Option<u128>> {
        (0..STAGES.len())
            .map(|stage| {
                let mut times: Vec<u128> = self
                    .launches
                    .iter()
                    .filter_map(|l| l.stages.get(stage).copied().flatten())
                    .map(|d| d.as_millis())
                    .collect();
                times.sort_unstable();
                times.get(times.len() / 2).copied()
            })
            .collect()
    }

    /// The idle memory of the launch that idled.
    fn memory(&self) -> &[ProcessMemory] {
        self.launches.iter().rev().find_map(|l| l.memory.as_deref()).unwrap_or_default()
    }

    /// Total RSS and PSS, in bytes.
    fn memory_total(&self) -> (u64, u64) {
        self.memory().iter().fold((0, 0), |(r, p), (_, rss, pss)| (r + rss, p + pss))
    }
}

/// Asks `asks` questions over the gateway of `program`, running on a bus with dunst, and times
/// each until its `Notify` call is seen on the bus.
async fn ask_to_notification(program: &Path, asks: usize) -> Result<Vec<Duration>, Failure> {
    let home = Home::new()?;
    seed::pending(&home, 0).await?;
    let mut bus = Bus::start()?;
    bus.start_notification_daemon(&home).await?;
    let notifications = Notifications::record(&bus).await?;
    let app = App::launch_program(&home, bus, program).await?;
    ready_mark(&app).await?;
    // Let start-up's own work settle before the first ask.
    tokio::time::sleep(ASK_SPACING).await;
    let mut latencies = Vec::new();
    for i in 0..asks {
        let agent = format!("bench-bot-{i}");
        let asked = SystemTime::now();
        gateway::ask(&home, &agent, &format!("Deploy build {i} to production?")).await?;
        let prefix = format!("{agent} asks");
        let shown = notifications.wait_for(&format!("{agent}'s notification"), |n| n.summary.contains(&prefix)).await?;
        let seen = shown.seen_at.ok_or("dbus-monitor gave the Notify call no time")?;
        let latency = seen.duration_since(asked).unwrap_or_default();
        eprintln!("ask {}/{asks}: Notify on the bus after {:.1} ms", i + 1, latency.as_secs_f64() * 1000.0);
        latencies.push(latency);
        tokio::time::sleep(ASK_SPACING).await;
    }
    app.quit().await?;
    latencies.sort_unstable();
    Ok(latencies)
}

/// The first-frame goal for `count` questions pending.
fn first_frame_goal(count: usize) -> Duration {
    FIRST_FRAME_GOALS
        .iter()
        .find(|(up_to, _)| count <= *up_to)
        .or(FIRST_FRAME_GOALS.last())
        .map_or(Duration::from_secs(1), |(_, goal)| *goal)
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn tenths(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

fn ms(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1000.0 * 100.0).round() / 100.0
}

fn verdict(kept: bool) -> &'static str {
    if kept { "kept" } else { "MISSED" }
}

fn memory_json(subject: &Subject) -> Value {
    let (rss, pss) = subject.memory_total();
    json!({
        "rss_mib": tenths(mib(rss)),
        "pss_mib": tenths(mib(pss)),
        "processes": subject.memory().iter().map(|(n, r, p)| json!({"name": n, "rss_mib": tenths(mib(*r)), "pss_mib": tenths(mib(*p))})).collect::<Vec<_>>(),
    })
}

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let options = options()?;
    let (app, build) = app_to_measure(options.app.clone())?;
    eprintln!("measuring {} ({build})", app.display());
    let lock = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock"))?;
    let (tauri, _) = minimal_tauri::tauri_versions(&lock).ok_or("Cargo.lock names no tauri")?;
    let building = Instant::now();
    let minimal = minimal_tauri::build()?;
    eprintln!("built the empty Tauri {tauri} app in {:.0} s", building.elapsed().as_secs_f64());

    let mut subjects = Vec::new();
    let mut lineup = vec![("Beckon, no question pending".to_owned(), &app, Some(0))];
    for &count in &options.pending {
        lineup.push((format!("Beckon, {count} questions pending"), &app, Some(count)));
    }
    lineup.push((format!("empty Tauri {tauri} app"), &minimal, None));
    for (label, program, pending) in lineup {
        let home = Home::new()?;
        if let Some(count) = pending {
            let seeding = Instant::now();
            seed::pending(&home, count).await?;
            eprintln!("seeded {count} pending questions in {:.1} s", seeding.elapsed().as_secs_f64());
        }
        subjects.push(Subject { label, program: program.clone(), home, launches: Vec::new() });
    }
    for round in 0..options.runs {
        // The last round idles and measures memory.
        let idle = (round + 1 == options.runs).then_some(options.idle);
        for subject in &mut subjects {
            let launch = launch(&subject.program, &subject.home, idle).await?;
            eprintln!(
                "run {}/{}: {}: first frame after {} ms",
                round + 1,
                options.runs,
                subject.label,
                launch.to_ready.as_millis()
            );
            subject.launches.push(launch);
        }
    }
    let latencies = ask_to_notification(&app, options.asks).await?;

    let [empty, loaded @ .., yardstick] = &subjects[..] else { return Err("no subject was measured".into()) };
    println!("{} ({build}) against an empty Tauri {tauri} app (release build)", app.display());
    println!();
    println!("first frame ({} launches each, median) and idle memory after {} s", options.runs, options.idle.as_secs());
    println!(
        "  {:<34} {:>12} {:>12} {:>12} {:>10} {:>10}",
        "", "first frame", "fastest", "slowest", "RSS MiB", "PSS MiB"
    );
    for subject in &subjects {
        let (median, fastest, slowest) = subject.first_frame_ms();
        let (rss, pss) = subject.memory_total();
        println!(
            "  {:<34} {:>9} ms {:>9} ms {:>9} ms {:>10.1} {:>10.1}",
            subject.label,
            median,
            fastest,
            slowest,
            mib(rss),
            mib(pss)
        );
    }
    println!();
    println!("where start-up's time goes (median ms after the process started)");
    print!("  {:<34}", "");
    for (_, label) in STAGES {
        print!(" {label:>14}");
    }
    println!();
    for subject in &subjects {
        print!("  {:<34}", subject.label);
        for stage in subject.stages_ms() {
            match stage {
                Some(ms) => print!(" {:>11} ms", ms),
                None => print!(" {:>14}", "–"),
            }
        }
        println!();
    }
    println!();
    println!("idle memory by process");
    for subject in &subjects {
        println!("  {}:", subject.label);
        for (name, rss, pss) in subject.memory() {
            println!("    {name:<32} {:>49.1} {:>10.1}", mib(*rss), mib(*pss));
        }
    }
    let median_latency = latencies[latencies.len() / 2];
    println!();
    println!(
        "ask over HTTP → Notify on the bus ({} asks): median {:.1} ms, fastest {:.1} ms, slowest {:.1} ms",
        latencies.len(),
        ms(median_latency),
        ms(latencies[0]),
        ms(latencies[latencies.len() - 1])
    );

    let (empty_rss, empty_pss) = empty.memory_total();
    let (bare_rss, bare_pss) = yardstick.memory_total();
    let over = |ours: u64, bare: u64| ours as f64 / bare.max(1) as f64 - 1.0;
    let (over_rss, over_pss) = (over(empty_rss, bare_rss), over(empty_pss, bare_pss));
    let memory_kept = over_rss <= MEMORY_GOAL && over_pss <= MEMORY_GOAL;
    let frame_goals: Vec<(usize, u128, Duration, bool)> = options
        .pending
        .iter()
        .zip(loaded)
        .map(|(&count, subject)| {
            let goal = first_frame_goal(count);
            let (median, _, _) = subject.first_frame_ms();
            (count, median, goal, median < goal.as_millis())
        })
        .collect();
    let notify_kept = median_latency < NOTIFY_GOAL;
    println!();
    println!("goals");
    println!(
        "  idle memory within +{:.0}% of the empty Tauri app's: RSS {:+.0}%, PSS {:+.0}%: {}",
        MEMORY_GOAL * 100.0,
        over_rss * 100.0,
        over_pss * 100.0,
        verdict(memory_kept)
    );
    for (count, median, goal, kept) in &frame_goals {
        println!("  first frame with {count} pending under {} ms: {median} ms: {}", goal.as_millis(), verdict(*kept));
    }
    println!(
        "  ask over HTTP → Notify on the bus under {} ms: {:.1} ms: {}",
        NOTIFY_GOAL.as_millis(),
        ms(median_latency),
        verdict(notify_kept)
    );
    if build == "debug build" {
        println!("  (a debug build: the goals are for the release build, `cargo build --release -p beckon-desktop`)");
    }
    let frames = |subject: &Subject| {
        let (median, min, max) = subject.first_frame_ms();
        let stages: serde_json::Map<String, Value> =
            STAGES.iter().zip(subject.stages_ms()).map(|((name, _), ms)| ((*name).to_owned(), json!(ms))).collect();
        json!({"median": median, "min": min, "max": max, "stages": stages})
    };
    println!(
        "{}",
        json!({
            "build": build,
            "tauri": tauri,
            "runs": options.runs,
            "idle_seconds": options.idle.as_secs(),
            "pending": options.pending,
            "first_frame_ms": {
                "empty": frames(empty),
                "pending": options.pending.iter().zip(loaded).map(|(count, subject)| json!({"count": count, "frames": frames(subject)})).collect::<Vec<_>>(),
                "minimal_tauri": frames(yardstick),
            },
            "idle_memory": {
                "empty": memory_json(empty),
                "pending": options.pending.iter().zip(loaded).map(|(count, subject)| json!({"count": count, "memory": memory_json(subject)})).collect::<Vec<_>>(),
                "minimal_tauri": memory_json(yardstick),
            },
            "idle_over_minimal": {"rss": (over_rss * 1000.0).round() / 1000.0, "pss": (over_pss * 1000.0).round() / 1000.0},
            "ask_to_notify_ms": {"median": ms(median_latency), "min": ms(latencies[0]), "max": ms(latencies[latencies.len() - 1]), "asks": latencies.len()},
            "goals": {
                "idle_memory": memory_kept,
                "first_frame": frame_goals.iter().map(|(count, _, _, kept)| json!({"count": count, "kept": kept})).collect::<Vec<_>>(),
                "ask_to_notify": notify_kept,
            },
        })
    );
    Ok(())
}
