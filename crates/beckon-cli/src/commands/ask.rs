//! `beckon ask`: puts a question to the person, waits (long-polling the gateway) until it is
//! resolved, prints the answer. Ctrl-C withdraws the question (it ends cancelled). When the
//! connection to Beckon is lost while it waits (a replica died, the app restarted), it
//! re-attaches to the same question until a minute past the question's deadline, if it has one;
//! the question is never asked twice.

use std::io::{IsTerminal, Read};
use std::path::Path;
use std::time::Duration;

use beckon_core::QuestionRequest;

use beckon_api::views::{QuestionCreated, QuestionView};
use beckon_client::client::reattach::{Relocating, Wait};
use serde_json::{Value, json};

use crate::cli::{AskArgs, Connection};
use crate::error::{CliError, CliResult, Exit};
use crate::output;
use crate::signals::Signals;

/// How long one long-poll is held (the gateway's maximum).
const POLL: Duration = Duration::from_secs(120);
/// The reason given when Ctrl-C withdraws a question.
pub const WITHDRAWN: &str = "withdrawn by the asking script";

/// The most `--input` may hold, in bytes: twice a request's limit, so that an input over the
/// limit is refused by the request's own check, which says by how much.
const INPUT_MAX_BYTES: u64 = 2 * beckon_core::limits::REQUEST_MAX_BYTES as u64;

/// The `POST /v1/questions` body for the arguments.
fn body(args: &AskArgs) -> CliResult<Value> {
    let questions = match &args.input {
        Some(path) => read_input(path)?.to_value(),
        None => json!([one_question(args)?]),
    };
    let mut body = json!({"agent": args.agent, "questions": questions});
    if let Some(key) = &args.session_key {
        body["session_key"] = json!(key);
    }
    if let Some(timeout) = &args.timeout {
        body["timeout"] = json!(timeout);
    }
    Ok(body)
}

/// The question given as arguments: a choice with `-o LABEL` (and `-d DESCRIPTION`), else
/// free text.
fn one_question(args: &AskArgs) -> CliResult<Value> {
    let mut item = json!({"question": args.question.clone().unwrap_or_default()});
    if let Some(header) = &args.header {
        item["header"] = json!(header);
    }
    if args.options.is_empty() {
        item["schema"] = json!({"type": "string"});
    } else {
        if args.descriptions.len() > args.options.len() {
            return Err(CliError::Input(format!(
                "{} descriptions for {} options: give at most one --description per --option",
                args.descriptions.len(),
                args.options.len()
            )));
        }
        item["options"] = args
            .options
            .iter()
            .enumerate()
            .map(|(i, label)| match args.descriptions.get(i).filter(|d| !d.is_empty()) {
                Some(description) => json!({"label": label, "description": description}),
                None => json!({"label": label}),
            })
            .collect();
        item["multiSelect"] = json!(args.multi);
    }
    Ok(item)
}

/// Reads and checks `--input`: a whole AskUserQuestion input from a file, or stdin for `-`.
fn read_input(path: &Path) -> CliResult<QuestionRequest> {
    let from_stdin = path == Path::new("-");
    let name = if from_stdin { "stdin".to_owned() } else { path.display().to_string() };
    let cannot = |err: std::io::Error| CliError::Io(format!("cannot read the question from {name}: {err}"));
    let mut bytes = Vec::new();
    if from_stdin {
        std::io::stdin().lock().take(INPUT_MAX_BYTES + 1).read_to_end(&mut bytes).map_err(cannot)?;
    } else {
        std::fs::File::open(path).map_err(cannot)?.take(INPUT_MAX_BYTES + 1).read_to_end(&mut bytes).map_err(cannot)?;
    }
    if bytes.len() as u64 > INPUT_MAX_BYTES {
        return Err(CliError::Input(format!(
            "{name} holds more than {INPUT_MAX_BYTES} bytes; a question is far smaller"
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| CliError::Input(format!("{name} is not UTF-8 text")))?;
    QuestionRequest::parse_str(&text)
        .map_err(|problems| CliError::Input(format!("{name} is not a question Beckon can ask:\n{problems}")))
}

async fn until_resolved(waiter: &Relocating, created: &QuestionCreated, id: &str) -> CliResult<QuestionView> {
    let wait = Wait::until_resolved(created, POLL, beckon_client::now_ms(), std::time::Instant::now());
    Ok(waiter.wait_on(id, wait, |notice| eprintln!("beckon ask: {notice}")).await?)
}

/// Runs `beckon ask`.
pub async fn run(connection: &Connection, args: AskArgs) -> CliResult<Exit> {
    let client = connection.client()?;
    // Listen before asking, so a Ctrl-C at any moment after the question exists withdraws it.
    let mut signals = Signals::listen().map_err(|err| CliError::Io(format!("cannot listen for Ctrl-C: {err}")))?;
    let created = client.ask(&body(&args)?).await?;
    let id = created.request_id.to_string();
    if std::io::stderr().is_terminal() {
        eprintln!("Waiting for an answer to {id} (Ctrl-C withdraws the question)…");
    }
    let waiter = Relocating::new(connection.locator(), client);
    tokio::select! {
        view = until_resolved(&waiter, &created, &id) => {
            let shown = if args.json { output::Shown::Result } else { output::Shown::Answer };
            Ok(output::resolution(&view?, shown))
        }
        () = signals.interrupted() => {
            // The asker went away: the question is withdrawn as cancelled, as a hook withdraws
            // one answered in the terminal, and never recorded as the person's decline.
            match waiter.client().cancel(&id, WITHDRAWN).await {
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
    fn descriptions_go_to_the_options_in_order() {
        let asked =
            body(&args(&["beckon", "ask", "Q?", "-o", "a=b", "-o", "B", "-o", "C", "-d", "", "-d", "bee"])).unwrap();
        assert_eq!(
            asked["questions"][0]["options"],
            json!([{"label": "a=b"}, {"label": "B", "description": "bee"}, {"label": "C"}])
        );
        let err = body(&args(&["beckon", "ask", "Q?", "-o", "A", "-d", "x", "-d", "y"])).unwrap_err();
        assert_eq!(err.to_string(), "2 descriptions for 1 options: give at most one --description per --option");
    }

    #[test]
    fn options_make_a_choice_question_and_none_a_free_text_one() {
        let choice = body(&args(&[
            "beckon",
            "ask",
            "Deploy?",
            "-o",
            "Yes",
            "-d",
            "Ship it",
            "-o",
            "No",
            "--multi",
            "--timeout",
            "2h",
        ]))
        .unwrap();
        assert_eq!(
            choice,
            json!({"agent": "cli", "timeout": "2h", "questions": [{"question": "Deploy?", "multiSelect": true,
                "options": [{"label": "Yes", "description": "Ship it"}, {"label": "No"}]}]})
        );
        let free = body(&args(&["beckon", "ask", "Why?", "--header", "Reason", "--session-key", "run-1"])).unwrap();
        assert_eq!(
            free,
            json!({"agent": "cli", "session_key": "run-1",
                "questions": [{"question": "Why?", "header": "Reason", "schema": {"type": "string"}}]})
        );
    }
}
