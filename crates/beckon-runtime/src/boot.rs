//! Boot: the one place the runtime's parts are made and wired together. Each part gets only
//! the handles it uses; the parts that run on their own (deadlines, the callback outbox,
//! pushes to people's devices, retention) are spawned here and stop with the runtime.

use std::sync::{Arc, Weak};
use std::time::Duration;

use beckon_store::Store;
use tokio::sync::Notify;

use crate::agents::Agents;
use crate::callbacks::{self, CallbackSecret, Outbox};
use crate::clock::{Clock, SystemClock};
use crate::config::RuntimeConfig;
use crate::db::Db;
use crate::deadlines::{self, Deadlines};
use crate::error::{Error, Result};
use crate::events::{Hub, Publisher, Waiters};
use crate::executor::{Executor, Registry};
use crate::expiry;
use crate::leases::{self, Leases};
use crate::live_rules::LiveRules;
use crate::lock::DataDirLock;
use crate::notifier::Notifier;
use crate::private_folder;
use crate::providers::ProviderSet;
use crate::public_url::PublicUrl;
use crate::push::{self, PushWorker, Vapid};
use crate::retention::{self, Retention};
use crate::runtime::{Approvals, CallbackLinks, Records, Runtime, Work};
use crate::shared_log::{self, OutboxOnly};
use crate::stop::StopSignal;

/// Options for starting a runtime beyond its configuration.
#[derive(Clone)]
pub struct StartOptions {
    /// Told when questions become pending or are resolved, and when notices come and go.
    pub notifier: Arc<dyn Notifier>,
    /// The first wait before retrying a failed callback (doubled each time).
    pub callback_backoff: Duration,
    /// Where time is read and waited for: the system's clock, or a test's.
    pub clock: Arc<dyn Clock>,
}

impl Default for StartOptions {
    fn default() -> Self {
        StartOptions {
            notifier: Arc::new(crate::notifier::Silent),
            callback_backoff: Duration::from_secs(1),
            clock: Arc::new(SystemClock),
        }
    }
}

impl std::fmt::Debug for StartOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StartOptions").field("callback_backoff", &self.callback_backoff).finish_non_exhaustive()
    }
}

