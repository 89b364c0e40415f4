//! The [`Beckon`] handle: starting a runtime, resuming what a previous run left, stopping.

use std::sync::Arc;
use std::time::Duration;

use crate::boot::{self, StartOptions};
use crate::config::RuntimeConfig;
use crate::error::Result;
use crate::executor;
use crate::live_tokens::LiveTokens;
use crate::notices::Notices;
use crate::runtime::Runtime;
use crate::team;

/// A handle to a running Beckon; cheap to clone, shared by every front end.
#[derive(Clone, Debug)]
pub struct Beckon {
    pub(crate) rt: Arc<Runtime>,
    pub(crate) notices: Arc<Notices>,
    /// The live tokens, checked on every gateway request without the database.
    pub(crate) tokens: Arc<LiveTokens>,
    /// A team server's admin token (its hash), on PostgreSQL only.
    pub(crate) admin: Option<Arc<Admin>>,
}

/// A team server's admin token: its hash, and the token itself until the start that made it
/// has shown it.
#[derive(Debug)]
pub(crate) struct Admin {
    pub(super) hash: [u8; 32],
    pub(super) made: std::sync::Mutex<Option<String>>,
}

impl Beckon {
    /// Starts a runtime on `config.data_dir`: takes the folder's lock, opens the store, loads
    /// agents, and resumes whatever a previous run left in flight.
    pub async fn start(config: RuntimeConfig, options: StartOptions) -> Result<Beckon> {
        let (rt, notifier) = boot::boot(config, options).await?;
        let records = rt.records.call(|store| store.read().tokens(false)).await?;
        let tokens = Arc::new(LiveTokens::load(records));
        let admin = match rt.config.database_url {
            Some(_) => {
                let admin = team::admin_token(rt.records.db()).await?;
                let reload = team::reload_tokens(rt.records.db().clone(), tokens.clone(), rt.work.stop_signal());
                rt.work.keep(tokio::spawn(reload));
                Some(Arc::new(Admin { hash: admin.hash, made: std::sync::Mutex::new(admin.made) }))
            }
            None => None,
        };
        let beckon = Beckon { rt, notices: Arc::new(Notices::new(notifier)), tokens, admin };
        beckon.recover().await?;
        Ok(beckon)
    }

    /// Resumes sessions a previous run left mid-turn, re-arms every question deadline (one
    /// that passed while closed fires now), and lets callbacks go out.
    async fn recover(&self) -> Result<()> {
        let now = self.rt.clock.now_ms();
        let (sessions, deadlines) = self
            .rt
            .records
            .call(move |store| Ok((executor::unheld(store, now)?, store.read().deadlines(None)?)))
            .await?;
        executor::resume(&self.rt.executor, &sessions);
        if self.rt.work.leases.shared() {
            let adopt = executor::adopt(self.rt.executor.clone(), self.rt.work.stop_signal());
            self.rt.work.keep(tokio::spawn(adopt));
        }
        for deadline in &deadlines {
            self.rt.work.deadlines.arm(deadline.request_id, deadline.expires_at_ms);
        }
        if !sessions.is_empty() || !deadlines.is_empty() {
            tracing::info!(sessions = sessions.len(), deadlines = deadlines.len(), "recovered");
        }
        self.rt.records.wake_callbacks();
        Ok(())
    }

    /// Stops: workers and session tasks end at their next safe point (an LLM request in
    /// flight is abandoned; its session re-issues it at the next start, as after a crash), and
    /// once they have, the data folder's lock is released. Other handles to this runtime stop
    /// working.
    pub async fn shutdown(self) {
        let workers = self.rt.work.stop();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        for worker in workers {
            if tokio::time::timeout_at(deadline, worker).await.is_err() {
                tracing::warn!("a worker did not stop in time; it may still write to the store");
            }
        }
        // Every session task holds the executor; every other task in flight, the runtime.
        let held = |rt: &Arc<Runtime>| Arc::strong_count(rt) > 1 || Arc::strong_count(&rt.executor) > 1;
        while held(&self.rt) && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        if held(&self.rt) {
            tracing::warn!("some handles to the runtime are still held; the data folder stays locked until they go");
        }
    }
}

impl Beckon {
    /// Claims `work` for this replica of a team server, or renews its claim: whether it holds
    /// it now (one replica at a time does it; another takes it up once this one's claim runs
    /// out). Always true for a lone Beckon.
    pub async fn keep_shared_work(&self, work: &str) -> bool {
        self.rt.work.leases.keep(work).await
    }

    /// Gives up this replica's claim on `work` so another may take it at once.
    pub async fn let_go_of_shared_work(&self, work: &str) {
        self.rt.work.leases.give_back(work).await;
    }

    /// How long a claim on shared work lasts unless renewed.
    pub fn lease(&self) -> Duration {
        self.rt.work.leases.lease()
    }
}
