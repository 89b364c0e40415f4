//! What `beckon serve` holds in memory with many sessions waiting: the real binary started on
//! a data folder of waiting sessions, asked for every pending question over HTTP, then read
//! from `/proc` once idle.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use beckon_gateway::{GatewayClient, Locator};
use serde_json::{Value, json};

use crate::Failure;

/// The figures.
#[derive(Debug, Clone, Copy)]
pub struct ServeMemory {
    /// Sessions waiting.
    pub sessions: usize,
    /// Pending questions the gateway listed.
    pub listed: usize,
    /// Start to the gateway answering.
    pub start: Duration,
    /// Resident memory once idle (MiB).
    pub rss_mib: f64,
    /// The most it held (MiB).
    pub peak_rss_mib: f64,
}

impl ServeMemory {
    /// As JSON.
    pub fn to_json(self) -> Value {
        json!({"sessions_waiting": self.sessions, "pending_listed": self.listed, "start_ms": crate::stats::ms(self.start),
               "rss_mib": round1(self.rss_mib), "peak_rss_mib": round1(self.peak_rss_mib)})
    }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The `beckon` binary beside this one, with the `beckon-server` it hands `serve` to, both
/// built with the same profile when missing (needs to run under cargo).
pub fn beckon_binary() -> Result<PathBuf, Failure> {
    let exe = std::env::current_exe()?;
    let dir = exe.parent().ok_or("the bench has no folder")?;
    let binary = dir.join(format!("beckon{}", std::env::consts::EXE_SUFFIX));
    let server = dir.join(format!("beckon-server{}", std::env::consts::EXE_SUFFIX));
    if binary.exists() && server.exists() {
        return Ok(binary);
    }
    let cargo = std::env::var("CARGO").map_err(|_| {
        format!("{} is missing: build it with `cargo build --release -p beckon-cli -p beckon-server`", binary.display())
    })?;
    eprintln!("building the beckon and beckon-server binaries…");
    let mut build = Command::new(cargo);
    build.args(["build", "-p", "beckon-cli", "-p", "beckon-server"]);
    if dir.file_name().is_some_and(|name| name == "release") {
        build.arg("--release");
    }
    if !build.status()?.success() || !binary.exists() || !server.exists() {
        return Err("cannot build the beckon and beckon-server binaries".into());
    }
    Ok(binary)
}

/// A kB figure from `/proc/<pid>/status` ("VmRSS:", "VmHWM:"), in MiB.
pub fn status_mib(pid: u32, key: &str) -> Result<f64, Failure> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let kib: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix(key))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no {key} for process {pid}"))?;
    Ok(kib / 1024.0)
}

/// A running `beckon serve`, stopped (TERM, then KILL) when dropped.
#[derive(Debug)]
pub struct Server(Child);

impl Server {
    /// Starts `binary serve` on `data_dir` on a free port and waits until its gateway answers.
    pub async fn start(binary: &Path, data_dir: &Path) -> Result<(Server, GatewayClient), Failure> {
        let _ = std::fs::remove_file(beckon_gateway::Discovery::path(data_dir));
        let started = Instant::now();
        let child = Command::new(binary)
            .arg("serve")
            .arg("--data-dir")
            .arg(data_dir)
            .args(["--port", "0"])
            .env("BECKON_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let server = Server(child);
        let pid = server.pid();
        let locator = Locator::new(data_dir);
        loop {
            if let Ok(endpoint) = locator.locate()
                && endpoint.pid == Some(pid)
            {
                let client = GatewayClient::new(GatewayClient::http()?, endpoint, "bench");
                if client.health().await.is_ok() {
                    return Ok((server, client));
                }
            }
            if started.elapsed() > Duration::from_secs(120) {
                return Err("beckon serve did not start".into());
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg("-TERM").arg(self.0.id().to_string()).status();
        let started = Instant::now();
        while matches!(self.0.try_wait(), Ok(None)) && started.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `binary serve` on `data_dir` (holding `sessions` waiting sessions) and measures it.
pub async fn measure(binary: &Path, data_dir: &Path, sessions: usize, idle: Duration) -> Result<ServeMemory, Failure> {
    let started = Instant::now();
    let (server, client) = Server::start(binary, data_dir).await?;
    let pid = server.pid();
    let start = started.elapsed();
    let listed = client.health().await?.pending;
    client.pending().await?;
    tokio::time::sleep(idle).await;
    Ok(ServeMemory {
        sessions,
        listed,
        start,
        rss_mib: status_mib(pid, "VmRSS:")?,
        peak_rss_mib: status_mib(pid, "VmHWM:")?,
    })
}
