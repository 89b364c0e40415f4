//! `beckon serve` killed with SIGKILL at random moments while concurrent clients ask and answer
//! over HTTP, then started again on the same data folder. Afterwards every question is resolved
//! exactly once with the answer its client was told was saved, every in-app session has
//! completed with exactly one tool_result per tool_use, every callback arrived (signed, under
//! one idempotency key however often it was retried), Slack and Telegram each show exactly the
//! messages the store records — never two for a question, however often a kill landed between a
//! post and its record — each showing how its question ended, and the database passes
//! `PRAGMA integrity_check`.
//!
//! The short form runs on every push. `BECKON_CHAOS=full` runs 1,000 questions and at least 30
//! kills. Every random choice comes from one seed, printed first; `BECKON_CHAOS_SEED=<seed>`
//! makes the same choices again.

#![allow(clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use support::approver;
use support::audit;
use support::audit::snapshot::Snapshot;
use support::caller::{Caller, Tally};
use support::channels::Fakes;
use support::journeys::{self, Record};
use support::kills;
use support::plan::{Plan, SEED_VAR};
use support::progress::Progress;
use support::receiver::Receiver;
use support::server::Server;
use tokio::sync::watch;

/// How long in-app sessions and callbacks may take to settle after the last kill.
const SETTLE_PATIENCE: Duration = Duration::from_secs(90);

/// Runs every job on `plan.clients` concurrent clients; each job's record and each client's tally.
async fn run_clients(
    plan: &Plan,
    server: &Server,
    callback_url: &str,
    progress: &Arc<Progress>,
) -> (Vec<Record>, Vec<Tally>) {
    let next = Arc::new(AtomicUsize::new(0));
    let jobs = Arc::new(plan.jobs.clone());
    let clients: Vec<_> = (0..plan.clients)
        .map(|k| {
            let mut caller = Caller::new(format!("chaos-client-{k:02}"), server.watch());
            let (next, jobs, progress, url) = (next.clone(), jobs.clone(), progress.clone(), callback_url.to_owned());
            tokio::spawn(async move {
                let mut records = Vec::new();
                while let Some(job) = jobs.get(next.fetch_add(1, Ordering::SeqCst)) {
                    records.push(journeys::drive(&mut caller, job, &url, &progress).await);
                }
                (records, caller.tally)
            })
        })
        .collect();
    let all = async {
        let mut records = Vec::new();
        let mut tallies = Vec::new();
        for client in clients {
            let (done, tally) = client.await.expect("a client ran to its end");
            records.extend(done);
            tallies.push(tally);
        }
        records.sort_by_key(|record: &Record| record.job.index);
        (records, tallies)
    };
    match tokio::time::timeout(plan.patience, all).await {
        Ok(done) => done,
        Err(_) => panic!(
            "the clients did not finish within {:?} (seed {}); unfinished jobs:\n{}",
            plan.patience,
            plan.seed,
            progress.unfinished().join("\n")
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_is_lost_or_doubled_when_serve_is_killed_at_random() {
    let began = Instant::now();
    let plan = Plan::from_env();
    println!("{plan}");
    let home = tempfile::tempdir().expect("a temporary folder can be made");
    let data_dir = home.path().join("data");
    let logs = home.path().join("logs");
    std::fs::create_dir_all(&logs).expect("the logs folder can be made");
    approver::install(&data_dir);
    let receiver = Receiver::start(plan.seed).await;
    let fakes = Fakes::start(&data_dir).await;
    let server = Arc::new(Server::start(&data_dir, &logs).await);
    fakes.pair(&server).await;

    let progress = Arc::new(Progress::default());
    let (work_done, work_watch) = watch::channel(false);
    let killing = tokio::spawn(kills::keep_killing(server.clone(), plan.clone(), work_watch, progress.clone()));
    let (records, tallies) = run_clients(&plan, &server, &receiver.url, &progress).await;
    let worked = began.elapsed();
    work_done.send_replace(true);
    let kills = killing.await.expect("the kill loop ran to its end");
    println!("chaos: clients done at {:.1} s; settling", worked.as_secs_f64());

    let mut auditor = Caller::new("chaos-auditor".into(), server.watch());
    let settled = audit::live::settle(&mut auditor, &records, &receiver, SETTLE_PATIENCE).await;
    let mut findings: Vec<String> = records.iter().flat_map(|record| record.problems.clone()).collect();
    findings.extend(fakes.settle(SETTLE_PATIENCE).await);
    findings.extend(tallies.iter().flat_map(|tally| {
        tally.unexplained.iter().map(|loss| format!("a request was lost while the server stayed up: {loss}"))
    }));
    findings.extend(kills.deaths.iter().cloned());
    findings.extend(audit::live::check(&mut auditor, &records).await);
    match server.died().await {
        Some(death) => findings.push(death),
        None => {
            let exit = server.stop().await;
            if !exit.success() {
                findings.push(format!(
                    "beckon serve exited with {exit} after SIGTERM:\n{}",
                    server.log_tail(server.starts())
                ));
            }
        }
    }
    let snapshot = Snapshot::read(&data_dir.join("beckon.db"));
    findings.extend(audit::stored::check(&snapshot, &records));
    let (found, callbacks) = audit::callbacks::check(&receiver.deliveries(), &snapshot, &records);
    findings.extend(found);
    let (found, slack_messages, telegram_messages) = fakes.check(&snapshot);
    findings.extend(found);
    let recovered = support::channels::posts_found_again(&logs);

    let total = |figure: fn(&Tally) -> u64| tallies.iter().map(figure).sum::<u64>();
    let acknowledged = records.iter().filter(|record| record.acknowledged.is_some()).count();
    let reputs: u32 = records.iter().map(|record| record.puts.saturating_sub(1)).sum();
    let resent: u32 = records.iter().map(|record| record.answers_sent.saturating_sub(1)).sum();
    let repeats: u32 = records.iter().map(|record| record.repeats).sum();
    println!(
        "chaos summary: {:?} form, seed {}: {} questions, {acknowledged} answers acknowledged; {} kills ({} under load), {} starts, {:.1} s down, longest restart {} ms; {} requests, {} lost to kills, {} rate-limited; {reputs} asks/triggers and {resent} answers sent again ({repeats} taken as idempotent repeats); {} callback deliveries, {} refused by the receiver, {} callbacks delivered more than once; {slack_messages} Slack and {telegram_messages} Telegram messages ({recovered} posts a kill left in doubt found again); {} invariant findings; settled in {:.1} s, {:.1} s in all",
        plan.form,
        plan.seed,
        records.len(),
        kills.kills,
        kills.under_load,
        server.starts(),
        kills.downtime.as_secs_f64(),
        kills.longest_restart.as_millis(),
        total(|tally| tally.requests),
        total(|tally| tally.lost),
        total(|tally| tally.rate_limited),
        callbacks.deliveries,
        callbacks.refused,
        callbacks.repeated,
        findings.len(),
        settled.as_secs_f64(),
        began.elapsed().as_secs_f64(),
    );
    if !findings.is_empty() {
        let kept = home.keep();
        panic!(
            "{} invariant(s) broken (replay with {SEED_VAR}={}; the data folder and server logs are kept in {}):\n{}",
            findings.len(),
            plan.seed,
            kept.display(),
            findings.join("\n")
        );
    }
    assert!(
        kills.kills >= plan.min_kills,
        "only {} kills were made; the plan asks for {}",
        kills.kills,
        plan.min_kills
    );
    assert_eq!(acknowledged, plan.jobs.len(), "every job's answer is acknowledged");
}
