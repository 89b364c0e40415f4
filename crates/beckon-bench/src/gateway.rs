//! The HTTP gateway under load: concurrent clients on loopback, each asking a question
//! (`POST /v1/questions`) and answering it (`POST /v1/questions/{id}/answer`) in turn. The
//! per-client write limit is lifted: this measures the gateway, not its limiter.

use std::time::{Duration, Instant};

use beckon_gateway::{GatewayClient, GatewayConfig, Locator};
use beckon_runtime::{Beckon, RuntimeConfig, StartOptions};
use serde_json::{Value, json};

use crate::Failure;
use crate::stats::Summary;

/// The figures.
#[derive(Debug, Clone, Copy)]
pub struct GatewayLoad {
    /// Concurrent clients.
    pub clients: usize,
    /// Ask + answer round trips completed.
    pub round_trips: usize,
    /// Round trips per second.
    pub per_second: f64,
    /// One round trip's latency.
    pub latency: Summary,
}

impl GatewayLoad {
    /// As JSON.
    pub fn to_json(self) -> Value {
        json!({"clients": self.clients, "round_trips": self.round_trips,
               "round_trips_per_s": (self.per_second * 10.0).round() / 10.0, "latency": self.latency.to_json()})
    }
}

fn body(n: usize) -> Value {
    json!({"agent": "load", "questions": [{"question": format!("Promote build {n}?"), "header": "Promote",
        "options": [{"label": "Yes"}, {"label": "No"}]}]})
}

async fn client_loop(client: GatewayClient, first: usize, count: usize) -> Result<Vec<Duration>, Failure> {
    let mut samples = Vec::with_capacity(count);
    for n in first..first + count {
        let started = Instant::now();
        let created = client.ask(&body(n)).await?;
        client.answer(&created.request_id.to_string(), &["Yes".to_owned()]).await?;
        samples.push(started.elapsed());
    }
    Ok(samples)
}

/// `clients` clients making `per_client` round trips each, against a gateway on `data_dir`.
pub async fn measure(data_dir: &std::path::Path, clients: usize, per_client: usize) -> Result<GatewayLoad, Failure> {
    let beckon = Beckon::start(RuntimeConfig::new(data_dir), StartOptions::default()).await?;
    let mut config = GatewayConfig::new(data_dir);
    config.port = 0;
    config.writes_per_second = 1e9;
    config.write_burst = 1e9;
    let gateway = beckon_gateway::start(beckon.clone(), config).await?;
    let endpoint = Locator::new(data_dir).locate()?;
    let http = GatewayClient::http()?;
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|c| {
            let client = GatewayClient::new(http.clone(), endpoint.clone(), &format!("load-{c}"));
            tokio::spawn(
                async move { client_loop(client, c * per_client, per_client).await.map_err(|e| e.to_string()) },
            )
        })
        .collect();
    let mut samples = Vec::with_capacity(clients * per_client);
    for task in tasks {
        samples.extend(task.await??);
    }
    let wall = started.elapsed();
    gateway.stop();
    beckon.shutdown().await;
    let round_trips = samples.len();
    Ok(GatewayLoad {
        clients,
        round_trips,
        per_second: round_trips as f64 / wall.as_secs_f64(),
        latency: Summary::of(samples).ok_or("no round trips")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_client_completes_its_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let load = measure(dir.path(), 5, 4).await.unwrap();
        assert_eq!(load.round_trips, 20);
        assert_eq!(load.latency.count, 20);
        assert!(load.per_second > 0.0);
    }
}
