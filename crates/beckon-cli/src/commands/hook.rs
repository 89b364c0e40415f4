//! `beckon hook claude-code`: a Claude Code hook that puts Claude Code's own prompts to the
//! person through Beckon.
//!
//! It never holds Claude Code hostage: when Beckon is not running, refuses the question, or
//! anything else goes wrong, it prints nothing and exits 0, and Claude Code's terminal dialog
//! decides. Claude Code shows that dialog at the same time; when the person answers there
//! first, Claude Code ends this hook, which then withdraws its question from Beckon as
//! "answered in the terminal".
//!
//! When Claude Code waits at its own prompt, the hook tells the person with a notice naming
//! the project; the session going on (a prompt submitted, a tool run, the session ended) takes
//! it away.

use std::io::Read;
use std::time::Duration;

use beckon_claude_code::hook as claude_code;
use beckon_claude_code::waiting::{self, NoticeChange};
use beckon_gateway::GatewayClient;
use serde_json::Value;

use crate::cli::{Connection, HookArgs, HookTarget};
use crate::error::{CliResult, Exit};
use crate::signals::Signals;

/// Largest hook input read (a Write's content can be large; Beckon bounds it further).
const INPUT_MAX_BYTES: u64 = 4 * 1024 * 1024;
/// How long one long-poll waits.
const POLL: Duration = Duration::from_secs(60);
/// The reason a question is withdrawn with when Claude Code ends the hook.
pub const ANSWERED_IN_TERMINAL: &str = "answered in the terminal";

/// Runs `beckon hook <target>`.
pub async fn run(connection: &Connection, args: HookArgs) -> CliResult<Exit> {
    match args.target {
        HookTarget::ClaudeCode => {
            if let Err(why) = claude_code_hook(connection).await {
                // Claude Code shows a hook's stderr in its verbose mode; its dialog decides.
                eprintln!("beckon hook: {why}; leaving this prompt to Claude Code");
            }
            Ok(Exit::Success)
        }
    }
}

async fn claude_code_hook(connection: &Connection) -> Result<(), String> {
    // Listen first, so that Claude Code ending the hook at any moment after the question
    // exists withdraws it.
    let mut signals = Signals::listen_with_hangup().map_err(|err| format!("cannot listen for signals: {err}"))?;
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
        (Err(err), Some(_)) => return Err(err.to_string()),
    };
    if let Some(change) = change {
        // A notice is a courtesy: failing to change it must not stop what follows.
        if let Err(why) = change_notice(&client, change).await {
            eprintln!("beckon hook: {why}");
        }
    }
    if settled {
        return withdraw_settled(&client, &event).await;
    }
    let Some((body, pending)) = asked else { return Ok(()) };
    let created = client.ask(&body).await.map_err(|err| err.to_string())?;
    let id = created["request_id"].as_str().ok_or("Beckon's reply has no request_id")?.to_owned();
    tokio::select! {
        view = until_resolved(&client, &id) => {
            if let Some(output) = claude_code::reply(&pending, &view?) {
                println!("{output}");
            }
            Ok(())
        }
        _ = signals.stopped() => {
            client.cancel(&id, ANSWERED_IN_TERMINAL).await.map(|_| ()).map_err(|err| format!("cannot withdraw {id}: {err}"))
        }
    }
}

/// Shows or clears the session's notice.
async fn change_notice(client: &GatewayClient, change: NoticeChange) -> Result<(), String> {
    let done = match &change {
        NoticeChange::Post { key, body } => client.post_notice(key, body).await,
        NoticeChange::Clear { key } => client.clear_notice(key).await,
    };
    done.map(|_| ()).map_err(|err| format!("cannot change the notice: {err}"))
}

/// Withdraws the pending questions about a call that went on without Beckon.
async fn withdraw_settled(client: &GatewayClient, event: &Value) -> Result<(), String> {
    let pending = client.pending().await.map_err(|err| err.to_string())?;
    for view in pending.iter().filter(|view| claude_code::settles(event, view)) {
        let Some(id) = view["request_id"].as_str() else { continue };
        client.cancel(id, ANSWERED_IN_TERMINAL).await.map_err(|err| format!("cannot withdraw {id}: {err}"))?;
    }
    Ok(())
}

fn read_event() -> Result<Value, String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(INPUT_MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| format!("cannot read the hook's input: {err}"))?;
    if bytes.len() as u64 > INPUT_MAX_BYTES {
        return Err(format!("the hook's input is larger than {INPUT_MAX_BYTES} bytes"));
    }
    serde_json::from_slice(&bytes).map_err(|err| format!("the hook's input is not JSON: {err}"))
}

async fn until_resolved(client: &GatewayClient, id: &str) -> Result<Value, String> {
    loop {
        let view = client.question(id, POLL).await.map_err(|err| err.to_string())?;
        if view["status"] != "pending" {
            return Ok(view);
        }
    }
}
