//! Performs ask/resolve cycles on the database named by its argument until it is killed,
//! printing a line after each commit returns — what it prints is acknowledged as saved.
//!
//! `asked <session> <question>` after an ask; `resolved <question> <label>` after a resolve.
//! Every third question is left pending.
//!
//! With `group` after the path, cycles run in group commits: eight asks at a time, one of
//! which fails after writing (printed as `failed <question>` once the group commits: it must
//! never be found), then their resolutions together.

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use beckon_core::conversation::{Origin, State};
use beckon_core::{Answer, AnsweredVia, Answers, Outcome, QuestionRequest, RequestId, SessionId, SessionOrigin};
use beckon_store::{NewQuestion, NewSession, Resolution, Store, Tx};
use serde_json::json;

fn main() {
    if let Err(err) = run() {
        eprintln!("crash worker: {err}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: beckon-store-crash-worker <db> [group]")?;
    let grouped = std::env::args().nth(2).as_deref() == Some("group");
    let mut store = Store::open(&path)?;
    let request = QuestionRequest::parse(&json!({"questions": [
        {"question": "Which style?", "header": "Style", "options": [{"label": "Haiku"}, {"label": "Sonnet"}, {"label": "Ode"}]}
    ]}))?;
    let epoch = SystemTime::now().duration_since(UNIX_EPOCH)?;
    let (base, pid) = (epoch.as_nanos(), u128::from(std::process::id()));
    let cycle = |n: u128| Cycle {
        n,
        session: SessionId::from_uuid(uuid::Uuid::from_u128((base << 32) ^ (pid << 96) ^ (n << 1))),
        question: RequestId::from_uuid(uuid::Uuid::from_u128((base << 32) ^ (pid << 96) ^ (n << 1) ^ 1)),
        at: epoch.as_millis() as i64 + n as i64,
    };
    if grouped {
        for first in (0u128..).step_by(8) {
            let mut asks: Vec<Cycle> = (first..first + 8).map(cycle).collect();
            let outcomes = store.write_group(&mut asks, |c, tx| {
                ask(tx, c, &request)?;
                if c.n % 8 == 5 {
                    return Err(beckon_store::Error::TooLarge { what: "a doomed write", size: 1, limit: 0 });
                }
                Ok(())
            });
            let mut resolving = Vec::new();
            for (c, outcome) in asks.into_iter().zip(outcomes) {
                match outcome {
                    Ok(_) => {
                        say(&format!("asked {} {}", c.session, c.question))?;
                        if c.n % 3 != 2 {
                            resolving.push(c);
                        }
                    }
                    Err(beckon_store::Error::TooLarge { .. }) => say(&format!("failed {}", c.question))?,
                    Err(err) => return Err(err.into()),
                }
            }
            let outcomes = store.write_group(&mut resolving, |c, tx| resolve(tx, c, &request));
            for (c, outcome) in resolving.iter().zip(outcomes) {
                outcome?;
                say(&format!("resolved {} {}", c.question, label(c.n)))?;
            }
        }
    } else {
        for n in 0u128.. {
            let c = cycle(n);
            store.write(|tx| ask(tx, &c, &request))?;
            say(&format!("asked {} {}", c.session, c.question))?;
            if n % 3 == 2 {
                continue;
            }
            store.write(|tx| resolve(tx, &c, &request))?;
            say(&format!("resolved {} {}", c.question, label(n)))?;
        }
    }
    Ok(())
}

/// One ask/resolve cycle's ids and time.
struct Cycle {
    n: u128,
    session: SessionId,
    question: RequestId,
    at: i64,
}

fn label(n: u128) -> &'static str {
    ["Haiku", "Sonnet", "Ode"][(n % 3) as usize]
}

fn say(line: &str) -> std::io::Result<()> {
    writeln!(std::io::stdout().lock(), "{line}")
}

fn ask(tx: &mut Tx<'_>, c: &Cycle, request: &QuestionRequest) -> beckon_store::Result<()> {
    tx.start_session(&NewSession {
        id: c.session,
        agent: "poet".into(),
        origin: SessionOrigin::Chat,
        parent: None,
        external_key: None,
        title: format!("cycle {}", c.n),
        state: State::Idle,
        payload: None,
        at_ms: c.at,
    })?;
    tx.save_state(c.session, &State::LlmRequesting { attempt: 1 }, c.at)?;
    tx.ask(&NewQuestion {
        id: c.question,
        session_id: c.session,
        tool_use_id: format!("toolu_{}", c.n),
        agent: "poet".into(),
        origin: Origin::agent("poet"),
        request: request.clone(),
        callback_url: None,
        expires_at_ms: None,
        expiry_policy: None,
        at_ms: c.at,
        callbacks: vec![],
    })
}

fn resolve(tx: &mut Tx<'_>, c: &Cycle, request: &QuestionRequest) -> beckon_store::Result<()> {
    let answers = Answers::new(vec![Answer::select([label(c.n)])], request)
        .map_err(|err| beckon_store::Error::GroupFailed(format!("the test answer does not fit: {err:?}")))?;
    tx.resolve(&Resolution {
        request_id: c.question,
        outcome: Outcome::Answered { answers },
        via: Some(AnsweredVia::Window),
        by: None,
        at_ms: c.at + 1,
        session_status: None,
        callbacks: vec![],
    })?;
    tx.save_state(c.session, &State::Completed, c.at + 1)
}
