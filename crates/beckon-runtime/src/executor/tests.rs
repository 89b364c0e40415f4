//! The executor alone: a real store on a temporary file, a scripted agent, and its other
//! neighbours as plain channels (deadlines, streamed text, the stop signal); no runtime, no
//! service, no notifier.

use std::sync::Arc;
use std::time::Duration;

use beckon_core::conversation::{Event, Message, SessionStatus, State};
use beckon_core::{Answer, Answers, SessionOrigin};
use beckon_store::{NewSession, Store, StoredEvent};
use tokio::sync::{broadcast, mpsc};

use super::{Executor, Registry, deliver, first_turn};
use crate::agents::Agents;
use crate::clock::{ManualClock, new_session_id};
use crate::config::RuntimeConfig;
use crate::db::{AfterCommit, Db};
use crate::deadlines::Deadlines;
use crate::events::TextDelta;
use crate::lock::DataDirLock;
use crate::providers::ProviderSet;
use crate::public_url::PublicUrl;
use crate::stop::StopSignal;

/// Where the test's clock starts (2026-11-24, Unix ms).
const START_MS: i64 = 1_795_500_000_000;

struct Nothing;

impl AfterCommit for Nothing {
    fn committed(&self, _events: &[StoredEvent], _callbacks_queued: bool) {}
}

struct Rig {
    executor: Arc<Executor>,
    armed: mpsc::UnboundedReceiver<(i64, beckon_core::RequestId)>,
    text: broadcast::Receiver<TextDelta>,
    _signal: StopSignal,
    _dir: tempfile::TempDir,
}

fn rig() -> Rig {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("asker.md"),
        "---\nname: asker\nprovider: scripted\nscript: asker.json\nquestion_timeout: 1h\n---\nAsk.\n",
    )
    .unwrap();
    let turns = serde_json::json!({"turns": [
        {"text": "Checking with you.", "tool_calls": [{"name": "ask_user_question", "input": {"questions": [
            {"question": "Proceed?", "header": "Go", "multiSelect": false,
             "options": [{"label": "Yes", "description": "Go on"}, {"label": "No", "description": "Stop"}]}]}}]},
        {"text": "outcome={{outcome}} answer={{answer:0}}"}
    ]});
    std::fs::write(agents.join("asker.json"), turns.to_string()).unwrap();
    let config = RuntimeConfig::new(dir.path());
    let db = Db::start(Store::open(config.database_path()).unwrap(), Arc::new(Nothing)).unwrap();
    let (deadlines, armed) = Deadlines::new();
    let (text, text_rx) = broadcast::channel(16);
    let signal = StopSignal::new();
    let clock: Arc<dyn crate::clock::Clock> = Arc::new(ManualClock::new(START_MS));
    let leases = crate::leases::Leases::new(db.clone(), clock.clone(), String::new(), config.lease, false);
    let executor = Arc::new(Executor {
        db,
        clock,
        agents: Agents::load(&config.agents_dir()),
        providers: std::sync::RwLock::new(ProviderSet::new(&config, &reqwest::Client::new())),
        http: reqwest::Client::new(),
        tasks: Registry::default(),
        deadlines,
        text,
        workspaces: config.workspaces_dir(),
        public_url: PublicUrl::default(),
        stop: signal.subscribe(),
        leases,
        _lock: Arc::new(DataDirLock::acquire(dir.path(), "executor test").unwrap()),
    });
    Rig { executor, armed, text: text_rx, _signal: signal, _dir: dir }
}

/// Writes a session of the asker in `state` with `messages`, as the service would.
async fn write_session(ex: &Executor, state: State, messages: Vec<Message>) -> beckon_core::SessionId {
    let session = new_session_id();
    let new = NewSession {
        id: session,
        agent: "asker".into(),
        origin: SessionOrigin::Chat,
        parent: None,
        external_key: None,
        title: "go".into(),
        state,
        payload: None,
        at_ms: START_MS,
    };
    ex.db
        .write(move |tx| {
            tx.start_session(&new)?;
            tx.append_messages(session, &messages, START_MS)
        })
        .await
        .unwrap();
    session
}

#[tokio::test]
async fn a_session_asks_arms_its_deadline_streams_its_text_and_resumes_into_the_answer() {
    let mut rig = rig();
    let ex = rig.executor.clone();
    let session = write_session(&ex, State::Idle, Vec::new()).await;
    deliver(&ex, session, Event::UserMessage { text: "go".into() }, None).await.unwrap();

    // The model's question: armed for an hour from the clock's now, its text streamed.
    let (at_ms, request_id) = tokio::time::timeout(Duration::from_secs(5), rig.armed.recv()).await.unwrap().unwrap();
    assert_eq!(at_ms, START_MS + 3_600_000);
    assert_eq!(rig.text.recv().await.unwrap().text, "Checking with you.");
    let question = ex.db.call(move |store| store.read().question(request_id)).await.unwrap().unwrap();
    assert_eq!(question.session_id, session);

    // Answered: the task started for it carries on from the conversation it reads once.
    let answers = Answers::new(vec![Answer::select(["Yes"])], &question.request).unwrap();
    let taken = deliver(&ex, session, Event::UserAnswered { request_id, answers }, None).await.unwrap();
    assert_eq!(taken.resolved.map(|resolved| resolved.id), Some(request_id));
    let finished = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let record = ex.db.call(move |store| store.read().session(session)).await.unwrap().unwrap();
            // The task ends when the session does: it leaves the registry after its last commit.
            if record.status == SessionStatus::Completed && ex.tasks.lock().mailbox(session).is_none() {
                return ex.db.call(move |store| store.read().timeline(session)).await.unwrap();
            }
            tokio::task::yield_now().await;
        }
    })
    .await
    .unwrap();
    let last = finished.last().map(|entry| entry.message.clone());
    assert_eq!(last, Some(Message::Assistant { text: "outcome=answered answer=Yes".into() }));
}

#[tokio::test]
async fn a_task_started_by_an_event_performs_what_its_state_still_owes() {
    // A session written as begin_session writes it (its first turn owed), whose first event
    // comes before anyone performs that turn: a person's message, which is refused while the
    // model has the turn. The task that starts for it asks the model anyway.
    let mut rig = rig();
    let ex = rig.executor.clone();
    let (state, messages) = first_turn("go".into()).expect("a first message is taken");
    let session = write_session(&ex, state, messages).await;
    let refused = deliver(&ex, session, Event::UserMessage { text: "and also".into() }, None).await;
    assert!(refused.is_err(), "a message while the model has the turn is refused");
    let (_, request_id) = tokio::time::timeout(Duration::from_secs(5), rig.armed.recv())
        .await
        .expect("the owed model turn ran and asked")
        .unwrap();
    let question = ex.db.call(move |store| store.read().question(request_id)).await.unwrap().unwrap();
    assert_eq!(question.session_id, session);
}
