//! `beckon`: put a question to the person from a script and wait for the answer, answer or list
//! questions from a terminal, run Beckon without a window (`beckon serve`), or serve MCP over
//! stdio (`beckon mcp`). Every command but `serve` talks to the running Beckon through its
//! local gateway, found through `gateway.json` in the data folder.

mod cli;
mod commands;
mod error;
mod output;
mod signals;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use tracing_subscriber::EnvFilter;

use crate::cli::{Cli, Command};
use crate::error::Exit;

/// Whether `command` runs until it is stopped (`serve`, `mcp`), rather than doing one thing and
/// exiting.
fn long_running(command: &Command) -> bool {
    match command {
        Command::Serve(_) | Command::Mcp => true,
        Command::Ask(_)
        | Command::Pending(_)
        | Command::Answer(_)
        | Command::Status(_)
        | Command::Hook(_)
        | Command::Setup(_)
        | Command::Token(_)
        | Command::Remote(_)
        | Command::Audit(_) => false,
    }
}

/// Logs go to stderr (stdout carries answers, or MCP for `beckon mcp`); `RUST_LOG` overrides the
/// level. Only the long-running commands log.
fn init_logs(command: &Command) {
    if !long_running(command) {
        return;
    }
    let level = if matches!(command, Command::Serve(_)) { "info,rmcp=warn" } else { "warn" };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level));
    let colour = std::io::stderr().is_terminal();
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(colour).init();
}

/// The runtime `command` runs on: the long-running commands get a worker thread per core;
/// every other command, a hook above all (it runs on every tool call of every agent), runs on
/// this thread alone, without starting workers it would not use.
fn runtime_for(command: &Command) -> std::io::Result<tokio::runtime::Runtime> {
    if long_running(command) {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // clap would exit 2 on a usage error, which `beckon ask` means as "declined": a script
        // must not take a typo (or an argument that is not UTF-8) for a person's decision.
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { Exit::Failed } else { Exit::Success }.into();
        }
    };
    init_logs(&cli.command);
    let runtime = match runtime_for(&cli.command) {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start: {err}");
            return Exit::Failed.into();
        }
    };
    match runtime.block_on(commands::run(cli)) {
        Ok(exit) => exit.into(),
        Err(err) => {
            eprintln!("error: {}", err.to_string().trim_end());
            Exit::Failed.into()
        }
    }
}
