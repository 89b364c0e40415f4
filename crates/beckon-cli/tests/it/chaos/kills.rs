//! The kill loop: lets the servers run for a random while, kills one of them (picked at random)
//! with SIGKILL, starts it again on the same data folder, and so on until the clients are done
//! and enough kills were made. A quarter of the kills come within 150 ms of a start, while
//! recovery is still under way.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::sync::watch;

use super::plan::Plan;
use super::progress::Progress;
use crate::support::server::Server;

/// Mixed into the plan's seed so kill timings do not repeat the clients' choices.
const KILL_STREAM: u64 = 0x6b69_6c6c;

/// What the kill loop did.
#[derive(Debug, Default)]
pub struct KillReport {
    /// Kills made.
    pub kills: usize,
    /// Kills made while clients were still working.
    pub under_load: usize,
    /// Time the server was down, all kills together.
    pub downtime: Duration,
    /// The longest time from a kill to the next start answering.
    pub longest_restart: Duration,
    /// Exits the test did not cause, each described.
    pub deaths: Vec<String>,
}

/// Kills and restarts `servers` until `work_done` says the clients are done and at least
/// `plan.min_kills` kills were made.
pub async fn keep_killing(
    servers: Vec<Arc<Server>>,
    plan: Plan,
    mut work_done: watch::Receiver<bool>,
    progress: Arc<Progress>,
) -> KillReport {
    let mut rng = StdRng::seed_from_u64(plan.seed ^ KILL_STREAM);
    let mut report = KillReport::default();
    let began = Instant::now();
    loop {
        let done = *work_done.borrow();
        if done && report.kills >= plan.min_kills {
            return report;
        }
        let uptime = if rng.random_bool(0.25) {
            Duration::from_millis(rng.random_range(0..150))
        } else {
            Duration::from_millis(rng.random_range(plan.uptime.clone()))
        };
        let enough = report.kills >= plan.min_kills;
        tokio::select! {
            () = tokio::time::sleep(uptime) => {}
            // Once enough kills were made, the end of the work ends the loop at once.
            _ = work_done.wait_for(|done| *done), if enough && !done => continue,
        }
        for server in &servers {
            if let Some(death) = server.died().await {
                report.deaths.push(death);
            }
        }
        let which = rng.random_range(0..servers.len());
        let server = &servers[which];
        let under_load = !*work_done.borrow();
        let down = Instant::now();
        server.kill().await;
        report.kills += 1;
        report.under_load += usize::from(under_load);
        server.restart().await;
        let restart = down.elapsed();
        report.downtime += restart;
        report.longest_restart = report.longest_restart.max(restart);
        let (asked, acknowledged) = progress.figures();
        println!(
            "chaos: kill {} (server {which}) at {:.1} s after {} ms up{}; back in {} ms; {asked} of {} questions asked, {acknowledged} answers acknowledged",
            report.kills,
            began.elapsed().as_secs_f64(),
            uptime.as_millis(),
            if under_load { "" } else { " (clients done)" },
            restart.as_millis(),
            plan.jobs.len(),
        );
    }
}
