//! What the bench found: its figures and the goals they are judged on, printed as text and as
//! one JSON object (the same figures), and saved with a description of the machine.

use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::clicks::Clicks;
use crate::frames::{Frames, STAGES, Subject};
use crate::memory::{self, mib, tenths};
use crate::tray::{self, TrayWeight};

/// Beckon's first frame with up to this many questions pending may take this much longer
/// than the empty Tauri app's (its median, same run); counts beyond the last take its allowance.
const FIRST_FRAME_ALLOWANCE: [(usize, Duration); 2] =
    [(1_000, Duration::from_millis(150)), (10_000, Duration::from_millis(300))];
/// Beckon's idle PSS with the window open may exceed the empty Tauri app's by at most this share.
const IDLE_MEMORY_GOAL: f64 = 0.15;
/// The app's whole process tree in the tray, long after its window closed, stays under this.
const TRAY_PSS_GOAL_MIB: f64 = 110.0;
/// A click on a notification shows its question within this while the window is kept warm.
const WARM_CLICK_GOAL: Duration = Duration::from_millis(150);
/// A click shows its question within the empty Tauri app's first frame and this, once the
/// window was released.
const COLD_CLICK_ALLOWANCE: Duration = Duration::from_millis(150);

/// A question asked over HTTP reaches the bus as a notification within this.
const NOTIFY_GOAL: Duration = Duration::from_millis(50);

/// The first-frame allowance for `count` questions pending.
fn first_frame_allowance(count: usize) -> Duration {
    FIRST_FRAME_ALLOWANCE
        .iter()
        .find(|(up_to, _)| count <= *up_to)
        .or(FIRST_FRAME_ALLOWANCE.last())
        .map_or(Duration::ZERO, |(_, allowance)| *allowance)
}

/// Milliseconds, to hundredths.
fn ms(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1000.0 * 100.0).round() / 100.0
}

fn hundredths(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

fn verdict(kept: bool) -> &'static str {
    if kept { "kept" } else { "MISSED" }
}

/// The median of `durations` (the upper one of an even count), fastest and slowest.
fn spread(durations: &[Duration]) -> (Duration, Duration, Duration) {
    let mut sorted = durations.to_vec();
    sorted.sort_unstable();
    (sorted[sorted.len() / 2], sorted[0], sorted[sorted.len() - 1])
}

/// A series of timings as JSON, or the error that stopped it.
fn series_json(series: &Result<Vec<Duration>, String>) -> Value {
    match series {
        Ok(durations) => {
            let (median, min, max) = spread(durations);
            json!({"median": ms(median), "min": ms(min), "max": ms(max), "n": durations.len(),
                "each": durations.iter().copied().map(ms).collect::<Vec<_>>()})
        }
        Err(err) => json!({"error": err}),
    }
}

/// A series of timings as text.
fn series_text(series: &Result<Vec<Duration>, String>) -> String {
    match series {
        Ok(durations) => {
            let (median, min, max) = spread(durations);
            format!(
                "median {:.1} ms, fastest {:.1} ms, slowest {:.1} ms ({} times)",
                ms(median),
                ms(min),
                ms(max),
                durations.len()
            )
        }
        Err(err) => format!("FAILED: {err}"),
    }
}

/// One goal as judged.
struct Goal {
    /// Its key in the JSON.
    key: String,
    /// What it asks and what was found, in words.
    text: String,
    /// The figure and the limit it is held to, in `unit`.
    value: f64,
    limit: f64,
    unit: &'static str,
    kept: bool,
}

/// What was measured, part by part (`None`: not asked for).
pub struct Report {
    pub app: String,
    pub build: String,
    /// Which build the empty Tauri app is (`None`: no part compares with it).
    pub empty_app_build: Option<String>,
    pub tauri: String,
    pub runs: usize,
    pub idle: Duration,
    pub pending: Vec<usize>,
    pub frames: Option<Result<Frames, String>>,
    /// The empty Tauri app's median first frame (from `frames`, or measured for the clicks).
    pub empty_first_frame: Option<Result<u128, String>>,
    pub tray: Option<Result<TrayWeight, String>>,
    pub clicks: Option<Clicks>,
    pub notify: Option<Result<Vec<Duration>, String>>,
}

