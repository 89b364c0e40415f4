//! Performs ask/resolve cycles on the database named by its argument until it is killed,
//! printing a line after each commit returns — what it prints is acknowledged as saved.
//!
//! `asked <session> <question>` after an ask; `resolved <question> <label>` after a resolve.
//! Every third question is left pending.

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use beckon_core::conversation::{Origin, State};
use beckon_core::{Answer, AnsweredVia, Answers, Outcome, QuestionRequest, RequestId, SessionId, SessionOrigin};
use beckon_store::{NewQuestion, NewSession, Resolution, Store};
use serde_json::json;

fn main() {
    if let Err(err) = run() {
        eprintln!("crash worker: {err}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: beckon-store-crash-worker <db>")?;
    let mut store = Store::open(&path)?;
    let request = QuestionRequest::parse(&json!({"questions": [
        {"question": "Which style?", "header": "Style", "options": [{"label": "Haiku"}, {"label": "Sonnet"}, {"label": "Ode"}]}
    ]}))?;
    let stdout = std::io::stdout();
    let epoch = SystemTime::now().duration_since(UNIX_EPOCH)?;
    let (base, pid) = (epoch.as_nanos(), u128::from(std::process::id()));
    for n in 0u128.. {
        let session = SessionId::from_uuid(uuid::Uuid::from_u128((base << 32) ^ (pid << 96) ^ (n << 1)));
        let question = RequestId::from_uuid(uuid::Uuid::from_u128((base << 32) ^ (pid << 96) ^ (n << 1) ^ 1));
        let at = epoch.as_millis() as i64 + n as i64;
        store.write(|tx| {
            tx.start_session(&NewSession {
                id: session,
                agent: "poet".into(),
                origin: SessionOrigin::Chat,
                parent: None,
                external_key: None,
                title: format!("cycle {n}"),
                state: State::Idle,
                payload: None,
                at_ms: at,
            })?;
            tx.save_state(session, &State::LlmRequesting { attempt: 1 }, at)?;
            tx.ask(&NewQuestion {
                id: question,
                session_id: session,
                tool_use_id: format!("toolu_{n}"),
                agent: "poet".into(),
                origin: Origin::agent("poet"),
                request: request.clone(),
                callback_url: None,
                expires_at_ms: None,
                expiry_policy: None,
                at_ms: at,
                callbacks: vec![],
            })
        })?;
        writeln!(stdout.lock(), "asked {session} {question}")?;
        if n % 3 == 2 {
            continue;
        }
        let label = ["Haiku", "Sonnet", "Ode"][(n % 3) as usize];
        let answers = Answers::new(vec![Answer::select([label])], &request)?;
        store.write(|tx| {
            tx.resolve(&Resolution {
                request_id: question,
                outcome: Outcome::Answered { answers },
                via: Some(AnsweredVia::Window),
                at_ms: at + 1,
                session_status: None,
                callbacks: vec![],
            })?;
            tx.save_state(session, &State::Completed, at + 1)
        })?;
        writeln!(stdout.lock(), "resolved {question} {label}")?;
    }
    Ok(())
}
