//! Every store operation against a real database file.

use beckon_core::conversation::{ExpiryPolicy, Message, Origin, SessionStatus, State, ToolCall, ToolResult};
use beckon_core::{AnsweredVia, Outcome, SessionOrigin};
use beckon_store::{
    CallbackFormat, CallbackKind, DeliveryState, Error, EventKind, NewCallback, PersonSession, QuestionStatus,
    Resolution, Resolved, SessionFilter, SessionKind, SignedIn, Store, Workload,
};
use serde_json::json;

use crate::common::*;

fn a_session_starts_with_an_event_and_reads_back(backend: Backend) {
    let (_db, mut store) = backend.store();
    let id = session_id();
    let committed = store.write(|tx| tx.start_session(&new_session(id, "poet", 1_000))).unwrap();
    assert_eq!(committed.events.len(), 1);
    assert_eq!(committed.events[0].kind, EventKind::SessionStarted);
    assert_eq!(committed.events[0].seq, 1);
    let record = store.read().session(id).unwrap().unwrap();
    assert_eq!(record.agent, "poet");
    assert_eq!(record.status, SessionStatus::Completed, "an idle session is ready for a message");
    assert_eq!(record.title, "Poem for poet");
    assert_eq!(record.created_at_ms, 1_000);
    assert!(store.read().session(session_id()).unwrap().is_none());
}

fn messages_keep_their_order_and_each_is_an_event(backend: Backend) {
    let (_db, mut store) = backend.store();
    let id = session_id();
    let call = ToolCall { id: "toolu_1".into(), name: "read_file".into(), input: json!({"path": "a.txt"}) };
    let committed = store
        .write(|tx| {
            tx.start_session(&new_session(id, "poet", 1))?;
            tx.append_messages(id, &[Message::User { text: "hi".into() }, Message::ToolUse { call: call.clone() }], 2)?;
            tx.append_tool_results(id, &[ToolResult::ok("toolu_1", "contents")], 3)
        })
        .unwrap();
    let appended: Vec<i64> = committed
        .events
        .iter()
        .filter_map(|e| match e.details() {
            Ok(beckon_store::EventPayload::MessageAppended(appended)) => Some(appended.position),
            _ => None,
        })
        .collect();
    assert_eq!(appended, [1, 2, 3], "each entry's event names its position");
    let timeline = store.read().timeline(id).unwrap();
    assert_eq!(timeline.iter().map(|e| e.position).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(timeline[1].message, Message::ToolUse { call });
    assert!(matches!(&timeline[2].message, Message::ToolResult { result } if result.content == "contents"));
    let err = store.write(|tx| tx.append_messages(session_id(), &[Message::User { text: "x".into() }], 4)).unwrap_err();
    assert!(matches!(err, Error::SessionNotFound(_)));
}

fn saving_state_changes_status_and_records_only_real_changes(backend: Backend) {
    let (_db, mut store) = backend.store();
    let id = session_id();
    store.write(|tx| tx.start_session(&new_session(id, "poet", 1))).unwrap();
    let first = store.write(|tx| tx.save_state(id, &State::LlmRequesting { attempt: 1 }, 2)).unwrap();
    assert_eq!(first.events.len(), 1);
    // As stored and sent: the status, and a reason only when there is one.
    let wire =
        |event: &beckon_store::StoredEvent| serde_json::from_str::<serde_json::Value>(event.payload.get()).unwrap();
    assert_eq!(wire(&first.events[0]), json!({"status": "running"}));
    let Ok(beckon_store::EventPayload::SessionStatus(changed)) = first.events[0].details() else { panic!("typed") };
    assert_eq!(changed.status, beckon_core::conversation::SessionStatus::Running);
    let same = store.write(|tx| tx.save_state(id, &State::LlmRequesting { attempt: 2 }, 3)).unwrap();
    assert!(same.events.is_empty(), "status unchanged");
    let record = store.read().session(id).unwrap().unwrap();
    assert_eq!((record.state, record.updated_at_ms), (State::LlmRequesting { attempt: 2 }, 3), "the state is saved");
    let absent = store.write(|tx| tx.save_state(session_id(), &State::Completed, 3)).unwrap_err();
    assert!(matches!(absent, Error::SessionNotFound(_)), "{absent}");
    let failed = store.write(|tx| tx.save_state(id, &State::Failed { reason: "401".into() }, 4)).unwrap();
    assert_eq!(wire(&failed.events[0]), json!({"status": "failed", "reason": "401"}));
    let record = store.read().session(id).unwrap().unwrap();
    assert_eq!(record.state, State::Failed { reason: "401".into() });
    assert_eq!(record.updated_at_ms, 4);
}

fn asking_commits_question_status_timeline_event_and_callbacks_together(backend: Backend) {
    let (_db, mut store) = backend.store();
    let (session, question) = (session_id(), request_id());
    let callback = NewCallback {
        idempotency_key: format!("{question}:question_pending"),
        target: "http://127.0.0.1:9/hook".into(),
        format: CallbackFormat::Json,
        kind: CallbackKind::Pending,
        payload: json!({"request_id": question}),
    };
    let committed = store
        .write(|tx| {
            tx.start_session(&new_session(session, "poet", 10))?;
            let mut ask = new_question(question, session, "poet", 20);
            ask.callback_url = Some(callback.target.clone());
            ask.expires_at_ms = Some(1_000);
            ask.callbacks = vec![callback.clone()];
            tx.ask(&ask)
        })
        .unwrap();
    let kinds: Vec<EventKind> = committed.events.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [EventKind::SessionStarted, EventKind::SessionStatus, EventKind::MessageAppended, EventKind::QuestionPending]
    );
    assert!(committed.callbacks_queued, "the commit says the outbox has work");
    let record = store.read().question(question).unwrap().unwrap();
    assert_eq!(record.status, QuestionStatus::Pending);
    assert_eq!(record.expires_at_ms, Some(1_000));
    assert_eq!(store.read().session(session).unwrap().unwrap().status, SessionStatus::WaitingForInput);
    assert!(
        matches!(&store.read().timeline(session).unwrap()[0].message, Message::Question { request_id, .. } if *request_id == question)
    );
    assert_eq!(store.read().pending_question_of(session).unwrap().unwrap().id, question);
    let due = store.read().due_callbacks(20, 10).unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].idempotency_key, callback.idempotency_key);

    // A session already shown waiting (an agent at its prompt) asks: no second status change.
    let waiting = session_id();
    store
        .write(|tx| {
            tx.start_session(&new_session(waiting, "poet", 30))?;
            tx.set_status(waiting, SessionStatus::WaitingForInput, None, 31)
        })
        .unwrap();
    let committed = store.write(|tx| tx.ask(&new_question(request_id(), waiting, "poet", 32))).unwrap();
    let kinds: Vec<EventKind> = committed.events.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [EventKind::MessageAppended, EventKind::QuestionPending]);
}