impl Report {
    /// Whether any part failed.
    pub fn failed(&self) -> bool {
        let clicks_failed = self.clicks.as_ref().is_some_and(|c| {
            c.warm.is_err() || c.cold.is_err() || c.link_network_stopped.is_err() || c.link_network_kept.is_err()
        });
        matches!(self.frames, Some(Err(_)))
            || matches!(self.tray, Some(Err(_)))
            || matches!(self.notify, Some(Err(_)))
            || matches!(self.empty_first_frame, Some(Err(_)))
            || clicks_failed
    }

    /// The network process's cost: the median link-to-page with it stopped, less with it kept.
    fn network_process_cost(clicks: &Clicks) -> Option<f64> {
        let stopped = clicks.link_network_stopped.as_ref().ok()?;
        let kept = clicks.link_network_kept.as_ref().ok()?;
        Some(hundredths(ms(spread(stopped).0) - ms(spread(kept).0)))
    }

    /// The cold click as judged: the driven cold click's median and the network process's cost.
    fn cold_click(clicks: &Clicks) -> Option<(f64, f64)> {
        let driven = ms(spread(clicks.cold.as_ref().ok()?).0);
        Some((driven, Report::network_process_cost(clicks)?))
    }

    fn goals(&self) -> Vec<Goal> {
        let mut goals = Vec::new();
        if let Some(Ok(frames)) = &self.frames
            && let (Ok(nothing), Ok(empty)) = (frames.nothing_pending(), frames.empty_app())
        {
            let (empty_median, _, _) = empty.first_frame_ms();
            for (count, subject) in frames.loaded() {
                let allowance = first_frame_allowance(count).as_millis();
                let limit = empty_median + allowance;
                let (median, _, _) = subject.first_frame_ms();
                goals.push(Goal {
                    key: format!("first_frame_{count}_pending"),
                    text: format!("first frame with {count} pending ≤ the empty app's {empty_median} + {allowance} ms"),
                    value: median as f64,
                    limit: limit as f64,
                    unit: "ms",
                    kept: median <= limit,
                });
            }
            let (ours, bare) = (nothing.median_memory(), empty.median_memory());
            let (ours, bare) = (mib(memory::totals(ours).1), mib(memory::totals(bare).1));
            let limit = bare * (1.0 + IDLE_MEMORY_GOAL);
            goals.push(Goal {
                key: "idle_memory".to_owned(),
                text: format!(
                    "idle PSS, window open, nothing pending ≤ the empty app's {bare:.1} MiB + {:.0}% ({:+.1}%)",
                    IDLE_MEMORY_GOAL * 100.0,
                    (ours / bare.max(f64::MIN_POSITIVE) - 1.0) * 100.0
                ),
                value: tenths(ours),
                limit: tenths(limit),
                unit: "MiB",
                kept: ours <= limit,
            });
        }
        if let Some(Ok(weight)) = &self.tray {
            let pss = mib(memory::totals(&weight.memory).1);
            goals.push(Goal {
                key: "tray_memory".to_owned(),
                text: format!(
                    "PSS in the tray after {:.1} min < {TRAY_PSS_GOAL_MIB} MiB",
                    weight.waited.as_secs_f64() / 60.0
                ),
                value: tenths(pss),
                limit: TRAY_PSS_GOAL_MIB,
                unit: "MiB",
                kept: pss < TRAY_PSS_GOAL_MIB,
            });
        }
        if let Some(clicks) = &self.clicks {
            if let Ok(warm) = &clicks.warm {
                let median = spread(warm).0;
                goals.push(Goal {
                    key: "warm_click".to_owned(),
                    text: "notification click → question on screen, window kept warm".to_owned(),
                    value: tenths(ms(median)),
                    limit: ms(WARM_CLICK_GOAL),
                    unit: "ms",
                    kept: median <= WARM_CLICK_GOAL,
                });
            }
            if let (Some((driven, network)), Some(Ok(empty))) = (Report::cold_click(clicks), &self.empty_first_frame) {
                let allowance = COLD_CLICK_ALLOWANCE.as_millis();
                let limit = (empty + allowance) as f64;
                goals.push(Goal {
                    key: "cold_click".to_owned(),
                    text: format!(
                        "notification click → question on screen, window released, ≤ the empty app's first frame \
                         {empty} + {allowance} ms (driven {driven:.1} ms, network process {network:+.1} ms)"
                    ),
                    value: hundredths(driven + network),
                    limit,
                    unit: "ms",
                    kept: driven + network <= limit,
                });
            }
        }
        if let Some(Ok(latencies)) = &self.notify {
            let median = spread(latencies).0;
            goals.push(Goal {
                key: "ask_to_notify".to_owned(),
                text: "ask over HTTP → Notify on the bus".to_owned(),
                value: ms(median),
                limit: ms(NOTIFY_GOAL),
                unit: "ms",
                kept: median < NOTIFY_GOAL,
            });
        }
        goals
    }

