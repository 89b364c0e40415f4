//! `beckon ask`: puts a question to the person, waits (long-polling the gateway) until it is
//! resolved, prints the answer. Ctrl-C withdraws the question.

use std::io::IsTerminal;
use std::time::Duration;

use beckon_gateway::GatewayClient;
use serde_json::{Value, json};

use crate::cli::{AskArgs, Connection};
use crate::error::{CliError, CliResult, Exit};
use crate::output;
use crate::signals::Signals;

/// How long one long-poll is held (the gateway's maximum).
const POLL: Duration = Duration::from_secs(120);
/// The reason given when Ctrl-C withdraws a question.
pub const WITHDRAWN: &str = "withdrawn by the asking script";

/// The `POST /v1/questions` body for the arguments.
fn body(args: &AskArgs) -> Value {
    let mut item = json!({"question": args.question});
    if let Some(header) = &args.header {
        item["header"] = json!(header);
    }
    if args.options.is_empty() {
        item["schema"] = json!({"type": "string"});
    } else {
        item["options"] = args.options.iter().map(|label| json!({"label": label})).collect();
        item["multiSelect"] = json!(args.multi);
    }
    let mut body = json!({"agent": args.agent, "questions": [item]});
    if let Some(key) = &args.session_key {
        body["session_key"] = json!(key);
    }
    if let Some(timeout) = &args.timeout {
        body["timeout"] = json!(timeout);
    }
    body
}

async fn until_resolved(client: &GatewayClient, id: &str) -> CliResult<Value> {
    loop {
        let view = client.question(id, POLL).await?;
        if view["status"] != "pending" {
            return Ok(view);
        }
    }
}

/// Runs `beckon ask`.
pub async fn run(connection: &Connection, args: AskArgs) -> CliResult<Exit> {
    let client = connection.client()?;
    // Listen before asking, so a Ctrl-C at any moment after the question exists withdraws it.
    let mut signals = Signals::listen().map_err(|err| CliError::Io(format!("cannot listen for Ctrl-C: {err}")))?;
    let created = client.ask(&body(&args)).await?;
    let id = created["request_id"]
        .as_str()
        .ok_or_else(|| CliError::Reply("the created question has no request_id".into()))?
        .to_owned();
    if std::io::stderr().is_terminal() {
        eprintln!("Waiting for an answer to {id} (Ctrl-C withdraws the question)…");
    }
    tokio::select! {
        view = until_resolved(&client, &id) => Ok(output::resolution(&view?, args.json)),
        () = signals.interrupted() => {
            match client.decline(&id, Some(WITHDRAWN)).await {
                Ok(_) => eprintln!("Withdrew question {id}"),
                Err(err) => eprintln!("Could not withdraw question {id}: {err}"),
            }
            Ok(Exit::Interrupted)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(line: &[&str]) -> AskArgs {
        match crate::cli::Cli::parse_from(line).command {
            crate::cli::Command::Ask(args) => args,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn options_make_a_choice_question_and_none_a_free_text_one() {
        let choice = body(&args(&["beckon", "ask", "Deploy?", "-o", "Yes", "-o", "No", "--multi", "--timeout", "2h"]));
        assert_eq!(
            choice,
            json!({"agent": "cli", "timeout": "2h", "questions": [{"question": "Deploy?", "multiSelect": true,
                "options": [{"label": "Yes"}, {"label": "No"}]}]})
        );
        let free = body(&args(&["beckon", "ask", "Why?", "--header", "Reason", "--session-key", "run-1"]));
        assert_eq!(
            free,
            json!({"agent": "cli", "session_key": "run-1",
                "questions": [{"question": "Why?", "header": "Reason", "schema": {"type": "string"}}]})
        );
    }
}
