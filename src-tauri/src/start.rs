//! Starting what the window works with — the runtime, the local gateway beside it and the
//! channels — in one pass on the async runtime, and why a part did not start.

use std::path::Path;

use beckon_gateway::{GatewayConfig, GatewayError, RunningGateway};
use beckon_runtime::{Beckon, StartOptions};

use crate::channels::RunningChannels;
use crate::settings::Settings;

/// Why Beckon could not start. Nothing works without the runtime: the window shows this
/// full-window (as an `unavailable` error) and offers to try again.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The runtime could not start (its data folder, its lock or its database), for this reason.
    #[error(transparent)]
    Runtime(#[from] beckon_runtime::Error),
}

/// Why the local gateway is not running. The app works without it; the window says why.
#[derive(Debug, thiserror::Error)]
pub enum GatewayDown {
    /// It could not start.
    #[error(transparent)]
    Failed(#[from] GatewayError),
    /// Beckon itself did not start, so neither did the gateway.
    #[error("Beckon itself could not start")]
    NoRuntime,
    /// It was stopped (the app quits).
    #[error("stopped")]
    Stopped,
}

/// What runs once Beckon has started.
pub struct Started {
    /// The runtime.
    pub beckon: Beckon,
    /// The gateway, or why it is not running.
    pub gateway: Result<RunningGateway, GatewayDown>,
    /// The channels the settings enable.
    pub channels: RunningChannels,
}

/// Starts the runtime on `data_dir` (where `settings` came from), then the gateway on the
/// settings' port and the channels they enable. Runs within the async runtime: the channels
/// spawn their tasks there.
pub async fn start(settings: &Settings, data_dir: &Path, options: StartOptions) -> Result<Started, StartError> {
    let config = settings.runtime_config(&format!("Beckon desktop {}", env!("CARGO_PKG_VERSION")));
    let beckon = Beckon::start(config, options).await?;
    let mut gateway = GatewayConfig::new(data_dir);
    gateway.port = settings.gateway_port();
    let gateway = beckon_gateway::start(beckon.clone(), gateway).await.map_err(|err| {
        tracing::warn!(%err, "the gateway is not running; the app works without it");
        GatewayDown::from(err)
    });
    let channels = RunningChannels::start(&beckon, settings);
    Ok(Started { beckon, gateway, channels })
}