    pub fn print_text(&self) {
        match &self.empty_app_build {
            Some(empty) => {
                println!("{} ({}) against an empty Tauri {} app ({empty})", self.app, self.build, self.tauri)
            }
            None => println!("{} ({})", self.app, self.build),
        }
        match &self.frames {
            Some(Ok(frames)) => self.print_frames(frames),
            Some(Err(err)) => println!("\nfirst frames and idle memory: FAILED: {err}"),
            None => {}
        }
        match &self.tray {
            Some(Ok(weight)) => print_tray(weight),
            Some(Err(err)) => println!("\nthe app in the tray: FAILED: {err}"),
            None => {}
        }
        if let Some(clicks) = &self.clicks {
            println!();
            println!("notification click → question on screen (from just before the click to the question's mark)");
            println!("  {:<58} {}", "warm (window hidden, WebView kept)", series_text(&clicks.warm));
            println!("  {:<58} {}", "cold (window released; driven, network process kept)", series_text(&clicks.cold));
            println!(
                "beckon://inbox link → new page ran (app on its own, keep-warm 1 s; timed to the log line's own timestamp)"
            );
            println!(
                "  {:<58} {}",
                "network process stopped (as people run it)",
                series_text(&clicks.link_network_stopped)
            );
            println!(
                "  {:<58} {}",
                "network process kept (TAURI_WEBVIEW_AUTOMATION=true)",
                series_text(&clicks.link_network_kept)
            );
            match Report::cold_click(clicks) {
                Some((driven, network)) => println!(
                    "  cold, as judged: {driven:.1} ms (driven) {network:+.1} ms (stopping the network process: \
                     stopped less kept) = {:.1} ms",
                    driven + network
                ),
                None => println!("  cold, as judged: not measured"),
            }
        }
        if let Some(Err(err)) = &self.empty_first_frame {
            println!("\nthe empty Tauri app's first frame: FAILED: {err}");
        }
        if let Some(notify) = &self.notify {
            println!();
            println!("ask over HTTP → Notify on the bus: {}", series_text(notify));
        }
        println!();
        println!("goals");
        for goal in self.goals() {
            println!(
                "  {}: {} {} (limit {} {}): {}",
                goal.text,
                goal.value,
                goal.unit,
                goal.limit,
                goal.unit,
                verdict(goal.kept)
            );
        }
        if self.build.starts_with("debug") {
            println!(
                "  (a debug build: the goals are for the build `scripts/package` ships, target/release/beckon-desktop)"
            );
        }
    }

