//! Runs a Beckon runtime on a data folder with Anthropic pointed at a given URL, starts one
//! session of the `deployer` agent, prints its id, and runs until killed.
//!
//! Usage: beckon-runtime-kill-worker <data-dir> <anthropic-base-url>

use beckon_runtime::{Beckon, ProviderSettings, RuntimeConfig, StartOptions};

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(url)) = (args.next(), args.next()) else {
        eprintln!("usage: beckon-runtime-kill-worker <data-dir> <anthropic-base-url>");
        std::process::exit(2);
    };
    let mut config = RuntimeConfig::new(dir);
    config.anthropic = ProviderSettings { api_key: Some("test-key".into()), base_url: Some(url), model: None };
    let beckon = match Beckon::start(config, StartOptions::default()).await {
        Ok(beckon) => beckon,
        Err(err) => {
            eprintln!("kill worker: {err}");
            std::process::exit(1);
        }
    };
    match beckon.start_session("deployer", "Deploy it").await {
        Ok(session) => println!("{session}"),
        Err(err) => {
            eprintln!("kill worker: {err}");
            std::process::exit(1);
        }
    }
    std::future::pending::<()>().await;
}
