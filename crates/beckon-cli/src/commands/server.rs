//! The commands `beckon-server` runs (`serve`, `mcp`, and reading the callback secret from the
//! database): handed over to it, so that this binary, run by every hook on every tool call,
//! links no HTTP server, MCP, sign-in or database code. `beckon-server` is installed beside
//! `beckon` and reads the same command line.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

use crate::error::{CliError, CliResult, Exit};

/// The binary's name.
const SERVER: &str = "beckon-server";

/// `beckon-server` beside this binary, else whichever one `PATH` finds.
fn server_binary() -> PathBuf {
    let name = format!("{SERVER}{}", std::env::consts::EXE_SUFFIX);
    let beside = std::env::current_exe().ok().and_then(|exe| exe.parent().map(|dir| dir.join(&name)));
    beside.filter(|path| path.is_file()).unwrap_or_else(|| PathBuf::from(name))
}

/// Runs `beckon-server` with `args` in place of this process (where the platform allows; it
/// waits for it and exits as it did elsewhere): its output, signals and exit code are the
/// command's own.
pub fn hand_over(args: impl IntoIterator<Item = OsString>) -> CliResult<Exit> {
    let binary = server_binary();
    let mut command = Command::new(&binary);
    command.args(args);
    let failed = |err: std::io::Error| {
        CliError::Io(format!(
            "cannot run {} ({err}); it serves this command and is installed beside beckon — install \
             Beckon's package, or build it with `cargo build -p beckon-server`",
            binary.display()
        ))
    };
    run(command).map_err(failed)
}

#[cfg(unix)]
fn run(mut command: Command) -> std::io::Result<Exit> {
    use std::os::unix::process::CommandExt;
    // Only returns when the program could not be started.
    Err(command.exec())
}

#[cfg(not(unix))]
fn run(mut command: Command) -> std::io::Result<Exit> {
    let status = command.status()?;
    Ok(Exit::HandedOver(status.code().and_then(|code| u8::try_from(code).ok()).unwrap_or(1)))
}
