//! A whole chaos run: the servers (one `beckon serve` on a data folder, or replicas sharing a
//! PostgreSQL database), the fakes they post to and the callback receiver, clients spread over
//! the servers, the kill loop, then every audit, and a summary line.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::approver;
use super::audit;
use super::audit::snapshot::Snapshot;
use super::caller::{Caller, Tally};
use super::channels::Fakes;
use super::journeys::{self, Record};
use super::kills;
use super::plan::{Plan, SEED_VAR};
use super::progress::Progress;
use super::receiver::Receiver;
use crate::support::server::Server;

/// How long in-app sessions and callbacks may take to settle after the last kill.
const SETTLE_PATIENCE: Duration = Duration::from_secs(90);
/// A replica's claims on shared work, while the kills go on: short, so that work a killed
/// replica held is taken up soon even when the kill loop leaves it down for a while.
const LEASE_SECONDS: &str = "5";

/// What runs.
pub enum Topology {
    /// One `beckon serve` on its data folder's SQLite database.
    Lone,
    /// `beckon serve` replicas, each on its own data folder, sharing the PostgreSQL database at
    /// the URL.
    Replicas {
        /// How many.
        count: usize,
        /// The database.
        url: String,
    },
}

/// One server's folders.
struct Place {
    data: PathBuf,
    logs: PathBuf,
}

/// Runs every job on `plan.clients` concurrent clients, client `k` on server `k % servers`;
/// each job's record and each client's tally.
async fn run_clients(
    plan: &Plan,
    servers: &[Arc<Server>],
    callback_url: &str,
    progress: &Arc<Progress>,
) -> (Vec<Record>, Vec<Tally>) {
    let next = Arc::new(AtomicUsize::new(0));
    let jobs = Arc::new(plan.jobs.clone());
    let clients: Vec<_> = (0..plan.clients)
        .map(|k| {
            let mut caller = Caller::new(format!("chaos-client-{k:02}"), servers[k % servers.len()].watch());
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

/// Starts the servers `topology` names on folders under `home`: the first pairs Telegram.
async fn start_servers(topology: &Topology, home: &std::path::Path, fakes: &Fakes) -> (Vec<Arc<Server>>, Vec<Place>) {
    let places: Vec<Place> = match topology {
        Topology::Lone => vec![Place { data: home.join("data"), logs: home.join("logs") }],
        Topology::Replicas { count, .. } => (0..*count)
            .map(|k| Place {
                data: home.join(format!("replica-{k}/data")),
                logs: home.join(format!("replica-{k}/logs")),
            })
            .collect(),
    };
    // The callback receiver is on loopback, which `beckon serve` sends callbacks to only when
    // allowed.
    let extra: Vec<&str> = match topology {
        Topology::Lone => vec!["--allow-private-callbacks"],
        Topology::Replicas { url, .. } => {
            vec!["--database", url, "--lease-seconds", LEASE_SECONDS, "--allow-private-callbacks"]
        }
    };
    let mut servers = Vec::new();
    for (k, place) in places.iter().enumerate() {
        std::fs::create_dir_all(&place.logs).expect("the logs folder can be made");
        approver::install(&place.data);
        fakes.configure(&place.data);
        // One pairing: the replicas share the chat it pairs.
        let server = if k == 0 {
            let first = Server::start_with(&place.data, &place.logs, &extra).await;
            fakes.pair(&first).await;
            first
        } else {
            Server::start_pairing(&place.data, &place.logs, &extra, false).await
        };
        let server = Arc::new(server);
        servers.push(server);
    }
    (servers, places)
}

/// Runs the plan the environment asks for against `topology` and fails with every broken
/// invariant.
pub async fn chaos(topology: Topology) {
    let began = Instant::now();
    let plan = Plan::from_env();
    println!("{plan}");
    let home = tempfile::tempdir().expect("a temporary folder can be made");
    let receiver = Receiver::start(plan.seed).await;
    let fakes = Fakes::start().await;
    let (servers, places) = start_servers(&topology, home.path(), &fakes).await;

    let progress = Arc::new(Progress::default());
    let (work_done, work_watch) = watch::channel(false);
    let killing = tokio::spawn(kills::keep_killing(servers.clone(), plan.clone(), work_watch, progress.clone()));
    let (records, tallies) = run_clients(&plan, &servers, &receiver.url, &progress).await;
    let worked = began.elapsed();
    work_done.send_replace(true);
    let kills = killing.await.expect("the kill loop ran to its end");
    println!("chaos: clients done at {:.1} s; settling", worked.as_secs_f64());

    let mut auditor = Caller::new("chaos-auditor".into(), servers[0].watch());
    let settled = audit::live::settle(&mut auditor, &records, &receiver, SETTLE_PATIENCE).await;
    let mut findings: Vec<String> = records.iter().flat_map(|record| record.problems.clone()).collect();
    findings.extend(fakes.settle(SETTLE_PATIENCE).await);
    findings.extend(tallies.iter().flat_map(|tally| {
        tally.unexplained.iter().map(|loss| format!("a request was lost while the server stayed up: {loss}"))
    }));
    findings.extend(kills.deaths.iter().cloned());
    findings.extend(audit::live::check(&mut auditor, &records).await);
    for server in &servers {
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
    }
    let snapshot = match &topology {
        Topology::Lone => Snapshot::read(&places[0].data.join("beckon.db")),
        Topology::Replicas { url, .. } => {
            let url = url.clone();
            tokio::task::spawn_blocking(move || Snapshot::read_postgres(&url)).await.expect("the database was read")
        }
    };
    findings.extend(audit::stored::check(&snapshot, &records));
    let (found, callbacks) = audit::callbacks::check(&receiver.deliveries(), &snapshot, &records);
    findings.extend(found);
    let (found, slack_messages, telegram_messages) = fakes.check(&snapshot);
    findings.extend(found);
    let recovered: usize = places.iter().map(|place| super::channels::posts_found_again(&place.logs)).sum();

    let total = |figure: fn(&Tally) -> u64| tallies.iter().map(figure).sum::<u64>();
    let acknowledged = records.iter().filter(|record| record.acknowledged.is_some()).count();
    let reputs: u32 = records.iter().map(|record| record.puts.saturating_sub(1)).sum();
    let resent: u32 = records.iter().map(|record| record.answers_sent.saturating_sub(1)).sum();
    let repeats: u32 = records.iter().map(|record| record.repeats).sum();
    let starts: usize = servers.iter().map(|server| server.starts()).sum();
    println!(
        "chaos summary: {:?} form, {} server(s), seed {}: {} questions, {acknowledged} answers acknowledged; {} kills ({} under load), {starts} starts, {:.1} s down, longest restart {} ms; {} requests, {} lost to kills, {} rate-limited; {reputs} asks/triggers and {resent} answers sent again ({repeats} taken as idempotent repeats); {} callback deliveries, {} refused by the receiver, {} callbacks delivered more than once; {slack_messages} Slack and {telegram_messages} Telegram messages ({recovered} posts a kill left in doubt found again); {} invariant findings; settled in {:.1} s, {:.1} s in all",
        plan.form,
        servers.len(),
        plan.seed,
        records.len(),
        kills.kills,
        kills.under_load,
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
            "{} invariant(s) broken (replay with {SEED_VAR}={}; the data folders and server logs are kept in {}):\n{}",
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
