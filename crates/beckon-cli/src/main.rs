//! `beckon`: see the crate's documentation. Every command runs on this thread alone, without
//! starting workers it would not use: a hook runs on every tool call of every agent.

use std::process::ExitCode;

use beckon_cli::cli::Cli;
use beckon_cli::process;

fn main() -> ExitCode {
    let cli = match process::parse::<Cli>() {
        Ok(cli) => cli,
        Err(exit) => return exit.into(),
    };
    process::run(tokio::runtime::Builder::new_current_thread().enable_all().build(), beckon_cli::run(cli))
}
