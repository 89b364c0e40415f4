//! A runtime and the gateway in front of it on a loopback port, on a temporary data folder
//! with a webhook agent (`hook`): what the gateway's HTTP suites share.

pub mod team;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use beckon_gateway::{GatewayConfig, RunningGateway};
use beckon_runtime::{Beckon, Notifier, RuntimeConfig, Silent, StartOptions};
use serde_json::json;

/// A running gateway and what it stands on.
pub struct Served {
    pub dir: tempfile::TempDir,
    pub beckon: Beckon,
    pub gateway: RunningGateway,
    pub http: reqwest::Client,
}

/// Starts Beckon and its gateway (on port 0), with `edit` applied to the gateway's settings.
/// Failed callbacks are retried after 50 ms, so tests see retries quickly.
pub async fn serve(edit: impl FnOnce(&mut GatewayConfig)) -> Served {
    serve_telling(Arc::new(Silent), edit).await
}

/// As [`serve`], with `notifier` told of questions and notices.
pub async fn serve_telling(notifier: Arc<dyn Notifier>, edit: impl FnOnce(&mut GatewayConfig)) -> Served {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("hook.md"),
        "---\nname: hook\nprovider: scripted\nscript: hook.json\nquestions: false\n---\n",
    )
    .unwrap();
    std::fs::write(agents.join("hook.json"), json!({"turns": [{"text": "Handled {{message|lower}}"}]}).to_string())
        .unwrap();
    let options = StartOptions { callback_backoff: Duration::from_millis(50), notifier, ..StartOptions::default() };
    let beckon = Beckon::start(RuntimeConfig::new(dir.path()), options).await.unwrap();
    let mut config = GatewayConfig::new(dir.path());
    config.port = 0;
    edit(&mut config);
    let gateway = beckon_gateway::start(beckon.clone(), config).await.unwrap();
    Served { dir, beckon, gateway, http: reqwest::Client::new() }
}

impl Served {
    /// The database file.
    pub fn db_path(&self) -> PathBuf {
        self.dir.path().join("beckon.db")
    }
}
