//! `beckon`: see the crate's documentation. Every command runs on this thread alone, without
//! starting workers it would not use: a hook runs on every tool call of every agent.

use std::process::ExitCode;

use beckon_cli::cli::Cli;
use beckon_cli::error::Exit;
use clap::Parser;

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
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start: {err}");
            return Exit::Failed.into();
        }
    };
    match runtime.block_on(beckon_cli::run(cli)) {
        Ok(exit) => exit.into(),
        Err(err) => {
            eprintln!("error: {}", err.to_string().trim_end());
            Exit::Failed.into()
        }
    }
}