fn a_session_waits_on_one_question_at_a_time(backend: Backend) {
    let (_db, mut store) = backend.store();
    let (session, first) = asked(&mut store, "poet", 1);
    let err = store.write(|tx| tx.ask(&new_question(request_id(), session, "poet", 2))).unwrap_err();
    assert!(matches!(err, Error::QuestionAlreadyPending { pending, .. } if pending == first));
    let err = store.write(|tx| tx.ask(&new_question(request_id(), session_id(), "poet", 2))).unwrap_err();
    assert!(matches!(err, Error::SessionNotFound(_)));
}

fn the_first_resolution_wins_a_repeat_succeeds_and_a_different_one_conflicts(backend: Backend) {
    let (_db, mut store) = backend.store();
    let (session, question) = asked(&mut store, "poet", 1);
    let mut first = resolution(question, answered("Haiku"), 50);
    first.session_status = Some(SessionStatus::Running);
    let committed = store.write(|tx| tx.resolve(&first)).unwrap();
    let Resolved::Now(record) = &committed.value else { panic!("{:?}", committed.value) };
    assert_eq!(record.status, QuestionStatus::Answered);
    assert_eq!(record.answered_via, Some(AnsweredVia::Window));
    assert_eq!(record.resolved_at_ms, 50);
    let kinds: Vec<EventKind> = committed.events.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [EventKind::MessageAppended, EventKind::QuestionResolved, EventKind::SessionStatus]);
    assert_eq!(store.read().session(session).unwrap().unwrap().status, SessionStatus::Running);

    let mut repeat = resolution(question, answered("Haiku"), 60);
    repeat.via = Some(AnsweredVia::Cli);
    let again = store.write(|tx| tx.resolve(&repeat)).unwrap();
    assert!(matches!(&again.value, Resolved::Repeat(r) if r.answered_via == Some(AnsweredVia::Window)));
    assert!(again.events.is_empty(), "an identical repeat changes nothing");

    let err = store.write(|tx| tx.resolve(&resolution(question, answered("Sonnet"), 70))).unwrap_err();
    let Error::AlreadyResolved(winner) = err else { panic!("{err:?}") };
    assert_eq!(winner.outcome, answered("Haiku"));
    let err = store.write(|tx| tx.resolve(&resolution(question, Outcome::Declined { reason: None }, 70))).unwrap_err();
    assert!(matches!(err, Error::AlreadyResolved(_)));

    let timeline = store.read().timeline(session).unwrap();
    assert_eq!(timeline.iter().filter(|e| matches!(e.message, Message::Answer { .. })).count(), 1);
    assert!(matches!(
        store.write(|tx| tx.resolve(&resolution(request_id(), answered("Haiku"), 1))),
        Err(Error::QuestionNotFound(_))
    ));
}

