//! `beckon hook copilot`: Copilot CLI's `permissionRequest` hook, which puts Copilot's
//! permission requests to the person as Beckon approvals. Copilot waits for it before asking
//! in its terminal; when Beckon is not running, refuses the question, or the approval ends
//! without a decision, it prints nothing and Copilot's own prompt decides. If Copilot ends the
//! hook, the question is withdrawn.

use beckon_agents::copilot::hook::{self as copilot, Asked};

use super::put::{Put, put, read_event};
use crate::cli::Connection;
use crate::signals::Signals;

/// Runs `beckon hook copilot`.
pub async fn run(connection: &Connection) -> Result<(), String> {
    // Listen first, so that Copilot ending the hook at any moment after the question exists
    // withdraws it.
    let mut signals = Signals::listen_with_hangup().map_err(|err| format!("cannot listen for signals: {err}"))?;
    let event = read_event()?;
    let body = match copilot::ask(&event) {
        None => return Ok(()),
        Some(Asked::OwnTool) => {
            println!("{}", copilot::allow());
            return Ok(());
        }
        Some(Asked::Approval(body)) => body,
    };
    let client = connection.client().map_err(|err| err.to_string())?;
    if let Put::Resolved(view) = put(&client, &body, &mut signals).await?
        && let Some(output) = copilot::reply(&view)
    {
        println!("{output}");
    }
    Ok(())
}
