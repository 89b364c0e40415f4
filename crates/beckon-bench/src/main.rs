//! `cargo run --release -p beckon-bench -- [--quick] [--no-langgraph] [--cache-dir DIR] [--only NAME,…]`
//!
//! Measures Beckon on this machine and prints a table, whether each promised figure was kept,
//! and one JSON line with everything. `--only` runs just the named parts (see [`PARTS`]).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use beckon_bench::stats::ms;
use beckon_bench::targets::Check;
use beckon_bench::{
    Failure, audit_db, audit_export, batch_deny, cycles, floor, gateway, hook, inbox_db, langgraph, latency, rehydrate,
    rig, serve_memory, team, waiting,
};
use serde_json::{Value, json};

/// How big a run is.
#[derive(Debug, Clone, Copy)]
struct Sizes {
    floor_rounds: usize,
    latency_rounds: usize,
    cycles: usize,
    /// Answers through one replica timed to a long-poll waking on the other.
    wakes: usize,
    gateway_clients: usize,
    gateway_per_client: usize,
    inbox_questions: usize,
    waiting_sessions: usize,
    langgraph_list: usize,
    /// The audit trails exported, smallest first: the largest is the promised one.
    audit_rows: [usize; 2],
    batch_approvals: usize,
    /// Runs of each program the hook's cost is measured with.
    hook_rounds: usize,
}

const FULL: Sizes = Sizes {
    floor_rounds: 2_000,
    latency_rounds: 300,
    cycles: 1_000,
    wakes: 300,
    gateway_clients: 50,
    gateway_per_client: 100,
    inbox_questions: 1_000_000,
    waiting_sessions: 10_000,
    langgraph_list: 10_000,
    audit_rows: [10_000, 100_000],
    batch_approvals: 500,
    hook_rounds: 100,
};

const QUICK: Sizes = Sizes {
    floor_rounds: 300,
    latency_rounds: 50,
    cycles: 200,
    wakes: 50,
    gateway_clients: 50,
    gateway_per_client: 20,
    inbox_questions: 100_000,
    waiting_sessions: 1_000,
    langgraph_list: 1_000,
    audit_rows: [1_000, 10_000],
    batch_approvals: 500,
    hook_rounds: 30,
};

/// The parts of a run, as `--only` names them, in the order they run.
const PARTS: [&str; 11] =
    ["durable", "latency", "cycles", "team", "gateway", "hook", "rehydration", "memory", "langgraph", "audit", "batch"];

/// The export's promised bound, for the client and for the server's growth (MiB).
const AUDIT_BOUND_MIB: f64 = 64.0;

struct Options {
    quick: bool,
    langgraph: bool,
    cache: PathBuf,
    /// The parts to run; all when empty.
    only: Vec<String>,
}

impl Options {
    /// Whether `part` runs.
    fn runs(&self, part: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|name| name == part)
    }
}

/// The parts `--only` names, each checked against [`PARTS`].
fn parts(list: &str) -> Result<Vec<String>, Failure> {
    list.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| {
            if PARTS.contains(&name) {
                Ok(name.to_owned())
            } else {
                Err(format!("--only: no part named {name}; the parts are {}", PARTS.join(", ")).into())
            }
        })
        .collect()
}

fn options() -> Result<Options, Failure> {
    let exe = std::env::current_exe()?;
    // target/<profile>/beckon-bench → target/bench-cache
    let default_cache =
        exe.parent().and_then(|p| p.parent()).map(|t| t.join("bench-cache")).ok_or("no target folder")?;
    let mut options = Options { quick: false, langgraph: true, cache: default_cache, only: Vec::new() };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => options.quick = true,
            "--no-langgraph" => options.langgraph = false,
            "--cache-dir" => options.cache = PathBuf::from(args.next().ok_or("--cache-dir needs a folder")?),
            "--only" => options.only.extend(parts(&args.next().ok_or("--only needs NAME[,NAME…]")?)?),
            "--help" | "-h" => {
                println!("beckon-bench [--quick] [--no-langgraph] [--cache-dir DIR] [--only NAME[,NAME…]]");
                println!("parts: {}", PARTS.join(", "));
                std::process::exit(0);
            }
            other => return Err(format!("unknown option {other}; try --help").into()),
        }
    }
    std::fs::create_dir_all(&options.cache)?;
    Ok(options)
}

fn section(title: &str) {
    println!();
    println!("{title}");
}

fn row(name: &str, median: Duration, p99: Duration, extra: &str) {
    println!("  {name:<46} {:>11.3} ms {:>11.3} ms  {extra}", ms(median), ms(p99));
}

