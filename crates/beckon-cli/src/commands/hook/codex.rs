//! `beckon hook codex`: Codex's `PermissionRequest` hook, which puts Codex's permission requests
//! to the person as Beckon approvals. Codex waits for it before showing its own approval, so
//! the person answers in Beckon; when Beckon is not running, refuses the question, or the
//! approval ends without a decision, it prints nothing and Codex's own approval decides. If
//! Codex ends the hook (the session stops), the question is withdrawn.
//!
//! When the person interrupts the turn, Codex kills the waiting hook outright; the next prompt
//! they submit (the `UserPromptSubmit` hook) withdraws that session's approvals still pending.

use beckon_agents::codex::hook::{self as codex, Asked};
use beckon_client::GatewayClient;

use super::put::{Put, put, read_event};
use crate::cli::Connection;
use crate::error::{CliError, CliResult};
use crate::signals::Signals;

/// Runs `beckon hook codex`.
pub async fn run(connection: &Connection) -> CliResult<()> {
    // Listen first, so that Codex ending the hook at any moment after the question exists
    // withdraws it.
    let mut signals =
        Signals::listen_with_hangup().map_err(|err| CliError::Io(format!("cannot listen for signals: {err}")))?;
    let event = read_event()?;
    if let Some(session) = codex::went_on(&event) {
        // No Beckon: nothing to withdraw.
        let Ok(client) = connection.client() else { return Ok(()) };
        return withdraw_given_up(&client, session).await;
    }
    let body = match codex::ask(&event) {
        None => return Ok(()),
        Some(Asked::OwnTool) => {
            println!("{}", codex::allow());
            return Ok(());
        }
        Some(Asked::Approval(body)) => body,
    };
    let client = connection.client()?;
    if let Put::Resolved(view) = put(connection, &client, &body, &mut signals).await?
        && let Some(output) = codex::reply(&view)
    {
        println!("{output}");
    }
    Ok(())
}

/// The reason a question is withdrawn with when the person went on at Codex's prompt.
const WENT_ON: &str = "the person went on in Codex";

/// Withdraws `session`'s approvals still pending: Codex gave up waiting for them.
async fn withdraw_given_up(client: &GatewayClient, session: &str) -> CliResult<()> {
    let pending = client.pending().await?;
    for view in pending.iter().filter(|view| codex::settles(session, view)) {
        let id = view.request_id.to_string();
        client.cancel(&id, WENT_ON).await.map_err(|source| CliError::Withdraw { id: id.clone(), source })?;
    }
    Ok(())
}
