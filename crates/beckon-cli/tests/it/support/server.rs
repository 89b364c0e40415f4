//! `beckon serve` under test: started on a data folder with a free port, killed with SIGKILL,
//! started again on the same folder (on whatever port it gets: the address and token are read
//! from `gateway.json` each time), and finally stopped with SIGTERM. Clients follow its
//! [`Status`] to know when it is up and where.

use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use beckon_gateway::Discovery;
use tokio::process::{Child, Command};
use tokio::sync::{Mutex, watch};

/// How long a start may take before it counts as failed (a debug build on a busy machine).
const START_PATIENCE: Duration = Duration::from_secs(60);
/// How long a graceful stop may take.
const STOP_PATIENCE: Duration = Duration::from_secs(30);

/// Where a running server listens.
#[derive(Clone)]
pub struct Endpoint {
    /// Its base URL.
    pub url: String,
    /// Its bearer token (new at every start).
    pub token: String,
}

/// What clients know of the server: which start this is and, while it is up, where it listens.
#[derive(Clone)]
pub struct Status {
    /// How many times it has been started.
    pub generation: u64,
    /// Where it listens; `None` from just before a kill until the next start answers.
    pub endpoint: Option<Endpoint>,
    /// When this generation began answering.
    pub up_since: Instant,
}

/// The server process and its history.
pub struct Server {
    data_dir: PathBuf,
    /// More arguments for `beckon serve`.
    extra: Vec<String>,
    logs: PathBuf,
    http: reqwest::Client,
    child: Mutex<Option<Child>>,
    status: watch::Sender<Status>,
    starts: AtomicUsize,
    /// Whether the first start makes a Telegram pairing code.
    pair: bool,
}

impl Server {
    /// Starts `beckon serve` on `data_dir` with `extra` arguments, with its logs in `logs`.
    pub async fn start_with(data_dir: &Path, logs: &Path, extra: &[&str]) -> Server {
        Server::start_pairing(data_dir, logs, extra, true).await
    }

    /// [`Server::start_with`], making a Telegram pairing code at the first start if `pair`.
    pub async fn start_pairing(data_dir: &Path, logs: &Path, extra: &[&str], pair: bool) -> Server {
        let (status, _) = watch::channel(Status { generation: 0, endpoint: None, up_since: Instant::now() });
        let server = Server {
            data_dir: data_dir.to_path_buf(),
            extra: extra.iter().map(|arg| (*arg).to_owned()).collect(),
            logs: logs.to_path_buf(),
            http: reqwest::Client::builder().no_proxy().build().expect("an HTTP client can be built"),
            child: Mutex::new(None),
            status,
            starts: AtomicUsize::new(0),
            pair,
        };
        server.launch().await;
        server
    }

    /// Follows the server's status.
    pub fn watch(&self) -> watch::Receiver<Status> {
        self.status.subscribe()
    }

    /// How many times it has been started.
    pub fn starts(&self) -> usize {
        self.starts.load(Ordering::SeqCst)
    }

    fn log_path(&self, start: usize) -> PathBuf {
        self.logs.join(format!("serve-{start}.log"))
    }

    /// What a start printed on standard output (the Telegram pairing code of the first).
    pub fn printed(&self, start: usize) -> String {
        std::fs::read_to_string(self.logs.join(format!("serve-{start}.out"))).unwrap_or_default()
    }