fn header() {
    println!("  {:<46} {:>14} {:>14}", "", "median", "p99");
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { f64::NAN }
}

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let options = options()?;
    let sizes = if options.quick { QUICK } else { FULL };
    let scratch = tempfile::tempdir_in(&options.cache)?;
    let mut report = serde_json::Map::new();
    let mut checks = Vec::new();
    println!("beckon-bench{} — {} cores", if options.quick { " (quick)" } else { "" }, num_cpus());

    let mut floor_figures = None;
    if options.runs("durable") {
        section("Durable steps beside the floor (file database, WAL, synchronous=FULL)");
        header();
        let floor = floor::measure(scratch.path(), sizes.floor_rounds)?;
        row("bare single-row insert (the floor)", floor.floor.median, floor.floor.p99, "1.00×");
        for (name, summary, times) in floor.ratios() {
            row(name, summary.median, summary.p99, &format!("{times:.2}×"));
            checks.push(Check::new(
                format!("{name} within 2× of the floor"),
                format!("{times:.2}×"),
                Some(times <= 2.0),
            ));
        }
        report.insert("durable".into(), floor.to_json());
        floor_figures = Some(floor);
    }

    if options.runs("latency") {
        section("Reaction times");
        header();
        let latencies = latency::measure(&scratch.path().join("latency"), sizes.latency_rounds).await?;
        row("ask → notifier (external agent)", latencies.external_ask.median, latencies.external_ask.p99, "");
        row("ask → notifier (in-app agent)", latencies.in_app_ask.median, latencies.in_app_ask.p99, "");
        row(
            "answer → next LLM request at the provider",
            latencies.answer_to_request.median,
            latencies.answer_to_request.p99,
            "",
        );
        report.insert("latency".into(), latencies.to_json());
    }

    // The cycle's figures and its durable floor (the latter needs the floor's run too).
    let mut cycle_figures = None;
    if options.runs("cycles") {
        section(&format!("Pause + answer + resume, {} sessions (scripted agent, real database file)", sizes.cycles));
        header();
        let rig = Arc::new(rig::Rig::start(&scratch.path().join("cycles"), None).await?);
        let sequential = cycles::sequential(&rig, sizes.cycles).await?;
        let concurrent = cycles::concurrent(rig.clone(), sizes.cycles).await?;
        if let Ok(rig) = Arc::try_unwrap(rig) {
            rig.stop().await;
        }
        for (name, figures) in [("one after another", sequential), ("all at once", concurrent)] {
            row(&format!("{name}: pause"), figures.pause.median, figures.pause.p99, "");
            row(&format!("{name}: resume"), figures.resume.median, figures.resume.p99, "");
            row(
                &format!("{name}: cycle"),
                figures.cycle.median,
                figures.cycle.p99,
                &format!("{:.0} cycles/s", figures.per_second),
            );
        }
        // What the disk alone asks of one cycle: its commits, each at the floor's price.
        let cycle_floor = floor_figures.as_ref().map(|floor| floor.floor.median.mul_f64(sequential.commits_per_cycle));
        if let Some(cycle_floor) = cycle_floor {
            println!(
                "  {:<46} {:>11.3} ms {:>14}  {:.0} commits × the floor; the cycle spends {:.3} ms beyond it",
                "one after another: the cycle's durable floor",
                ms(cycle_floor),
                "",
                sequential.commits_per_cycle,
                ms(sequential.cycle.median.saturating_sub(cycle_floor))
            );
        }
        println!(
            "  {:<46} {:>14} {:>14}  {:.1} per cycle ({:.2} commits); all at once {:.2} commits per cycle",
            "one after another: store jobs",
            "",
            "",
            sequential.store_jobs_per_cycle,
            sequential.commits_per_cycle,
            concurrent.commits_per_cycle
        );
        let spread = ratio(sequential.cycle.p99.as_secs_f64(), sequential.cycle.median.as_secs_f64());
        checks.push(Check::new("cycle p99 within 10× of its median", format!("{spread:.1}×"), Some(spread <= 10.0)));
        let over_floor = cycle_floor.map(|cycle_floor| ratio(ms(sequential.cycle.median), ms(cycle_floor)));
        checks.push(Check::new(
            "cycle within 1.3× of its durable floor",
            over_floor.map_or_else(|| "-".to_owned(), |over| format!("{over:.2}×")),
            over_floor.map(|over| over <= 1.3),
        ));
        checks.push(Check::new(
            "at most 5 store jobs per cycle",
            format!("{:.1}", sequential.store_jobs_per_cycle),
            Some(sequential.store_jobs_per_cycle <= 5.0),
        ));
        // Promised for 1,000 sessions at once; a smaller run says nothing about it.
        checks.push(Check::new(
            "1,000 sessions at once: at least 2,500 cycles/s",
            format!("{:.0}/s", concurrent.per_second),
            (sizes.cycles >= 1_000).then_some(concurrent.per_second >= 2_500.0),
        ));
        report.insert(
            "cycles".into(),
            json!({"sequential": sequential.to_json(), "concurrent": concurrent.to_json(),
                   "durable_floor_ms": cycle_floor.map(ms)}),
        );
        cycle_figures = Some((sequential, cycle_floor));
    }

    if options.runs("team") {
        section(&format!(
            "A team server on PostgreSQL (synchronous_commit on), {} sessions, two replicas",
            sizes.cycles
        ));
        header();
        let figures = team::measure(&scratch.path().join("team"), sizes.cycles, sizes.wakes).await?;
        for (name, cycles) in
            [("one after another", figures.sequential), ("all at once over two replicas", figures.concurrent)]
        {
            row(
                &format!("{name}: cycle"),
                cycles.cycle.median,
                cycles.cycle.p99,
                &format!("{:.0} cycles/s", cycles.per_second),
            );
        }
        if let Some((sqlite, _)) = cycle_figures.as_ref() {
            println!(
                "  {:<46} {:>14} {:>14}  SQLite one after another: {:.0} cycles/s",
                "beside one person's file", "", "", sqlite.per_second
            );
        }
        row("answer through B → long-poll on A wakes", figures.wake.median, figures.wake.p99, "");
        checks.push(Check::new(
            "1,000 sessions at once over two replicas: at least 1,000 cycles/s",
            format!("{:.0}/s", figures.concurrent.per_second),
            (sizes.cycles >= 1_000).then_some(figures.concurrent.per_second >= 1_000.0),
        ));
        checks.push(Check::new(
            "answer on B → wake on A: p99 under 50 ms",
            format!("{:.1} ms", ms(figures.wake.p99)),
            Some(figures.wake.p99 < std::time::Duration::from_millis(50)),
        ));
        report.insert("team".into(), figures.to_json());
    }

    if options.runs("gateway") {
        section(&format!("HTTP gateway: {} clients asking and answering over loopback", sizes.gateway_clients));
        header();
        let load =
            gateway::measure(&scratch.path().join("gateway"), sizes.gateway_clients, sizes.gateway_per_client).await?;
        row(
            "ask + answer round trip",
            load.latency.median,
            load.latency.p99,
            &format!("{:.0} round trips/s", load.per_second),
        );
        checks.push(Check::new(
            "gateway, 50 clients: at least 3,000 round trips/s",
            format!("{:.0}/s", load.per_second),
            (sizes.gateway_clients == 50).then_some(load.per_second >= 3_000.0),
        ));
        report.insert("gateway".into(), load.to_json());
    }

    if options.runs("hook") {
        section(&format!("`beckon hook claude-code` per tool call: a fresh process, {} runs each", sizes.hook_rounds));
        header();
        let binary = serve_memory::beckon_binary()?;
        let cost = hook::measure(&binary, &scratch.path().join("hook"), sizes.hook_rounds).await?;
        let floor = cost.rows.iter().find(|(name, _)| name == "an empty Rust program").map(|(_, s)| s.median);
        for (name, summary) in &cost.rows {
            let over = floor.map_or_else(String::new, |floor| {
                format!("{:+.3} ms over the empty program", ms(summary.median) - ms(floor))
            });
            row(name, summary.median, summary.p99, &over);
        }
        report.insert("hook".into(), cost.to_json());
    }

    let mut rehydration_figures = None;
    if options.runs("rehydration") {
        section("Start-up rehydration");
        let inbox = inbox_db::data_dir(&options.cache, sizes.inbox_questions)?;
        let rehydration = rehydrate::measure(&inbox, sizes.inbox_questions, 20).await?;
        println!(
            "  {} pending among {} questions in {} sessions: open {:.1} ms, list cold {:.1} ms, warm {:.1} ms (p99 {:.1} ms)",
            rehydration.pending,
            rehydration.questions,
            rehydration.questions / 10,
            ms(rehydration.open_cold),
            ms(rehydration.list_cold),
            ms(rehydration.list_warm.median),
            ms(rehydration.list_warm.p99)
        );
        println!(
            "  their inbox lines (the window's start): warm {:.1} ms (p99 {:.1} ms)",
            ms(rehydration.inbox_warm.median),
            ms(rehydration.inbox_warm.p99)
        );
        let warm_ms = ms(rehydration.list_warm.median);
        checks.push(Check::new(
            format!("listing {} pending at start-up under 100 ms warm", rehydration.pending),
            format!("{warm_ms:.1} ms"),
            Some(warm_ms < 100.0),
        ));
        report.insert("rehydration".into(), rehydration.to_json());
        rehydration_figures = Some((warm_ms, rehydration.pending, rehydration.questions));
    }

    if options.runs("memory") {
        section(&format!("Memory: `beckon serve` with {} sessions waiting", sizes.waiting_sessions));
        let waiting_dir = waiting::data_dir(&options.cache, sizes.waiting_sessions).await?;
        let binary = serve_memory::beckon_binary()?;
        let memory =
            serve_memory::measure(&binary, &waiting_dir, sizes.waiting_sessions, Duration::from_secs(2)).await?;
        println!(
            "  started in {:.0} ms, {} pending listed; RSS {:.1} MiB idle, {:.1} MiB peak",
            ms(memory.start),
            memory.listed,
            memory.rss_mib,
            memory.peak_rss_mib
        );
        checks.push(Check::new(
            format!("beckon serve with {} waiting under 150 MiB RSS", memory.sessions),
            format!("{:.1} MiB peak", memory.peak_rss_mib),
            Some(memory.peak_rss_mib < 150.0),
        ));
        report.insert("serve_memory".into(), memory.to_json());
    }

    if options.runs("langgraph") {
        section("LangGraph (SQLite checkpointer), the same workload on this machine");
        let langgraph_report = if options.langgraph {
            match langgraph::run(&options.cache, sizes.cycles, sizes.langgraph_list) {
                Ok(report) => Some(report),
                Err(err) => {
                    println!("  not run: {err}");
                    None
                }
            }
        } else {
            println!("  not run (--no-langgraph)");
            None
        };
        if let Some(theirs) = &langgraph_report {
            compare_langgraph(theirs, &sizes, cycle_figures, rehydration_figures, &mut report);
        }
    }

    if options.runs("audit") {
        section("Audit export: `beckon audit` from `beckon serve` to a file");
        let binary = serve_memory::beckon_binary()?;
        let mut exports = Vec::new();
        for rows in sizes.audit_rows {
            let source = audit_db::data_dir(&options.cache, rows)?;
            exports.extend(audit_export::measure(&binary, &source, rows, scratch.path()).await?);
        }
        for export in &exports {
            println!(
                "  {:>7} rows {:<5} {:>8.1} MiB in {:>8.0} ms, {:>7.0} rows/s; client peak {:>5.1} MiB, server {:.1} → {:.1} MiB (+{:.1}){}",
                export.rows,
                export.format,
                export.bytes as f64 / 1_048_576.0,
                ms(export.wall),
                export.rows_per_second(),
                export.client_peak_mib,
                export.server_before_mib,
                export.server_peak_mib,
                export.server_growth_mib(),
                if export.server_peak_reset { "" } else { " (peak since start)" }
            );
        }
        let largest = sizes.audit_rows[1];
        for format in audit_export::FORMATS {
            let at = |rows: usize| exports.iter().find(|e| e.rows == rows && e.format == format);
            let (Some(small), Some(large)) = (at(sizes.audit_rows[0]), at(largest)) else { continue };
            checks.push(Check::new(
                format!("audit {format} of {largest} rows: client peak under {AUDIT_BOUND_MIB:.0} MiB"),
                format!("{:.1} MiB ({:.1} at {})", large.client_peak_mib, small.client_peak_mib, small.rows),
                Some(large.client_peak_mib < AUDIT_BOUND_MIB),
            ));
            checks.push(Check::new(
                format!("audit {format} of {largest} rows: server grows under {AUDIT_BOUND_MIB:.0} MiB"),
                format!("+{:.1} MiB (+{:.1} at {})", large.server_growth_mib(), small.server_growth_mib(), small.rows),
                Some(large.server_growth_mib() < AUDIT_BOUND_MIB),
            ));
        }
        report.insert("audit_export".into(), Value::Array(exports.iter().map(|e| e.to_json()).collect()));
    }

    if options.runs("batch") {
        section(&format!("Batch deny: {} approvals, each long-polled by its agent", sizes.batch_approvals));
        let batch = batch_deny::measure(&scratch.path().join("batch"), sizes.batch_approvals).await?;
        println!(
            "  asked in {:.0} ms; denied in {:.1} ms with {} commit{}; all {} waiters resumed {:.1} ms after the call",
            ms(batch.ask),
            ms(batch.commit),
            batch.commits,
            if batch.commits == 1 { "" } else { "s" },
            batch.resumed,
            ms(batch.all_resumed)
        );
        checks.push(Check::new(
            format!("batch deny of {}: one transaction", batch.approvals),
            format!("{} commit{}", batch.commits, if batch.commits == 1 { "" } else { "s" }),
            Some(batch.commits == 1),
        ));
        checks.push(Check::new(
            format!("batch deny of {}: every waiter resumed", batch.approvals),
            format!("{} in {:.1} ms", batch.resumed, ms(batch.all_resumed)),
            Some(batch.resumed == batch.approvals),
        ));
        report.insert("batch_deny".into(), batch.to_json());
    }
    section("Promises");
    for check in &checks {
        println!("  {:<58} {:>14}  {}", check.promise, check.measured, check.verdict());
    }
    report.insert(
        "promises".into(),
        Value::Array(
            checks.iter().map(|c| json!({"promise": c.promise, "measured": c.measured, "kept": c.kept})).collect(),
        ),
    );
    report.insert("quick".into(), json!(options.quick));
    println!();
    println!("{}", Value::Object(report));
    Ok(())
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// LangGraph's figures beside Beckon's, as far as this run measured Beckon's: the cycle (with
/// its durable floor when the floor ran) and the start-up listing (warm ms, pending, questions).
fn compare_langgraph(
    theirs: &Value,
    sizes: &Sizes,
    ours: Option<(cycles::Cycles, Option<Duration>)>,
    rehydration: Option<(f64, usize, usize)>,
    report: &mut serde_json::Map<String, Value>,
) {
    let cycle = langgraph::figure(theirs, &["cycle", "median_ms"]).unwrap_or(f64::NAN);
    let p99 = langgraph::figure(theirs, &["cycle", "p99_ms"]).unwrap_or(f64::NAN);
    let rate = langgraph::figure(theirs, &["throughput_cycles_per_s"]).unwrap_or(f64::NAN);
    let key = sizes.langgraph_list.to_string();
    let list = langgraph::figure(theirs, &["list_pending", &key, "checkpointer_list_all", "median_ms"]);
    let list_state = langgraph::figure(theirs, &["list_pending", &key, "get_state_per_thread", "median_ms"]);
    let Some((sequential, cycle_floor)) = ours else {
        println!("  cycle median {cycle:.2} ms, p99 {p99:.2} ms, {rate:.1} cycles/s (Beckon's cycles not run)");
        report.insert("langgraph".into(), json!({"report": theirs}));
        return;
    };
    let ours = ms(sequential.cycle.median);
    println!("  cycle median {cycle:.2} ms (Beckon {ours:.2} ms: {:.1}× faster), p99 {p99:.2} ms", ratio(cycle, ours));
    println!("  {rate:.1} cycles/s (Beckon {:.0}: {:.1}×)", sequential.per_second, ratio(sequential.per_second, rate));
    if let (Some(list), Some(state), Some((warm_ms, pending, questions))) = (list, list_state, rehydration) {
        println!(
            "  listing {key} paused threads: {list:.1} ms (checkpointer list) to {state:.1} ms (state per thread); Beckon {warm_ms:.1} ms for {pending} among {questions}"
        );
    }
    match langgraph::commits_per_cycle(theirs) {
        Some(commits) => {
            println!("  durable commits per cycle: LangGraph {commits:.0}, Beckon {:.0}", sequential.commits_per_cycle)
        }
        None => {
            println!("  durable commits per cycle: LangGraph not counted, Beckon {:.0}", sequential.commits_per_cycle)
        }
    }
    let ceiling = cycle_floor.map(|cycle_floor| ratio(cycle, ms(cycle_floor)));
    if let Some(ceiling) = ceiling {
        println!(
            "  the most any cycle of {:.0} commits could gain here, with no work beyond them: {ceiling:.1}×",
            sequential.commits_per_cycle
        );
    }
    report.insert(
        "langgraph".into(),
        json!({"report": theirs, "cycle_speedup": ratio(cycle, ours), "rate_ratio": ratio(sequential.per_second, rate),
               "ceiling_speedup": ceiling}),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_known_parts() {
        assert_eq!(parts("audit, batch").unwrap(), ["audit", "batch"]);
        assert!(parts("audit,nope").unwrap_err().to_string().contains("no part named nope"));
    }
}
