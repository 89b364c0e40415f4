//! `beckon hook claude-code`: a Claude Code hook that puts Claude Code's own prompts to the
//! person through Beckon. When anything goes wrong it prints nothing, and Claude Code's terminal
//! dialog decides. Claude Code shows that dialog at the same time; when the person answers there
//! first, Claude Code ends this hook, which then withdraws its question from Beckon as
//! "answered in the terminal".
//!
//! When Claude Code waits at its own prompt, the hook tells the person with a notice naming
//! the project; the session going on (a prompt submitted, a tool run, the session ended) takes
//! it away.

use beckon_agents::claude_code::hook as claude_code;
use beckon_agents::claude_code::waiting;
use beckon_api::ErrorKind;
use beckon_client::GatewayClient;
use serde_json::Value;

use super::put::{ANSWERED_IN_TERMINAL, Put, change_notice, put, read_event};
use crate::cli::Connection;
use crate::error::{CliError, CliResult};
use crate::signals::Signals;

/// Runs `beckon hook claude-code`.
pub async fn run(connection: &Connection) -> CliResult<()> {
    // Listen first, so that Claude Code ending the hook at any moment after the question
    // exists withdraws it.
    let mut signals =
        Signals::listen_with_hangup().map_err(|err| CliError::Io(format!("cannot listen for signals: {err}")))?;
    let event = read_event()?;
    let change = waiting::notice_change(&event);
    let settled = claude_code::is_settled_elsewhere(&event);
    let asked = claude_code::ask(&event);
    if change.is_none() && !settled && asked.is_none() {
        return Ok(());
    }
    let client = match (connection.client(), &asked) {
        (Ok(client), _) => client,
        // No Beckon: nobody to tell and nothing to withdraw.
        (Err(_), None) => return Ok(()),
        (Err(err), Some(_)) => return Err(err.into()),
    };
    if let Some(change) = change {
        // A notice is a courtesy: failing to change it must not stop what follows.
        if let Err(why) = change_notice(&client, &change).await {
            eprintln!("beckon hook: {why}");
        }
    }
    if settled {
        return withdraw_settled(&client, &event).await;
    }
    let Some((body, pending)) = asked else { return Ok(()) };
    if let Put::Resolved(view) = put(connection, &client, &body, &mut signals).await?
        && let Some(output) = claude_code::reply(&pending, &view)
    {
        println!("{output}");
    }
    Ok(())
}

/// Withdraws the pending questions about a call that went on without Beckon.
async fn withdraw_settled(client: &GatewayClient, event: &Value) -> CliResult<()> {
    let pending = match client.pending().await {
        Ok(pending) => pending,
        // An ask-only token (an agent on another machine) lists nothing: its question, if the
        // terminal answered it, is withdrawn when Claude Code ends the hook that waits on it.
        Err(err) if err.kind() == Some(ErrorKind::Forbidden) => return Ok(()),
        Err(err) => return Err(err.into()),
    };
    for view in pending.iter().filter(|view| claude_code::settles(event, view)) {
        let id = view.request_id.to_string();
        client
            .cancel(&id, ANSWERED_IN_TERMINAL)
            .await
            .map_err(|source| CliError::Withdraw { id: id.clone(), source })?;
    }
    Ok(())
}
