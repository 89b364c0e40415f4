//! A real runtime on a real database file, with a scripted agent that asks one question and
//! then finishes, and precise signals for when each session's question is pending and when
//! each session completes.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use beckon_core::conversation::SessionStatus;
use beckon_core::{RequestId, SessionId};
use beckon_runtime::api::LiveEvent;
use beckon_runtime::{Beckon, Notifier, PendingNotice, ProviderSettings, ResolvedNotice, RuntimeConfig, StartOptions};
use serde_json::json;
use tokio::task::JoinHandle;

use crate::Failure;
use crate::rendezvous::Rendezvous;

/// The scripted agent every cycle runs.
pub const AGENT: &str = "release";
/// The label each cycle answers with.
pub const ANSWER: &str = "Ship";

/// How long any one step may take before the bench gives up.
const PATIENCE: Duration = Duration::from_secs(120);

/// The moments the bench waits for.
#[derive(Debug, Default)]
pub struct Signals {
    /// A session's question became pending (told right after its commit).
    pub pending: Rendezvous<SessionId, (RequestId, Instant)>,
    /// A session completed.
    pub completed: Rendezvous<SessionId, Instant>,
}

struct SignalNotifier(Arc<Signals>);

impl Notifier for SignalNotifier {
    fn question_pending(&self, notice: &PendingNotice) {
        self.0.pending.arrive(notice.session_id, (notice.request_id, Instant::now()));
    }

    fn question_resolved(&self, _notice: &ResolvedNotice) {}
}

/// A running runtime and its signals.
#[derive(Debug)]
pub struct Rig {
    /// The runtime.
    pub beckon: Beckon,
    /// Its signals.
    pub signals: Arc<Signals>,
    watcher: JoinHandle<()>,
}

/// Writes the scripted agent into `data_dir/agents`.
pub fn write_agent(data_dir: &Path) -> std::io::Result<()> {
    let agents = data_dir.join("agents");
    std::fs::create_dir_all(&agents)?;
    std::fs::write(
        agents.join(format!("{AGENT}.md")),
        format!("---\nname: {AGENT}\nprovider: scripted\nscript: {AGENT}.json\n---\nReleases builds.\n"),
    )?;
    let script = json!({"turns": [
        {"text": "The build is green.", "tool_calls": [{"name": "ask_user_question", "input": {"questions": [{
            "question": "Ship this build to the staging fleet?", "header": "Release", "multiSelect": false,
            "options": [{"label": ANSWER, "description": "Roll it out now"}, {"label": "Wait"}]
        }]}}]},
        {"text": "Decided: {{answer:0}}."}
    ]});
    std::fs::write(agents.join(format!("{AGENT}.json")), script.to_string())
}

impl Rig {
    /// Starts a runtime on `data_dir` (its agents written), with Anthropic's API at
    /// `anthropic_url` when given.
    pub async fn start(data_dir: &Path, anthropic_url: Option<&str>) -> Result<Rig, Failure> {
        Rig::start_on(data_dir, anthropic_url, None).await
    }

    /// As [`Rig::start`], keeping its data in the PostgreSQL database at `database_url` when
    /// given (a team server's replica).
    pub async fn start_on(
        data_dir: &Path,
        anthropic_url: Option<&str>,
        database_url: Option<&str>,
    ) -> Result<Rig, Failure> {
        write_agent(data_dir)?;
        let mut config = RuntimeConfig::new(data_dir);
        config.database_url = database_url.map(str::to_owned);
        if let Some(url) = anthropic_url {
            config.anthropic =
                ProviderSettings { api_key: Some("bench".into()), base_url: Some(url.to_owned()), model: None };
        }
        let signals = Arc::new(Signals::default());
        let options = StartOptions { notifier: Arc::new(SignalNotifier(signals.clone())), ..StartOptions::default() };
        let beckon = Beckon::start(config, options).await?;
        let mut events = beckon.events().subscribe(beckon.events().last_seq().await?).await?;
        let completed = signals.clone();
        let watcher = tokio::spawn(async move {
            while let Ok(event) = events.next().await {
                if let LiveEvent::SessionStatus { session_id, status: SessionStatus::Completed, .. } = event {
                    completed.completed.arrive(session_id, Instant::now());
                }
            }
        });
        Ok(Rig { beckon, signals, watcher })
    }

    /// Waits for `session`'s question.
    pub async fn pending(&self, session: SessionId) -> Result<(RequestId, Instant), Failure> {
        let waiting = self.signals.pending.expect(session);
        Ok(tokio::time::timeout(PATIENCE, waiting).await.map_err(|_| "no question within the patience")??)
    }

    /// Waits for `session` to complete.
    pub async fn completed(&self, session: SessionId) -> Result<Instant, Failure> {
        let waiting = self.signals.completed.expect(session);
        Ok(tokio::time::timeout(PATIENCE, waiting).await.map_err(|_| "no completion within the patience")??)
    }

    /// Stops the runtime.
    pub async fn stop(self) {
        self.watcher.abort();
        self.beckon.shutdown().await;
    }
}