fn every_outcome_becomes_the_question_status(backend: Backend) {
    let (_db, mut store) = backend.store();
    for (outcome, status) in [
        (Outcome::Declined { reason: Some("later".into()) }, QuestionStatus::Declined),
        (Outcome::Expired { default_answer: None }, QuestionStatus::Expired),
        (Outcome::Cancelled { reason: None }, QuestionStatus::Cancelled),
    ] {
        let (_, question) = asked(&mut store, "poet", 1);
        store.write(|tx| tx.resolve(&resolution(question, outcome.clone(), 2))).unwrap();
        let record = store.read().question(question).unwrap().unwrap();
        assert_eq!(record.status, status);
        assert_eq!(record.outcome, Some(outcome));
    }
}

fn a_sub_agent_question_makes_its_ancestors_wait_too(backend: Backend) {
    let (_db, mut store) = backend.store();
    let (root, child, grandchild, question) = (session_id(), session_id(), session_id(), request_id());
    store
        .write(|tx| {
            tx.start_session(&new_session(root, "research", 1))?;
            tx.save_state(root, &State::LlmRequesting { attempt: 1 }, 1)?;
            for (id, parent, agent) in [(child, root, "summariser"), (grandchild, child, "checker")] {
                let mut session = new_session(id, agent, 2);
                session.origin = SessionOrigin::Subagent;
                session.parent = Some(parent);
                tx.start_session(&session)?;
                tx.save_state(id, &State::LlmRequesting { attempt: 1 }, 2)?;
            }
            let mut ask = new_question(question, grandchild, "checker", 3);
            ask.origin = Origin::agent("research").child("summariser").child("checker");
            tx.ask(&ask)
        })
        .unwrap();
    for id in [root, child, grandchild] {
        assert_eq!(store.read().session(id).unwrap().unwrap().status, SessionStatus::WaitingForInput);
    }
    assert_eq!(store.read().ancestors(grandchild).unwrap(), [child, root]);
    assert_eq!(store.read().children(root).unwrap().iter().map(|s| s.id).collect::<Vec<_>>(), [child]);
    assert_eq!(store.read().children(grandchild).unwrap(), []);
    let waiting_parents: Vec<_> = store.read().waiting_parents().unwrap().iter().map(|s| s.id).collect();
    assert_eq!(waiting_parents, [root, child]);
    let pending = store.read().pending_questions().unwrap();
    assert_eq!(pending[0].origin.to_string(), "research › summariser › checker");
    store
        .write(|tx| {
            tx.resolve(&resolution(question, answered("Haiku"), 4))?;
            tx.save_state(grandchild, &State::LlmRequesting { attempt: 1 }, 4)
        })
        .unwrap();
    for id in [root, child, grandchild] {
        assert_eq!(store.read().session(id).unwrap().unwrap().status, SessionStatus::Running);
    }
}

