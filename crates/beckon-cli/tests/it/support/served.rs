//! The `beckon` binary with nothing from the environment pointing it elsewhere, and
//! `beckon serve` on a temporary data folder: what the CLI's end-to-end suites share.

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

use beckon_gateway::{Discovery, GatewayClient, Locator};
use beckon_testkit::eventually;
use serde_json::Value;
use tokio::process::{Child, Command};

/// The binary, run on the data folder `dir`.
pub fn beckon(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_beckon"));
    command
        .arg("--data-dir")
        .arg(dir)
        .env_remove("BECKON_DATA_DIR")
        .env_remove("BECKON_URL")
        .env_remove("BECKON_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// Runs `command` to its end (a minute at most).
pub async fn output(command: &mut Command) -> Output {
    tokio::time::timeout(Duration::from_secs(60), command.output()).await.expect("the command hung").unwrap()
}

/// Output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `beckon serve` on the data folder `data` and a free port, with scripts allowed to approve (so
/// a test answers approvals over HTTP as the person's window would), once its `gateway.json` is
/// written: the server and where it listens.
pub async fn serve_approving(data: &Path) -> (Child, Discovery) {
    let serve = beckon(data).args(["serve", "--port", "0"]).env("BECKON_SCRIPTS_MAY_APPROVE", "1").spawn().unwrap();
    (serve, discovered(data, Duration::from_secs(30)).await)
}

/// Where `beckon serve` on the data folder `data` listens, once it has written its
/// `gateway.json`; the test fails if that takes longer than `within`.
pub async fn discovered(data: &Path, within: Duration) -> Discovery {
    eventually("beckon serve writing gateway.json", within, || async { Discovery::read(data).ok() }).await
}

/// `beckon serve` on a temporary folder and a free port.
pub struct Served {
    /// The data folder.
    pub dir: tempfile::TempDir,
    /// The server.
    pub serve: Child,
    /// A gateway client for it.
    pub client: GatewayClient,
}

impl Served {
    /// Starts it; `client` names the test's gateway client.
    pub async fn start(client: &str) -> Served {
        Self::start_with(client, |_| {}).await
    }

    /// Starts it with `setup` applied to its command first (an environment variable, say).
    pub async fn start_with(client: &str, setup: impl FnOnce(&mut Command)) -> Served {
        Self::start_on(tempfile::tempdir().unwrap(), client, setup).await
    }

    /// Starts it on the data folder `dir`, made ready beforehand (a database filled, say).
    pub async fn start_on(dir: tempfile::TempDir, client: &str, setup: impl FnOnce(&mut Command)) -> Served {
        let mut command = beckon(dir.path());
        command.args(["serve", "--port", "0"]);
        setup(&mut command);
        let serve = command.spawn().unwrap();
        discovered(dir.path(), Duration::from_secs(30)).await;
        let endpoint = Locator::new(dir.path()).locate().unwrap();
        let client = GatewayClient::new(GatewayClient::http().unwrap(), endpoint, client);
        Served { dir, serve, client }
    }

    /// The binary, on this server's data folder.
    pub fn beckon(&self) -> Command {
        beckon(self.dir.path())
    }

    /// The first pending question, once there is one; the test fails after `within`, saying
    /// that `what` did not happen.
    pub async fn first_pending(&self, what: &str, within: Duration) -> Value {
        self.pending_where(what, within, |_| true).await
    }

    /// The first pending question `matches` accepts, once there is one; the test fails after
    /// `within`, saying that `what` did not happen. Read as the wire's JSON, so a test may
    /// look at any field as it was sent.
    pub async fn pending_where(&self, what: &str, within: Duration, matches: impl Fn(&Value) -> bool) -> Value {
        let matches = &matches;
        eventually(what, within, || async move {
            let pending = self.client.pending().await.unwrap().into_iter();
            pending.map(|question| serde_json::to_value(question).unwrap()).find(|question| matches(question))
        })
        .await
    }
}
