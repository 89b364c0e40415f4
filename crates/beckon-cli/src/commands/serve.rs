//! `beckon serve`: the runtime and its gateway with no window, for servers and webhook agents.
//! The person is reached through callbacks (and these logs) instead of desktop notifications.
//! Runs until SIGINT or SIGTERM, then stops the gateway (removing `gateway.json`) and the
//! runtime.

use std::sync::Arc;

use beckon_gateway::GatewayConfig;
use beckon_runtime::{Beckon, Notifier, PendingNotice, ProviderSettings, ResolvedNotice, RuntimeConfig, StartOptions};

use crate::cli::{Connection, ServeArgs};
use crate::error::{CliError, CliResult, Exit};
use crate::signals::Signals;

/// Who holds the data folder's lock, as a second Beckon on it is told.
const HOLDER: &str = "beckon serve";

/// Headless notifications: a log line per question and per notice, without their text.
#[derive(Debug)]
struct LoggedNotices;

impl Notifier for LoggedNotices {
    fn question_pending(&self, notice: &PendingNotice) {
        tracing::info!(
            request_id = %notice.request_id,
            session_id = %notice.session_id,
            origin = %notice.origin,
            "question pending"
        );
    }

    fn question_resolved(&self, notice: &ResolvedNotice) {
        tracing::info!(request_id = %notice.request_id, status = %notice.status, "question resolved");
    }

    fn notice_posted(&self, notice: &beckon_core::Notice) {
        tracing::info!(key = %notice.key, agent = %notice.agent, "notice posted");
    }

    fn notice_cleared(&self, key: &str) {
        tracing::info!(%key, "notice cleared");
    }
}

/// A provider's settings from `<PREFIX>_API_KEY`, `<PREFIX>_BASE_URL` and `<PREFIX>_MODEL`.
fn provider_from_env(prefix: &str) -> ProviderSettings {
    let read = |name: &str| std::env::var(format!("{prefix}_{name}")).ok().filter(|v| !v.trim().is_empty());
    ProviderSettings { api_key: read("API_KEY"), base_url: read("BASE_URL"), model: read("MODEL") }
}

/// Runs `beckon serve`.
pub async fn run(connection: &Connection, args: ServeArgs) -> CliResult<Exit> {
    let data_dir = connection.data_dir();
    let mut signals = Signals::listen().map_err(|err| CliError::Io(format!("cannot listen for signals: {err}")))?;
    let config = RuntimeConfig {
        holder: HOLDER.into(),
        anthropic: provider_from_env("ANTHROPIC"),
        openai: provider_from_env("OPENAI"),
        scripts_may_approve: beckon_runtime::scripts_may_approve_from_env(),
        ..RuntimeConfig::new(&data_dir)
    };
    let options = StartOptions { notifier: Arc::new(LoggedNotices), ..StartOptions::default() };
    let beckon = Beckon::start(config, options).await?;
    let mut gateway_config = GatewayConfig::new(&data_dir);
    gateway_config.port = args.port;
    let gateway = match beckon_gateway::start(beckon.clone(), gateway_config).await {
        Ok(gateway) => gateway,
        Err(err) => {
            beckon.shutdown().await;
            return Err(err.into());
        }
    };
    tracing::info!(url = %gateway.url, data_dir = %data_dir.display(), "Beckon is serving; SIGINT or SIGTERM stops it");
    let signal = signals.stopped().await;
    tracing::info!(signal, "stopping");
    gateway.stop();
    beckon.shutdown().await;
    tracing::info!("stopped");
    Ok(Exit::Success)
}
