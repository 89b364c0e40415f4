//! `beckon hook copilot`: Copilot CLI's `permissionRequest` hook, which puts Copilot's
//! permission requests to the person as Beckon approvals. Copilot waits for it before asking
//! in its terminal; when Beckon is not running, refuses the question, or the approval ends
//! without a decision, it prints nothing and Copilot's own prompt decides. If Copilot ends the
//! hook, the question is withdrawn.
//!
//! When the person interrupts the turn, Copilot kills the waiting hook outright; the next prompt
//! they submit, or the session's end, withdraws that session's approvals still pending.

use beckon_agents::copilot::hook::{self as copilot, Asked};
use beckon_client::GatewayClient;

use super::put::{Put, put, read_event};
use crate::cli::Connection;
use crate::error::{CliError, CliResult};
use crate::signals::Signals;

/// Runs `beckon hook copilot`.
pub async fn run(connection: &Connection) -> CliResult<()> {
    // Listen first, so that Copilot ending the hook at any moment after the question exists
    // withdraws it.
    let mut signals =
        Signals::listen_with_hangup().map_err(|err| CliError::Io(format!("cannot listen for signals: {err}")))?;
    let event = read_event()?;
    if let Some(session) = copilot::went_on(&event) {
        // No Beckon: nothing to withdraw.
        let Ok(client) = connection.client() else { return Ok(()) };
        return withdraw_given_up(&client, session).await;
    }
    let body = match copilot::ask(&event) {
        None => return Ok(()),
        Some(Asked::OwnTool) => {
            println!("{}", copilot::allow());
            return Ok(());
        }
        Some(Asked::Approval(body)) => body,
    };
    let client = connection.client()?;
    if let Put::Resolved(view) = put(connection, &client, &body, &mut signals).await?
        && let Some(output) = copilot::reply(&view)
    {
        println!("{output}");
    }
    Ok(())
}

/// The reason a question is withdrawn with when the person went on at Copilot's prompt.
const WENT_ON: &str = "the person went on in Copilot CLI";

/// Withdraws `session`'s approvals still pending: Copilot gave up waiting for them.
async fn withdraw_given_up(client: &GatewayClient, session: &str) -> CliResult<()> {
    let pending = client.pending().await?;
    for view in pending.iter().filter(|view| copilot::settles(session, view)) {
        let id = view.request_id.to_string();
        client.cancel(&id, WENT_ON).await.map_err(|source| CliError::Withdraw { id: id.clone(), source })?;
    }
    Ok(())
}