    fn print_frames(&self, frames: &Frames) {
        println!();
        println!(
            "first frame ({} launches each, median) and idle memory with the window open after {} s (median launch)",
            self.runs,
            self.idle.as_secs()
        );
        println!(
            "  {:<34} {:>12} {:>12} {:>12} {:>10} {:>10}",
            "", "first frame", "fastest", "slowest", "RSS MiB", "PSS MiB"
        );
        for subject in &frames.subjects {
            let (median, fastest, slowest) = subject.first_frame_ms();
            let (rss, pss) = memory::totals(subject.median_memory());
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
        if let (Ok(nothing), Ok(empty)) = (frames.nothing_pending(), frames.empty_app()) {
            let over = nothing.first_frame_ms().0 as i128 - empty.first_frame_ms().0 as i128;
            println!("  nothing pending against the empty Tauri app: {over:+} ms first frame (no goal)");
        }
        println!();
        println!("where start-up's time goes (median ms after the process started)");
        print!("  {:<34}", "");
        for (_, label) in STAGES {
            print!(" {label:>14}");
        }
        println!();
        for subject in &frames.subjects {
            print!("  {:<34}", subject.label);
            for stage in subject.stages_ms() {
                match stage {
                    Some(ms) => print!(" {ms:>11} ms"),
                    None => print!(" {:>14}", "–"),
                }
            }
            println!();
        }
        println!();
        println!("idle PSS of each launch, MiB");
        for subject in &frames.subjects {
            let runs: Vec<String> = subject.pss_runs().into_iter().map(|pss| format!("{:.1}", mib(pss))).collect();
            println!("  {:<34} {}", subject.label, runs.join("  "));
        }
        println!();
        println!("idle memory by process (median launch)");
        for subject in &frames.subjects {
            println!("  {}:", subject.label);
            memory::print_processes(subject.median_memory(), 4, 32);
        }
    }

    pub fn json(&self) -> Value {
        let mut report = Map::new();
        report.insert("app".into(), json!(self.app));
        report.insert("build".into(), json!(self.build));
        report.insert("empty_app_build".into(), json!(self.empty_app_build));
        report.insert("tauri".into(), json!(self.tauri));
        report.insert("runs".into(), json!(self.runs));
        report.insert("idle_seconds".into(), json!(self.idle.as_secs()));
        report.insert("pending".into(), json!(self.pending));
        match &self.frames {
            Some(Ok(frames)) => {
                report.insert("first_frame_ms".into(), first_frames_json(frames));
                report.insert("idle_memory".into(), idle_memory_json(frames));
            }
            Some(Err(err)) => {
                report.insert("first_frame_ms".into(), json!({"error": err}));
            }
            None => {}
        }
        if let Some(Ok(empty)) = &self.empty_first_frame {
            report.insert("empty_app_first_frame_ms".into(), json!(empty));
        }
        match &self.tray {
            Some(Ok(weight)) => {
                let seconds = |after: Option<Duration>| after.map(|d| tenths(d.as_secs_f64()));
                report.insert(
                    "tray".into(),
                    json!({
                        "pending": tray::PENDING,
                        "waited_minutes": tenths(weight.waited.as_secs_f64() / 60.0),
                        "keep_warm_seconds": weight.keep_warm,
                        "released_after_close_s": seconds(weight.released_after),
                        "gave_back_after_close_s": seconds(weight.gave_back_after),
                        "memory": memory::json(&weight.memory),
                    }),
                );
            }
            Some(Err(err)) => {
                report.insert("tray".into(), json!({"error": err}));
            }
            None => {}
        }
        if let Some(clicks) = &self.clicks {
            let cold = Report::cold_click(clicks);
            report.insert(
                "clicks".into(),
                json!({
                    "warm_ms": series_json(&clicks.warm),
                    "cold_driven_ms": series_json(&clicks.cold),
                    "link_network_stopped_ms": series_json(&clicks.link_network_stopped),
                    "link_network_kept_ms": series_json(&clicks.link_network_kept),
                    "link_timed_by": "the log line's own timestamp",
                    "network_process_ms": Report::network_process_cost(clicks),
                    "cold_ms": cold.map(|(driven, network)| hundredths(driven + network)),
                }),
            );
        }
        if let Some(notify) = &self.notify {
            report.insert("ask_to_notify_ms".into(), series_json(notify));
        }
        let goals: Map<String, Value> = self
            .goals()
            .into_iter()
            .map(|g| (g.key, json!({"value": g.value, "limit": g.limit, "unit": g.unit, "kept": g.kept})))
            .collect();
        report.insert("goals".into(), Value::Object(goals));
        Value::Object(report)
    }
}

fn print_tray(weight: &TrayWeight) {
    println!();
    let keep_warm = match weight.keep_warm {
        Some(seconds) => format!("keep-warm {seconds} s"),
        None => "the default keep-warm".to_owned(),
    };
    println!(
        "the app in the tray ({} questions pending, on its own, {keep_warm}), {:.1} min after its window was closed",
        tray::PENDING,
        weight.waited.as_secs_f64() / 60.0
    );
    match weight.released_after {
        Some(after) => println!("  WebView released {:.1} s after the close (the app's log)", after.as_secs_f64()),
        None => println!("  WebView not released yet"),
    }
    if let Some(after) = weight.gave_back_after {
        println!("  what the window took given back {:.1} s after the close", after.as_secs_f64());
    }
    println!("  {:<32} {:>10} {:>10}", "", "RSS MiB", "PSS MiB");
    memory::print_processes(&weight.memory, 2, 32);
    let (rss, pss) = memory::totals(&weight.memory);
    println!("  {:<32} {:>10.1} {:>10.1}", "total", mib(rss), mib(pss));
}

fn first_frames_json(frames: &Frames) -> Value {
    let frame = |subject: &Subject| {
        let (median, min, max) = subject.first_frame_ms();
        let stages: Map<String, Value> =
            STAGES.iter().zip(subject.stages_ms()).map(|((name, _), ms)| ((*name).to_owned(), json!(ms))).collect();
        json!({"median": median, "min": min, "max": max, "stages": stages})
    };
    let (nothing, empty) = (frames.nothing_pending().ok(), frames.empty_app().ok());
    json!({
        "nothing_pending": nothing.map(frame),
        "pending": frames.loaded().map(|(count, subject)| json!({"count": count, "frames": frame(subject)})).collect::<Vec<_>>(),
        "empty_tauri": empty.map(frame),
        "nothing_pending_over_empty_tauri": nothing.zip(empty).map(|(n, e)| n.first_frame_ms().0 as i128 - e.first_frame_ms().0 as i128),
    })
}

fn idle_memory_json(frames: &Frames) -> Value {
    let idle = |subject: &Subject| {
        json!({
            "median_launch": memory::json(subject.median_memory()),
            "pss_runs_mib": subject.pss_runs().into_iter().map(|pss| tenths(mib(pss))).collect::<Vec<_>>(),
        })
    };
    json!({
        "nothing_pending": frames.nothing_pending().ok().map(idle),
        "pending": frames.loaded().map(|(count, subject)| json!({"count": count, "last_run": memory::json(subject.median_memory())})).collect::<Vec<_>>(),
        "empty_tauri": frames.empty_app().ok().map(idle),
    })
}

/// The machine and the build, kept with the figures: the date, the CPUs, the binary's size.
pub fn saved(mut report: Value, app: &Path, build: &str) -> Value {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpus = cpuinfo.lines().filter(|line| line.starts_with("processor")).count();
    let model = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name"))
        .and_then(|rest| rest.split_once(':'))
        .map(|(_, model)| model.trim().to_owned());
    let date = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .ok()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned());
    let size = std::fs::metadata(app).ok().map(|meta| meta.len());
    if let Value::Object(fields) = &mut report {
        fields.insert("date".into(), json!(date));
        fields.insert("machine".into(), json!({"cpus": cpus, "cpu_model": model}));
        fields.insert("app_size_bytes".into(), json!(size));
        fields.insert("build".into(), json!(build));
    }
    report
}