/// How SQLite would run `sql`, one line per step.
fn query_plan(store: &Store, sql: &str) -> Vec<String> {
    store
        .connection()
        .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
        .unwrap()
        .query_map([], |row| row.get::<_, String>(3))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn pending_questions_list_oldest_first_from_the_covering_index() {
    let (_dir, mut store) = file_store();
    let (_, late) = asked(&mut store, "b", 300);
    let (_, early) = asked(&mut store, "a", 100);
    let (_, middle) = asked(&mut store, "c", 200);
    let (_, gone) = asked(&mut store, "d", 50);
    store.write(|tx| tx.resolve(&resolution(gone, answered("Haiku"), 400))).unwrap();
    let pending = store.read().pending_questions().unwrap();
    assert_eq!(pending.iter().map(|p| p.id).collect::<Vec<_>>(), [early, middle, late]);
    assert_eq!(pending[0].agent, "a");
    assert_eq!(pending[0].request().unwrap(), request());
    assert_eq!(
        query_plan(
            &store,
            "SELECT id, session_id, agent, origin, request, created_at, expires_at FROM questions WHERE status = 'pending' ORDER BY created_at, id"
        ),
        ["SCAN questions USING COVERING INDEX questions_pending"]
    );
}

#[test]
fn inbox_lines_list_oldest_first_from_their_covering_index() {
    let (_dir, mut store) = file_store();
    let (_, late) = asked(&mut store, "b", 300);
    let (_, early) = asked(&mut store, "a", 100);
    let (_, gone) = asked(&mut store, "d", 50);
    store.write(|tx| tx.resolve(&resolution(gone, answered("Haiku"), 400))).unwrap();
    let inbox = store.read().inbox().unwrap();
    assert_eq!(inbox.iter().map(|entry| entry.id).collect::<Vec<_>>(), [early, late]);
    assert_eq!(inbox[0].agent, "a");
    assert_eq!(inbox[0].created_at_ms, 100);
    assert_eq!(inbox[0].line().unwrap(), request().inbox_line());
    assert_eq!(
        query_plan(
            &store,
            "SELECT id, session_id, agent, origin, line, created_at, expires_at FROM questions WHERE status = 'pending' ORDER BY created_at, id"
        ),
        ["SCAN questions USING COVERING INDEX questions_inbox"]
    );
}

fn sessions_page_newest_first_and_filter_by_status(backend: Backend) {
    let (_db, mut store) = backend.store();
    let ids: Vec<_> = (0..7).map(|_| session_id()).collect();
    store
        .write(|tx| {
            for (i, id) in ids.iter().enumerate() {
                tx.start_session(&new_session(*id, "poet", i as i64))?;
            }
            tx.save_state(ids[2], &State::Completed, 100)?;
            tx.save_state(ids[4], &State::Failed { reason: "x".into() }, 101)
        })
        .unwrap();
    let mut filter = SessionFilter { limit: 3, ..SessionFilter::default() };
    let mut seen = Vec::new();
    loop {
        let page = store.read().sessions(&filter).unwrap();
        seen.extend(page.sessions.iter().map(|s| s.id));
        match page.next {
            Some(next) => filter.after = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, [ids[6], ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]], "newest first, whatever changed since");
    let failed = store
        .read()
        .sessions(&SessionFilter { status: Some(SessionStatus::Failed), limit: 10, ..SessionFilter::default() })
        .unwrap();
    assert_eq!(failed.sessions.iter().map(|s| s.id).collect::<Vec<_>>(), [ids[4]]);
    assert!(failed.next.is_none());
}

fn events_page_after_a_seq_without_gaps(backend: Backend) {
    let (_db, mut store) = backend.store();
    for i in 0..5 {
        asked(&mut store, "poet", i);
    }
    let last = store.read().last_seq().unwrap();
    let mut seqs = Vec::new();
    let mut after = 0;
    loop {
        let page = store.read().events_after(after, 4).unwrap();
        if page.is_empty() {
            break;
        }
        after = page.last().unwrap().seq;
        seqs.extend(page.iter().map(|e| e.seq));
    }
    assert_eq!(seqs, (1..=last).collect::<Vec<_>>());
    assert_eq!(store.read().events_after(last, 10).unwrap(), []);
}

fn deadlines_list_what_expires_by_a_time(backend: Backend) {
    let (_db, mut store) = backend.store();
    let mut ids = Vec::new();
    for expires in [500, 100, 300] {
        let (session, question) = (session_id(), request_id());
        store
            .write(|tx| {
                tx.start_session(&new_session(session, "poet", 1))?;
                let mut ask = new_question(question, session, "poet", 1);
                ask.expires_at_ms = Some(expires);
                ask.expiry_policy = Some(ExpiryPolicy::Fail);
                tx.ask(&ask)
            })
            .unwrap();
        ids.push(question);
    }
    let due: Vec<_> = store.read().deadlines(Some(300)).unwrap().iter().map(|d| d.request_id).collect();
    assert_eq!(due, [ids[1], ids[2]]);
    let all = store.read().deadlines(None).unwrap();
    assert_eq!(all.len(), 3);
    assert!(all.iter().all(|d| d.policy == ExpiryPolicy::Fail), "the policy fixed at asking time comes back");
    assert_eq!(store.read().question(ids[0]).unwrap().unwrap().expiry_policy, Some(ExpiryPolicy::Fail));
}

fn callbacks_are_delivered_retried_or_given_up(backend: Backend) {
    let (_db, mut store) = backend.store();
    let callback = |key: &str| NewCallback {
        idempotency_key: key.into(),
        target: "http://127.0.0.1:9/".into(),
        format: CallbackFormat::Slack,
        kind: CallbackKind::Resolved(beckon_core::OutcomeKind::Answered),
        payload: json!({"k": key}),
    };
    let queued = store.write(|tx| tx.enqueue_callbacks(&[callback("a"), callback("b"), callback("a")], 10)).unwrap();
    assert!(queued.callbacks_queued);
    let nothing = store.write(|tx| tx.enqueue_callbacks(&[], 10)).unwrap();
    assert!(!nothing.callbacks_queued, "no callbacks, no word to the sender");
    let due = store.read().due_callbacks(10, 10).unwrap();
    assert_eq!(due.len(), 2, "the same idempotency key is queued once");
    store.write(|tx| tx.mark_delivered(due[0].id, 11)).unwrap();
    store.write(|tx| tx.mark_attempt_failed(due[1].id, "HTTP 500", Some(50))).unwrap();
    assert_eq!(store.read().due_callbacks(49, 10).unwrap(), []);
    assert_eq!(store.read().next_callback_due().unwrap(), Some(50));
    let retry = store.read().due_callbacks(50, 10).unwrap();
    assert_eq!(retry[0].attempts, 1);
    store.write(|tx| tx.mark_attempt_failed(retry[0].id, "HTTP 500", None)).unwrap();
    assert_eq!(store.read().callback_delivery("a").unwrap(), Some((DeliveryState::Delivered, 1)));
    assert_eq!(store.read().callback_delivery("b").unwrap(), Some((DeliveryState::Failed, 2)));
    assert_eq!(store.read().next_callback_due().unwrap(), None);
}

fn due_callbacks_page_on_in_due_order(backend: Backend) {
    let (_db, mut store) = backend.store();
    let callback = |key: &str| NewCallback {
        idempotency_key: key.into(),
        target: "http://127.0.0.1:9/".into(),
        format: CallbackFormat::Json,
        kind: CallbackKind::Pending,
        payload: json!({"k": key}),
    };
    store.write(|tx| tx.enqueue_callbacks(&[callback("a"), callback("b"), callback("c")], 10)).unwrap();
    store.write(|tx| tx.enqueue_callbacks(&[callback("d")], 5)).unwrap();
    store.write(|tx| tx.enqueue_callbacks(&[callback("later")], 90)).unwrap();
    let keys = |page: &[beckon_store::OutboxEntry]| page.iter().map(|e| e.idempotency_key.clone()).collect::<Vec<_>>();

    let first = store.read().due_callbacks_after(20, None, 2).unwrap();
    assert_eq!(keys(&first), ["d", "a"], "oldest due first, then by id");
    let cursor = first.last().map(|e| (e.next_attempt_at_ms, e.id));
    let second = store.read().due_callbacks_after(20, cursor, 2).unwrap();
    assert_eq!(keys(&second), ["b", "c"]);
    let cursor = second.last().map(|e| (e.next_attempt_at_ms, e.id));
    assert_eq!(store.read().due_callbacks_after(20, cursor, 2).unwrap(), []);

    assert_eq!(store.read().next_callback_due().unwrap(), Some(5));
    assert_eq!(store.read().next_callback_due_after(20).unwrap(), Some(90), "those due already are not counted");
    assert_eq!(store.read().next_callback_due_after(90).unwrap(), None);
}

fn metrics_count_waits_latencies_and_rates(backend: Backend) {
    let (_db, mut store) = backend.store();
    let (_, a) = asked(&mut store, "poet", 0);
    let (_, b) = asked(&mut store, "poet", 0);
    let (_, c) = asked(&mut store, "critic", 0);
    let (_, _waiting) = asked(&mut store, "critic", 500);
    store.write(|tx| tx.resolve(&resolution(a, answered("Haiku"), 100))).unwrap();
    store.write(|tx| tx.resolve(&resolution(b, answered("Haiku"), 300))).unwrap();
    store.write(|tx| tx.resolve(&resolution(c, Outcome::Declined { reason: None }, 50))).unwrap();
    let metrics = store.read().metrics(1_000, None).unwrap();
    assert_eq!(metrics.pending, 1);
    assert_eq!(metrics.longest_wait_ms, Some(500));
    assert_eq!(metrics.resolved, 3);
    assert!((metrics.decline_rate - 1.0 / 3.0).abs() < 1e-9);
    assert_eq!(metrics.expire_rate, 0.0);
    assert_eq!(metrics.answer_latency.count, 2);
    assert_eq!(metrics.answer_latency.p50_ms, Some(100));
    assert_eq!(metrics.answer_latency.p99_ms, Some(300));
    let critic = &metrics.agents[0];
    assert_eq!((critic.agent.as_str(), critic.asked, critic.pending, critic.declined), ("critic", 2, 1, 1));
    assert_eq!(critic.waiting_ms, 50 + 500);
    assert_eq!(metrics.agents[1].waiting_ms, 400);
}

fn workload_counts_what_waits_and_who_is_signed_in(backend: Backend) {
    let (_db, mut store) = backend.store();
    assert_eq!(store.read().workload(1_000).unwrap(), Workload::default(), "an empty server has nothing on its hands");
    let (_, first) = asked(&mut store, "poet", 100);
    let (_, _second) = asked(&mut store, "critic", 300);
    let (_, third) = asked(&mut store, "critic", 400);
    // Its session goes on working once answered.
    let going_on =
        Resolution { session_status: Some(SessionStatus::Running), ..resolution(third, answered("Haiku"), 500) };
    store.write(|tx| tx.resolve(&going_on)).unwrap();
    let callback = |key: &str| NewCallback {
        idempotency_key: key.into(),
        target: "https://receiver.example/".into(),
        format: CallbackFormat::Json,
        kind: CallbackKind::Pending,
        payload: json!({"k": key}),
    };
    store.write(|tx| tx.enqueue_callbacks(&[callback("a"), callback("b")], 200)).unwrap();
    store.write(|tx| tx.enqueue_callbacks(&[callback("c")], 600)).unwrap();
    let due = store.read().due_callbacks(200, 10).unwrap();
    store.write(|tx| tx.mark_delivered(due[0].id, 210)).unwrap();
    store.write(|tx| tx.mark_attempt_failed(due[1].id, "HTTP 500", None)).unwrap();
    store.write(|tx| tx.begin_channel_post("slack", first, "1", 700)).unwrap();
    let person = |byte: u8, expires_at_ms: i64| PersonSession {
        id_hash: [byte; 32],
        person: SignedIn { subject: format!("p{byte}"), email: None, name: None, groups: vec![] },
        created_at_ms: 100,
        expires_at_ms,
    };
    store
        .write(|tx| {
            tx.open_person_session(&person(1, 5_000))?;
            tx.open_person_session(&person(2, 5_000))?;
            tx.mark_person_session(&[2; 32], &SessionKind::App { label: "Beckon on devbox".into() })?;
            tx.open_person_session(&person(3, 900))
        })
        .unwrap();

    let workload = store.read().workload(1_000).unwrap();
    assert_eq!(
        workload,
        Workload {
            pending_questions: 2,
            oldest_pending_at_ms: Some(100),
            running_sessions: 1,
            waiting_sessions: 2,
            callbacks_pending: 1,
            earliest_callback_due_ms: Some(600),
            channel_posts_unsent: 1,
            browser_sessions: 1,
            app_sessions: 1,
        },
        "the answered question, the delivered and the given-up callbacks and the expired sign-in do not count"
    );
    store.write(|tx| tx.channel_posted("slack", first, "C1", "m1", 710)).unwrap();
    assert_eq!(store.read().workload(1_000).unwrap().channel_posts_unsent, 0, "a post sent is no longer owed");
}

fn retention_prunes_old_finished_sessions_but_never_waiting_ones(backend: Backend) {
    let (_db, mut store) = backend.store();
    let (old_done, old_waiting, recent_done) = (session_id(), session_id(), session_id());
    let child = session_id();
    store
        .write(|tx| {
            tx.start_session(&new_session(old_done, "poet", 1))?;
            let mut sub = new_session(child, "helper", 1);
            sub.parent = Some(old_done);
            sub.origin = SessionOrigin::Subagent;
            tx.start_session(&sub)?;
            tx.append_messages(child, &[Message::User { text: "x".into() }], 1)?;
            tx.save_state(child, &State::Completed, 2)?;
            tx.save_state(old_done, &State::Completed, 2)?;
            tx.start_session(&new_session(old_waiting, "poet", 1))?;
            tx.ask(&new_question(request_id(), old_waiting, "poet", 2))?;
            tx.start_session(&new_session(recent_done, "poet", 900))?;
            tx.save_state(recent_done, &State::Completed, 900)
        })
        .unwrap();
    let committed = store.write(|tx| tx.prune_finished(500, 1_000)).unwrap();
    assert_eq!(committed.value, [old_done]);
    assert_eq!(committed.events[0].kind, EventKind::SessionDeleted);
    assert!(store.read().session(old_done).unwrap().is_none());
    assert!(store.read().session(child).unwrap().is_none(), "sub-agent sessions go with their parent");
    assert_eq!(store.read().timeline(child).unwrap(), []);
    assert!(store.read().session(old_waiting).unwrap().is_some());
    assert!(store.read().session(recent_done).unwrap().is_some());
}

fn a_failed_write_leaves_nothing_behind(backend: Backend) {
    let (_db, mut store) = backend.store();
    let (session, question) = (session_id(), request_id());
    let before = store.read().last_seq().unwrap();
    let err = store
        .write(|tx| {
            tx.start_session(&new_session(session, "poet", 1))?;
            tx.ask(&new_question(question, session, "poet", 1))?;
            tx.ask(&new_question(request_id(), session, "poet", 1))
        })
        .unwrap_err();
    assert!(matches!(err, Error::QuestionAlreadyPending { .. }));
    assert!(store.read().session(session).unwrap().is_none());
    assert!(store.read().question(question).unwrap().is_none());
    assert_eq!(store.read().last_seq().unwrap(), before);
    assert_eq!(store.commits(), 0, "a rolled-back write is not counted as a commit");
    store.write(|tx| tx.start_session(&new_session(session, "poet", 1))).unwrap();
    assert_eq!(store.commits(), 1);
}

fn external_sessions_are_found_by_their_key(backend: Backend) {
    let (_db, mut store) = backend.store();
    let id = session_id();
    let mut session = new_session(id, "deploy-bot", 1);
    session.origin = SessionOrigin::External;
    session.external_key = Some("ci-run-42".into());
    store.write(|tx| tx.start_session(&session)).unwrap();
    assert_eq!(store.read().session_by_external_key("deploy-bot", "ci-run-42").unwrap().unwrap().id, id);
    assert!(store.read().session_by_external_key("other-bot", "ci-run-42").unwrap().is_none());
    let mut duplicate = new_session(session_id(), "deploy-bot", 2);
    duplicate.external_key = Some("ci-run-42".into());
    assert!(store.write(|tx| tx.start_session(&duplicate)).is_err());
}

fn a_sessions_questions_are_found_through_its_timeline(backend: Backend) {
    let (_db, mut store) = backend.store();
    let (session, first) = asked(&mut store, "poet", 1);
    store.write(|tx| tx.resolve(&resolution(first, answered("Haiku"), 2))).unwrap();
    let second = request_id();
    store.write(|tx| tx.ask(&new_question(second, session, "poet", 3))).unwrap();
    asked(&mut store, "other", 4);
    let questions = store.read().questions_of(session).unwrap();
    assert_eq!(questions.iter().map(|q| q.id).collect::<Vec<_>>(), [first, second]);
    assert_eq!(questions[0].status, QuestionStatus::Answered);
}

fn a_question_is_read_with_its_session(backend: Backend) {
    let (_db, mut store) = backend.store();
    let (session, question) = asked(&mut store, "poet", 1);
    asked(&mut store, "other", 2);
    let (read, its_session, audience) = store.read().question_with_session(question).unwrap().expect("the question");
    assert_eq!(audience, None, "a session no one addressed is everyone's");
    assert_eq!(read, store.read().question(question).unwrap().unwrap());
    assert_eq!(its_session, store.read().session(session).unwrap().unwrap());
    assert_eq!(its_session.status, SessionStatus::WaitingForInput);
    assert_eq!(store.read().question_with_session(request_id()).unwrap(), None);
}

fn settings_round_trip(backend: Backend) {
    let (_db, mut store) = backend.store();
    assert_eq!(store.read().setting("secret").unwrap(), None);
    store.write(|tx| tx.set_setting("secret", "one")).unwrap();
    store.write(|tx| tx.set_setting("secret", "two")).unwrap();
    assert_eq!(store.read().setting("secret").unwrap().as_deref(), Some("two"));
}

fn every_event_the_store_writes_reads_back_as_its_kinds_type(backend: Backend) {
    use beckon_store::{EventKind, EventPayload};
    let (_db, mut store) = backend.store();
    let (session, question) = asked(&mut store, "poet", 10);
    store.write(|tx| tx.resolve(&resolution(question, answered("Haiku"), 20))).unwrap();
    store.write(|tx| tx.save_state(session, &State::Completed, 30)).unwrap();
    // Retention takes a session's events with it: they are read before it runs.
    let mut events = store.read().events_after(0, 100).unwrap();
    let last = events.last().map_or(0, |event| event.seq);
    store.write(|tx| tx.prune_finished(40, 50)).unwrap();
    events.extend(store.read().events_after(last, 100).unwrap());
    let kinds: Vec<EventKind> = events.iter().map(|e| e.kind).collect();
    for kind in [
        EventKind::SessionStarted,
        EventKind::SessionStatus,
        EventKind::MessageAppended,
        EventKind::QuestionPending,
        EventKind::QuestionResolved,
        EventKind::SessionDeleted,
    ] {
        assert!(kinds.contains(&kind), "{kind} among {kinds:?}");
    }
    for event in &events {
        let details = event.details().unwrap_or_else(|err| panic!("{}: {err}", event.kind));
        assert_eq!(details.kind(), event.kind);
        match details {
            EventPayload::SessionStarted(started) => assert_eq!(started.agent, "poet"),
            EventPayload::MessageAppended(appended) => {
                let entry = appended.entry(event.at_ms).unwrap();
                assert!(entry.position >= 1);
            }
            EventPayload::QuestionPending(pending) => assert_eq!(pending.id, question),
            EventPayload::QuestionResolved(resolved) => {
                assert_eq!(resolved.outcome().unwrap(), answered("Haiku"));
                assert_eq!(resolved.answered_via, Some(beckon_core::AnsweredVia::Window));
            }
            EventPayload::SessionStatus(_) | EventPayload::SessionResumed(_) | EventPayload::SessionDeleted(_) => {}
        }
    }
}

conformance!(
    every_event_the_store_writes_reads_back_as_its_kinds_type,
    a_session_starts_with_an_event_and_reads_back,
    messages_keep_their_order_and_each_is_an_event,
    saving_state_changes_status_and_records_only_real_changes,
    asking_commits_question_status_timeline_event_and_callbacks_together,
    a_session_waits_on_one_question_at_a_time,
    the_first_resolution_wins_a_repeat_succeeds_and_a_different_one_conflicts,
    every_outcome_becomes_the_question_status,
    a_sub_agent_question_makes_its_ancestors_wait_too,
    sessions_page_newest_first_and_filter_by_status,
    events_page_after_a_seq_without_gaps,
    deadlines_list_what_expires_by_a_time,
    callbacks_are_delivered_retried_or_given_up,
    due_callbacks_page_on_in_due_order,
    metrics_count_waits_latencies_and_rates,
    workload_counts_what_waits_and_who_is_signed_in,
    retention_prunes_old_finished_sessions_but_never_waiting_ones,
    a_failed_write_leaves_nothing_behind,
    external_sessions_are_found_by_their_key,
    a_sessions_questions_are_found_through_its_timeline,
    a_question_is_read_with_its_session,
    settings_round_trip,
);
