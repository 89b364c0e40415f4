//! What every agent's hook does: read the agent's JSON event, put a question to the person and
//! wait for it to be resolved, or withdraw it when the agent ends the hook first. A wait whose
//! connection is lost re-attaches to the same question (see
//! [`beckon_client::client::reattach`]), saying so on stderr: stdout is the agent's.

use std::io::Read;
use std::time::Duration;

use beckon_agents::notice::NoticeChange;
use beckon_api::views::QuestionView;
use beckon_client::GatewayClient;
use beckon_client::client::reattach::{Relocating, Wait};
use serde_json::Value;

use crate::cli::Connection;
use crate::error::{CliError, CliResult};
use crate::signals::Signals;

/// The reason a question is withdrawn with when the agent ends the hook (its own prompt was
/// answered first).
pub const ANSWERED_IN_TERMINAL: &str = "answered in the terminal";

/// Largest hook input read (a file write's content can be large; Beckon bounds it further).
const INPUT_MAX_BYTES: u64 = 4 * 1024 * 1024;
/// How long one long-poll waits.
const POLL: Duration = Duration::from_secs(60);

/// How a question put to the person ended.
#[derive(Debug)]
pub enum Put {
    /// It was resolved (answered, declined, expired, cancelled): its view, as
    /// `GET /v1/questions/{id}` returns it.
    Resolved(Box<QuestionView>),
    /// The agent ended the hook first (its own prompt was answered); the question was withdrawn.
    Withdrawn,
}

/// Reads the hook's JSON event from stdin.
pub fn read_event() -> CliResult<Value> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(INPUT_MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| CliError::Io(format!("cannot read the hook's input: {err}")))?;
    if bytes.len() as u64 > INPUT_MAX_BYTES {
        return Err(CliError::Input(format!("the hook's input is larger than {INPUT_MAX_BYTES} bytes")));
    }
    serde_json::from_slice(&bytes).map_err(|err| CliError::Input(format!("the hook's input is not JSON: {err}")))
}

/// Asks `body` (a `POST /v1/questions` body) through `client`, found through `connection`, and
/// waits until it is resolved; when `signals` says the agent ended the hook first, withdraws it
/// as answered in the terminal.
pub async fn put(
    connection: &Connection,
    client: &GatewayClient,
    body: &Value,
    signals: &mut Signals,
) -> CliResult<Put> {
    let created = client.ask(body).await?;
    let id = created.request_id.to_string();
    let wait = Wait::until_resolved(&created, POLL, beckon_client::now_ms(), std::time::Instant::now());
    let waiter = Relocating::new(connection.locator(), client.clone());
    tokio::select! {
        view = waiter.wait_on(&id, wait, |notice| eprintln!("beckon hook: {notice}")) => {
            view.map(|view| Put::Resolved(Box::new(view))).map_err(CliError::from)
        }
        _ = signals.stopped() => {
            let client = waiter.client();
            client.cancel(&id, ANSWERED_IN_TERMINAL).await.map_err(|source| CliError::Withdraw { id: id.clone(), source })?;
            Ok(Put::Withdrawn)
        }
    }
}

/// Shows or clears a session's notice.
pub async fn change_notice(client: &GatewayClient, change: &NoticeChange) -> CliResult<()> {
    let done = match change {
        NoticeChange::Post { key, body } => client.post_notice(key, body).await.map(|_| ()),
        NoticeChange::Clear { key } => client.clear_notice(key).await.map(|_| ()),
    };
    done.map_err(CliError::Notice)
}
