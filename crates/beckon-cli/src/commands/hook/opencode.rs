//! `beckon hook opencode`: run by Beckon's OpenCode plugin for each permission prompt and
//! question OpenCode asks, with the event on stdin. It puts the prompt to the person through
//! Beckon and prints the reply the plugin posts to OpenCode; when anything goes wrong it prints
//! nothing, and OpenCode's own prompt decides. That prompt stays open meanwhile: when the
//! person answers there first, the plugin stops this hook (SIGTERM), which then withdraws its
//! question from Beckon as "answered in the terminal".

use std::io::Write;

use beckon_agents::opencode::hook as opencode;

use super::put::{Put, put, read_event};
use crate::cli::Connection;
use crate::error::{CliError, CliResult};
use crate::signals::Signals;

/// Runs `beckon hook opencode`.
pub async fn run(connection: &Connection) -> CliResult<()> {
    // Listen first, so that the plugin stopping the hook at any moment after the question
    // exists withdraws it.
    let mut signals =
        Signals::listen_with_hangup().map_err(|err| CliError::Io(format!("cannot listen for signals: {err}")))?;
    let event = read_event()?;
    let Some((body, pending)) = opencode::ask(&event) else { return Ok(()) };
    let client = connection.client()?;
    if let Put::Resolved(view) = put(connection, &client, &body, &mut signals).await?
        && let Some(reply) = opencode::reply(pending, &view)
    {
        // The plugin may be gone (OpenCode quit); then nobody reads this.
        let mut out = std::io::stdout().lock();
        writeln!(out, "{reply}")
            .and_then(|()| out.flush())
            .map_err(|err| CliError::Io(format!("cannot print the reply: {err}")))?;
    }
    Ok(())
}