    /// The end of a start's log, for failure messages.
    pub fn log_tail(&self, start: usize) -> String {
        let text = std::fs::read_to_string(self.log_path(start)).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    async fn launch(&self) {
        let start = self.starts.fetch_add(1, Ordering::SeqCst) + 1;
        let log = std::fs::File::create(self.log_path(start)).expect("the server's log file can be created");
        let out =
            std::fs::File::create(self.logs.join(format!("serve-{start}.out"))).expect("the output file can be made");
        // The first start makes the Telegram pairing code, as a person at the terminal would.
        let pair = if start == 1 && self.pair { &["--pair-telegram"][..] } else { &[] };
        let mut child = Command::new(env!("CARGO_BIN_EXE_beckon"))
            .arg("--data-dir")
            .arg(&self.data_dir)
            .args(["serve", "--port", "0"])
            .args(pair)
            .args(&self.extra)
            .env_remove("BECKON_DATA_DIR")
            .env_remove("BECKON_URL")
            .env_remove("BECKON_TOKEN")
            .env_remove("RUST_LOG")
            .env_remove("BECKON_DATABASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(log))
            .kill_on_drop(true)
            .spawn()
            .expect("beckon serve can be started");
        let pid = child.id().expect("a process just started has a pid");
        let began = Instant::now();
        // A killed predecessor leaves its gateway.json behind: wait for this process's own.
        let found = loop {
            if let Ok(found) = Discovery::read(&self.data_dir)
                && found.pid == pid
            {
                break found;
            }
            if let Some(exit) = child.try_wait().expect("the server's state can be read") {
                panic!("beckon serve (start {start}) exited with {exit} before listening:\n{}", self.log_tail(start));
            }
            assert!(
                began.elapsed() < START_PATIENCE,
                "beckon serve (start {start}) wrote no gateway.json within {START_PATIENCE:?}:\n{}",
                self.log_tail(start)
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        let endpoint = Endpoint { url: found.url, token: found.token };
        while !self.healthy(&endpoint).await {
            assert!(
                began.elapsed() < START_PATIENCE,
                "beckon serve (start {start}) did not answer /v1/health within {START_PATIENCE:?}:\n{}",
                self.log_tail(start)
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        *self.child.lock().await = Some(child);
        self.status.send_modify(|status| {
            status.generation += 1;
            status.endpoint = Some(endpoint);
            status.up_since = Instant::now();
        });
    }

    async fn healthy(&self, endpoint: &Endpoint) -> bool {
        let asked = self
            .http
            .get(format!("{}/v1/health", endpoint.url))
            .bearer_auth(&endpoint.token)
            .header("x-beckon-client", "chaos-health")
            .timeout(Duration::from_secs(5))
            .send()
            .await;
        asked.is_ok_and(|response| response.status().is_success())
    }

    /// If the server has exited without being told to, how it ended (and it is then down).
    pub async fn died(&self) -> Option<String> {
        let mut guard = self.child.lock().await;
        let exit = guard.as_mut()?.try_wait().expect("the server's state can be read")?;
        guard.take();
        self.status.send_modify(|status| status.endpoint = None);
        let start = self.starts();
        Some(format!("beckon serve (start {start}) exited by itself with {exit}:\n{}", self.log_tail(start)))
    }

    /// Kills the server with SIGKILL, marking it down first so that clients whose requests
    /// fail know to wait for the next start.
    pub async fn kill(&self) {
        self.status.send_modify(|status| status.endpoint = None);
        let mut guard = self.child.lock().await;
        if let Some(mut child) = guard.take() {
            // tokio's kill is SIGKILL on Unix.
            child.start_kill().expect("SIGKILL can be sent to beckon serve");
            child.wait().await.expect("the killed server can be reaped");
        }
    }

    /// Starts the server again on the same data folder.
    pub async fn restart(&self) {
        self.launch().await;
    }

    /// Stops the server with SIGTERM and waits for it to exit.
    pub async fn stop(&self) -> ExitStatus {
        self.status.send_modify(|status| status.endpoint = None);
        let mut child = self.child.lock().await.take().expect("the server runs when it is stopped");
        let pid = child.id().expect("a running server has a pid").to_string();
        let sent = std::process::Command::new("kill").args(["-TERM", &pid]).status().expect("kill can be run");
        assert!(sent.success(), "SIGTERM could not be sent to beckon serve (pid {pid})");
        match tokio::time::timeout(STOP_PATIENCE, child.wait()).await {
            Ok(exit) => exit.expect("the stopped server can be reaped"),
            Err(_) => panic!(
                "beckon serve did not stop within {STOP_PATIENCE:?} of SIGTERM:\n{}",
                self.log_tail(self.starts())
            ),
        }
    }
}
