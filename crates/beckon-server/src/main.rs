//! `beckon-server`: Beckon without a window (`serve`) and the MCP server over stdio (`mcp`),
//! with the command line `beckon` reads (it hands these commands here), so `beckon serve …`
//! and `beckon-server serve …` are one command.

mod callback_secret;
mod cli;
mod error;
mod mcp;
mod serve;
mod serve_channels;

use std::io::IsTerminal;
use std::process::ExitCode;

use beckon_cli::process;
use tracing_subscriber::EnvFilter;

use crate::cli::{Command, ServerCli};

/// Logs go to stderr (stdout carries MCP for `mcp`, and the secret for `callback-secret`);
/// `RUST_LOG` overrides the level.
fn init_logs(command: &Command) {
    let level = match command {
        Command::Serve(_) => "info,rmcp=warn",
        Command::Mcp | Command::CallbackSecret(_) => "warn",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level));
    let colour = std::io::stderr().is_terminal();
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(colour).init();
}

fn main() -> ExitCode {
    let cli = match process::parse::<ServerCli>() {
        Ok(cli) => cli,
        Err(exit) => return exit.into(),
    };
    init_logs(&cli.command);
    let connection = cli.connection;
    process::run(tokio::runtime::Builder::new_multi_thread().enable_all().build(), async move {
        match cli.command {
            Command::Serve(args) => serve::run(&connection, *args).await,
            Command::Mcp => mcp::run(&connection).await,
            Command::CallbackSecret(args) => callback_secret::run(&connection, args).await,
        }
    })
}
