//! How `beckon` and `beckon-server` start and end: a usage error exits 1, never 2 (which
//! `beckon ask` means as "declined": a script must not take a typo, or an argument that is not
//! UTF-8, for a person's decision), and a failure is one line on stderr.

use std::fmt::Display;
use std::future::Future;
use std::process::ExitCode;

use crate::error::Exit;

/// The command line, or how the process exits when it cannot be read (having printed why, or
/// the help or version asked for).
pub fn parse<C: clap::Parser>() -> Result<C, Exit> {
    C::try_parse().map_err(|err| {
        let _ = err.print();
        if err.use_stderr() { Exit::Failed } else { Exit::Success }
    })
}

/// Runs `command` to its end on `runtime`: its exit code, or 1 with its error on stderr.
pub fn run<E: Display>(
    runtime: std::io::Result<tokio::runtime::Runtime>,
    command: impl Future<Output = Result<Exit, E>>,
) -> ExitCode {
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start: {err}");
            return Exit::Failed.into();
        }
    };
    match runtime.block_on(command) {
        Ok(exit) => exit.into(),
        Err(err) => {
            eprintln!("error: {}", err.to_string().trim_end());
            Exit::Failed.into()
        }
    }
}
