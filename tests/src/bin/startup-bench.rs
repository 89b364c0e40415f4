//! Start-up and idle memory of the real app: fills a data folder with pending questions, then
//! launches the debug app under the current display several times and reports how long it
//! took from the process starting to the window's first painted frame with everything loaded
//! (the UI's `beckon:ready` mark), and the resident and proportional memory of the app and its
//! WebKit processes once idle.
//!
//! `xvfb-run -a cargo run -p beckon-e2e --features e2e --bin startup-bench -- [--pending N] [--runs N]`

use std::time::{Duration, Instant, UNIX_EPOCH};

use beckon_core::QuestionRequest;
use beckon_e2e::{App, Failure, Home, procs};
use beckon_runtime::{Beckon, ExternalAsk, RuntimeConfig, StartOptions};
use serde_json::json;

struct Options {
    pending: usize,
    runs: usize,
    idle: Duration,
}

fn options() -> Result<Options, Failure> {
    let mut options = Options { pending: 1_000, runs: 5, idle: Duration::from_secs(10) };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number =
            || -> Result<u64, Failure> { Ok(args.next().ok_or_else(|| format!("{arg} needs a number"))?.parse()?) };
        match arg.as_str() {
            "--pending" => options.pending = usize::try_from(number()?)?,
            "--runs" => options.runs = usize::try_from(number()?)?.max(1),
            "--idle-seconds" => options.idle = Duration::from_secs(number()?),
            other => return Err(format!("unknown option {other}; use --pending N, --runs N, --idle-seconds N").into()),
        }
    }
    Ok(options)
}

/// Asks `count` questions as external agents would, straight through the runtime.
async fn seed(home: &Home, count: usize) -> Result<(), Failure> {
    let beckon = Beckon::start(RuntimeConfig::new(home.data_dir()), StartOptions::default()).await?;
    for i in 0..count {
        let request = QuestionRequest::parse(&json!({"questions": [{
            "question": format!("Ship release candidate {i} to the staging fleet?"),
            "header": "Release",
            "options": [{"label": "Ship", "description": "Roll it out now"}, {"label": "Wait"}]
        }]}))
        .map_err(|problems| format!("{problems:?}"))?;
        beckon
            .ask_external(ExternalAsk {
                agent: format!("release-bot-{}", i % 20),
                request: Some(request),
                ..Default::default()
            })
            .await?;
    }
    beckon.shutdown().await;
    Ok(())
}

struct Run {
    to_ready: Duration,
    cards: u64,
    memory: Vec<(String, u64, u64)>,
}

async fn run(home: &Home, idle: Duration) -> Result<Run, Failure> {
    let app = App::launch(home).await?;
    let variable = format!("BECKON_DATA_DIR={}", home.data_dir().display());
    let started = Instant::now();
    let ready = loop {
        let mark = app
            .eval("const m = performance.getEntriesByName('beckon:ready')[0]; return m ? performance.timeOrigin + m.startTime : null")
            .await?;
        if let Some(at) = mark.as_f64() {
            break at;
        }
        if started.elapsed() > Duration::from_secs(120) {
            return Err("the window never became ready".into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let process = procs::find("beckon-desktop", &variable).ok_or("cannot find the app's process")?;
    let began = procs::started_at(&process).ok_or("cannot read the app's start time")?;
    let began_ms = began.duration_since(UNIX_EPOCH)?.as_secs_f64() * 1000.0;
    let to_ready = Duration::from_secs_f64(((ready - began_ms) / 1000.0).max(0.0));
    let cards = app.eval("return document.querySelectorAll('.inbox-list > li').length").await?;
    tokio::time::sleep(idle).await;
    let memory = procs::tree(&process)
        .into_iter()
        .filter_map(|p| procs::memory(p.pid).map(|(rss, pss)| (p.name, rss, pss)))
        .collect();
    app.quit().await?;
    Ok(Run { to_ready, cards: cards.as_u64().unwrap_or(0), memory })
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let options = options()?;
    let home = Home::new()?;
    let seeding = Instant::now();
    seed(&home, options.pending).await?;
    eprintln!("seeded {} pending questions in {:.1} s", options.pending, seeding.elapsed().as_secs_f64());
    let mut runs = Vec::new();
    for i in 0..options.runs {
        let run = run(&home, options.idle).await?;
        eprintln!("run {}/{}: ready after {} ms, {} cards", i + 1, options.runs, run.to_ready.as_millis(), run.cards);
        runs.push(run);
    }
    let mut times: Vec<u128> = runs.iter().map(|r| r.to_ready.as_millis()).collect();
    times.sort_unstable();
    let median = times[times.len() / 2];
    let last = runs.last().ok_or("no runs")?;
    println!("start to first paint with {} pending questions ({} runs)", options.pending, options.runs);
    println!("  median {median} ms, fastest {} ms, slowest {} ms", times[0], times[times.len() - 1]);
    println!("  questions listed in the inbox at that frame: {}", last.cards);
    println!("idle memory after {} s (last run)", options.idle.as_secs());
    println!("  {:<20} {:>10} {:>10}", "process", "RSS MiB", "PSS MiB");
    for (name, rss, pss) in &last.memory {
        println!("  {name:<20} {:>10.1} {:>10.1}", mib(*rss), mib(*pss));
    }
    let (rss, pss) = last.memory.iter().fold((0, 0), |(r, p), (_, rss, pss)| (r + rss, p + pss));
    println!("  {:<20} {:>10.1} {:>10.1}", "total", mib(rss), mib(pss));
    println!(
        "{}",
        json!({
            "pending": options.pending,
            "start_to_ready_ms": {"median": median, "min": times[0], "max": times[times.len() - 1]},
            "cards": last.cards,
            "idle_rss_mib": (mib(rss) * 10.0).round() / 10.0,
            "idle_pss_mib": (mib(pss) * 10.0).round() / 10.0,
            "processes": last.memory.iter().map(|(n, r, p)| json!({"name": n, "rss_mib": (mib(*r) * 10.0).round() / 10.0, "pss_mib": (mib(*p) * 10.0).round() / 10.0})).collect::<Vec<_>>(),
        })
    );
    Ok(())
}