/// Opens the data folder and starts every part; the caller resumes what a previous run left.
pub(crate) async fn boot(config: RuntimeConfig, options: StartOptions) -> Result<(Arc<Runtime>, Arc<dyn Notifier>)> {
    let lock = Arc::new(DataDirLock::acquire(&config.data_dir, &config.holder)?);
    let path = config.database_path();
    let data_dir = config.data_dir.clone();
    let database_url = config.database_url.clone();
    let store = tokio::task::spawn_blocking(move || {
        let store = match &database_url {
            Some(url) => Store::connect(url)?,
            None => Store::open(path)?,
        };
        // Where the shared log's follower starts (PostgreSQL's client blocks: read here).
        let last_seq = store.read().last_seq()?;
        // After the open, so that a new `beckon.db` and its WAL files are tightened too (SQLite
        // gives files it creates later the database's own mode).
        for (path, err) in private_folder::tighten(&data_dir) {
            tracing::warn!(path = %path.display(), %err, "cannot make this file private to its owner");
        }
        Ok::<_, Error>((store, last_seq))
    })
    .await
    .map_err(|err| Error::DataDir { path: config.data_dir.clone(), detail: err.to_string() })??;
    let (store, last_seq) = store;
    let hub = Hub::new();
    let waiters = Arc::new(Waiters::default());
    let outbox = Arc::new(Notify::new());
    let publisher = Publisher {
        live: hub.live.clone(),
        waiters: waiters.clone(),
        outbox: outbox.clone(),
        notifier: options.notifier.clone(),
    };
    let signal = StopSignal::new();
    let mut workers = Vec::new();
    let (deadlines, armed) = Deadlines::new();
    // Replicas share the log: one follower publishes every event, the store thread only wakes
    // the outbox.
    let (db, follower) = match &config.database_url {
        Some(_) => (Db::start(store, Arc::new(OutboxOnly { outbox: outbox.clone() }))?, Some(publisher)),
        None => (Db::start(store, Arc::new(publisher))?, None),
    };
    let owner = match config.database_url {
        Some(_) => leases::replica_id(&config.data_dir).map_err(|err| Error::DataDir {
            path: config.data_dir.clone(),
            detail: format!("cannot name this replica: {err}"),
        })?,
        None => String::new(),
    };
    let leases = Leases::new(db.clone(), options.clock.clone(), owner, config.lease, config.database_url.is_some());
    // Nothing this replica held before it started runs any more.
    leases.start_afresh().await?;
    if leases.shared() {
        workers.push(tokio::spawn(leases::heartbeat(leases.clone(), signal.subscribe())));
    }
    if let (Some(publisher), Some(url)) = (follower, config.database_url.clone()) {
        let follower = shared_log::Follower {
            publisher,
            deadlines: deadlines.clone(),
            leases: leases.clone(),
            stop: signal.subscribe(),
        };
        workers.push(tokio::task::spawn_blocking(move || follower.follow(&url, last_seq)));
    }
    let callback_secret = Arc::new(CallbackSecret::load(&db).await?);
    let vapid = Arc::new(Vapid::load(&db).await?);
    let rules = LiveRules::load(db.call(|store| store.read().rules(false)).await?);
    let agents = Agents::load(&config.agents_dir());
    let http = crate::providers::http_client().map_err(|err| Error::DataDir {
        path: config.data_dir.clone(),
        detail: format!("cannot set up HTTP: {err}"),
    })?;
    let destinations = Arc::new(config.callback_destinations.clone());
    let callback_http = callbacks::client(&destinations).map_err(|err| Error::DataDir {
        path: config.data_dir.clone(),
        detail: format!("cannot set up HTTP for callbacks: {err}"),
    })?;
    let providers = ProviderSet::new(&config, &http);
    let clock = options.clock.clone();
    workers.push(tokio::spawn(callbacks::run(Outbox {
        db: db.clone(),
        clock: clock.clone(),
        secret: callback_secret.clone(),
        wake: outbox.clone(),
        stop: signal.subscribe(),
        http: callback_http.clone(),
        base_backoff: options.callback_backoff,
        slack_webhooks: Arc::new(config.slack_webhooks.clone()),
        leases: leases.clone(),
        destinations: destinations.clone(),
    })));
    workers.push(tokio::spawn(retention::run(Retention {
        db: db.clone(),
        clock: clock.clone(),
        workspaces: config.workspaces_dir(),
        days: config.retention_days,
        audit_days: config.audit_days,
        stop: signal.subscribe(),
        leases: leases.clone(),
    })));
    let public_url = PublicUrl::default();
    workers.push(tokio::spawn(push::run(PushWorker {
        db: db.clone(),
        clock: clock.clone(),
        vapid: vapid.clone(),
        // Pushes go where callbacks go, as they go: one client for both.
        http: callback_http,
        destinations,
        public_url: public_url.clone(),
        events: hub.live.subscribe(),
        leases: leases.clone(),
        stop: signal.subscribe(),
    })));
    let executor = Arc::new(Executor {
        db: db.clone(),
        clock: clock.clone(),
        agents,
        providers: std::sync::RwLock::new(providers),
        tasks: Registry::default(),
        deadlines: deadlines.clone(),
        text: hub.text.clone(),
        workspaces: config.workspaces_dir(),
        public_url: public_url.clone(),
        http,
        stop: signal.subscribe(),
        leases: leases.clone(),
        _lock: lock.clone(),
    });
    let stop = signal.subscribe();
    let rt = Arc::new(Runtime {
        approvals: Approvals::new(rules, config.scripts_may_approve),
        config,
        clock: clock.clone(),
        records: Records::new(db, hub, waiters, outbox),
        callbacks: CallbackLinks::new(callback_secret, public_url),
        executor,
        work: Work::new(deadlines, leases, signal, lock),
        vapid,
    });
    // A due deadline expires its question; the runtime is not kept alive for it.
    let expiring: Weak<Runtime> = Arc::downgrade(&rt);
    let due = move |id| {
        if let Some(rt) = expiring.upgrade() {
            tokio::spawn(async move { expiry::expire(&rt, id).await });
        }
    };
    workers.push(tokio::spawn(deadlines::run(clock, armed, due, stop)));
    rt.work.keep_all(workers);
    Ok((rt, options.notifier))
}
