//! The audit trail: every way a question or approval ends writes one row in the same
//! transaction, with what was asked, how it ended, where from and by whom; the rows read back
//! in pages by id and filters — whole, or a signed-in person's share, and on a read-only
//! connection beside the writer — outlive the sessions retention prunes, and go by their own age.

use beckon_core::conversation::SessionStatus;
use beckon_core::{
    Answer, AnsweredVia, Answers, Approval, Audience, Outcome, QuestionRequest, RequestId, SessionOrigin,
};
use beckon_store::{
    AuditDecision, AuditFilter, AuditKind, AuditRow, AuditShare, AuditVia, NewToken, QuestionStatus, Resolution, Store,
    TokenKind,
};
use serde_json::json;

use crate::common::{self, Backend, answered, conformance, new_question, new_session, request_id, session_id};

fn approval(command: &str) -> QuestionRequest {
    let approval = Approval::parse(
        &json!({"tool_name": "Bash", "input": {"command": command}, "project": "/home/ada/app", "session": "cc-42"}),
        "approval",
    )
    .unwrap();
    QuestionRequest::for_approval(approval)
}

/// Asks `request` in a new session of `origin`; returns the question's id.
fn ask(store: &mut Store, agent: &str, origin: SessionOrigin, request: QuestionRequest, at_ms: i64) -> RequestId {
    let (session, id) = (session_id(), request_id());
    store
        .write(|tx| {
            tx.start_session(&beckon_store::NewSession { origin, ..new_session(session, agent, at_ms) })?;
            tx.ask(&beckon_store::NewQuestion { request, ..new_question(id, session, agent, at_ms) })
        })
        .unwrap();
    id
}

fn resolve(store: &mut Store, resolution: Resolution) {
    store.write(|tx| tx.resolve(&resolution)).unwrap();
}

fn by(request_id: RequestId, outcome: Outcome, via: Option<AnsweredVia>, who: Option<&str>, at_ms: i64) -> Resolution {
    Resolution { via, by: who.map(str::to_owned), ..common::resolution(request_id, outcome, at_ms) }
}

fn row(store: &Store, id: RequestId) -> AuditRow {
    store.read().audit_of(id).unwrap().expect("an audit row")
}

fn choose(request: &QuestionRequest, answer: Answer) -> Outcome {
    Outcome::Answered { answers: Answers::new(vec![answer], request).unwrap() }
}

fn every_way_a_question_ends_leaves_one_row(backend: Backend) {
    let (_db, mut store) = backend.store();
    let ext = SessionOrigin::External;

    let window = ask(&mut store, "poet", SessionOrigin::Chat, common::request(), 10);
    resolve(&mut store, by(window, answered("Haiku"), Some(AnsweredVia::Window), None, 110));

    let slack = ask(&mut store, "poet", ext, common::request(), 20);
    resolve(&mut store, by(slack, answered("Sonnet"), Some(AnsweredVia::Slack), Some("slack:U1 (ada)"), 120));

    let declined = ask(&mut store, "poet", ext, common::request(), 30);
    let reason = Outcome::Declined { reason: Some("not now".into()) };
    resolve(&mut store, by(declined, reason, Some(AnsweredVia::Http), None, 130));

    let expired = ask(&mut store, "poet", ext, common::request(), 40);
    resolve(&mut store, by(expired, Outcome::Expired { default_answer: None }, None, None, 140));

    let cancelled = ask(&mut store, "poet", ext, common::request(), 50);
    let resolution = Resolution {
        session_status: Some(SessionStatus::Cancelled),
        ..by(cancelled, Outcome::Cancelled { reason: None }, None, None, 150)
    };
    resolve(&mut store, resolution);

    let withdrawn = ask(&mut store, "claude-code", ext, approval("ls"), 60);
    let resolution = Resolution {
        session_status: Some(SessionStatus::Completed),
        ..by(withdrawn, Outcome::Cancelled { reason: Some("answered in the terminal".into()) }, None, None, 160)
    };
    resolve(&mut store, resolution);

    let request = approval("cargo test");
    let allowed = ask(&mut store, "claude-code", ext, request.clone(), 70);
    let allow = choose(&request, Answer::select(["Allow"]));
    resolve(&mut store, by(allowed, allow, Some(AnsweredVia::Notification), None, 170));

    let request = approval("rm -rf build\nrm -rf dist");
    let denied = ask(&mut store, "claude-code", ext, request.clone(), 80);
    let deny = choose(&request, Answer::select(["Deny"]).with_comment("use make clean"));
    resolve(&mut store, by(denied, deny, Some(AnsweredVia::Telegram), Some("@ada"), 180));

    let form = QuestionRequest::parse(&json!({"questions": [
        {"question": "How many replicas?", "header": "Replicas", "schema": {"type": "integer", "minimum": 1}}
    ]}))
    .unwrap();
    let formed = ask(&mut store, "deployer", ext, form.clone(), 90);
    let value = choose(&form, Answer::value(json!(3)));
    resolve(&mut store, by(formed, value, Some(AnsweredVia::Cli), None, 190));

    let r = row(&store, window);
    assert_eq!(
        (r.kind, r.status, r.decision, r.via),
        (AuditKind::Question, QuestionStatus::Answered, AuditDecision::Answered, Some(AuditVia::Window))
    );
    assert_eq!((r.agent.as_str(), r.what.as_str()), ("poet", "Style: Which style?"));
    assert_eq!((r.asked_at_ms, r.resolved_at_ms), (10, 110));
    assert_eq!(r.message.as_deref(), Some("Haiku; Warm"));
    assert_eq!((r.project, r.machine, r.rule_id, r.rule_key), (None, None, None, None));

    let r = row(&store, slack);
    assert_eq!((r.via, r.by.as_deref()), (Some(AuditVia::Slack), Some("slack:U1 (ada)")));

    let r = row(&store, declined);
    assert_eq!(
        (r.status, r.decision, r.via),
        (QuestionStatus::Declined, AuditDecision::Declined, Some(AuditVia::Http))
    );
    assert_eq!(r.message.as_deref(), Some("not now"));

    let r = row(&store, expired);
    assert_eq!(
        (r.status, r.decision, r.via),
        (QuestionStatus::Expired, AuditDecision::Expired, Some(AuditVia::Deadline))
    );

    let r = row(&store, cancelled);
    assert_eq!((r.decision, r.via), (AuditDecision::Cancelled, Some(AuditVia::Cancelled)));

    let r = row(&store, withdrawn);
    assert_eq!((r.kind, r.decision, r.via), (AuditKind::Approval, AuditDecision::Cancelled, Some(AuditVia::Terminal)));
    assert_eq!(r.message.as_deref(), Some("answered in the terminal"));

    let r = row(&store, allowed);
    assert_eq!((r.kind, r.decision, r.via), (AuditKind::Approval, AuditDecision::Allow, Some(AuditVia::Notification)));
    assert_eq!(
        (r.what.as_str(), r.project.as_deref(), r.session.as_str()),
        ("Bash: cargo test", Some("/home/ada/app"), "cc-42")
    );

    let r = row(&store, denied);
    assert_eq!((r.decision, r.via, r.by.as_deref()), (AuditDecision::Deny, Some(AuditVia::Telegram), Some("@ada")));
    assert_eq!(r.what, "Bash: rm -rf build rm -rf dist", "one line");
    assert_eq!(r.message.as_deref(), Some("use make clean"));
    assert_eq!(r.rule_key, None, "only allows are counted towards rules");

    let r = row(&store, formed);
    assert_eq!((r.kind, r.message.as_deref()), (AuditKind::Form, Some("3")));

    let all = store.read().audit(&AuditFilter::default(), 100).unwrap();
    assert_eq!(all.len(), 9, "one row per resolution");
    let r = row(&store, slack);
    assert_eq!(
        (r.decision, r.via, r.by.as_deref()),
        (AuditDecision::Answered, Some(AuditVia::Slack), Some("slack:U1 (ada)"))
    );
    assert_eq!(r.message.as_deref(), Some("Sonnet; Warm"));
    assert!(all.windows(2).all(|w| w[0].id < w[1].id), "in id order");
}

fn a_repeat_or_a_conflict_writes_no_second_row(backend: Backend) {
    let (_db, mut store) = backend.store();
    let id = ask(&mut store, "poet", SessionOrigin::External, common::request(), 10);
    resolve(&mut store, by(id, answered("Haiku"), Some(AnsweredVia::Window), None, 20));
    resolve(&mut store, by(id, answered("Haiku"), Some(AnsweredVia::Window), None, 30));
    assert!(store.write(|tx| tx.resolve(&by(id, answered("Sonnet"), Some(AnsweredVia::Tray), None, 40))).is_err());
    assert_eq!(store.read().audit(&AuditFilter::default(), 10).unwrap().len(), 1);
    assert_eq!(row(&store, id).resolved_at_ms, 20);
}

fn the_machine_is_the_token_that_asked(backend: Backend) {
    let (_db, mut store) = backend.store();
    let token =
        NewToken { name: "devbox".into(), kind: TokenKind::AskOnly, secret_hash: [9; 32], owner: None, at_ms: 1 };
    let token = store.write(|tx| tx.create_token(&token)).unwrap().value;
    let id = ask(&mut store, "claude-code", SessionOrigin::External, approval("ls"), 10);
    store.write(|tx| tx.mark_asked_by(id, token.id)).unwrap();
    resolve(&mut store, by(id, Outcome::Declined { reason: None }, Some(AnsweredVia::Window), None, 20));
    assert_eq!(row(&store, id).machine.as_deref(), Some("devbox"));
}

fn pages_follow_ids_and_filters(backend: Backend) {
    let (_db, mut store) = backend.store();
    let mut ids = Vec::new();
    for i in 0..7 {
        let agent = if i % 2 == 0 { "even" } else { "odd" };
        let id = ask(&mut store, agent, SessionOrigin::External, common::request(), i);
        resolve(&mut store, by(id, answered("Haiku"), Some(AnsweredVia::Window), None, 100 + i));
        ids.push(id);
    }
    let mut filter = AuditFilter::default();
    let mut seen = Vec::new();
    loop {
        let page = store.read().audit(&filter, 3).unwrap();
        let Some(last) = page.last() else { break };
        filter.after_id = Some(last.id);
        seen.extend(page.iter().map(|r| r.request_id));
    }
    assert_eq!(seen, ids);

    let filter = AuditFilter { agent: Some("odd".into()), ..AuditFilter::default() };
    assert_eq!(store.read().audit(&filter, 100).unwrap().len(), 3);
    let filter = AuditFilter { since_ms: Some(102), until_ms: Some(105), ..AuditFilter::default() };
    let times: Vec<_> = store.read().audit(&filter, 100).unwrap().iter().map(|r| r.resolved_at_ms).collect();
    assert_eq!(times, [102, 103, 104]);
}

fn audit_rows_outlive_pruned_sessions_and_go_by_their_own_age(backend: Backend) {
    let (_db, mut store) = backend.store();
    let old = ask(&mut store, "poet", SessionOrigin::External, common::request(), 10);
    let resolution = Resolution {
        session_status: Some(SessionStatus::Completed),
        ..by(old, answered("Haiku"), Some(AnsweredVia::Window), None, 20)
    };
    resolve(&mut store, resolution);
    let recent = ask(&mut store, "poet", SessionOrigin::External, common::request(), 1_000);
    let resolution = Resolution {
        session_status: Some(SessionStatus::Completed),
        ..by(recent, answered("Sonnet"), Some(AnsweredVia::Window), None, 1_010)
    };
    resolve(&mut store, resolution);

    let pruned = store.write(|tx| tx.prune_finished(5_000, 5_000)).unwrap().value;
    assert_eq!(pruned.len(), 2, "both sessions go");
    assert!(store.read().question(old).unwrap().is_none());
    assert_eq!(store.read().audit(&AuditFilter::default(), 10).unwrap().len(), 2, "their audit rows stay");

    let gone = store.write(|tx| tx.prune_audit(500)).unwrap().value;
    assert_eq!(gone, 1);
    let left: Vec<_> = store.read().audit(&AuditFilter::default(), 10).unwrap().iter().map(|r| r.request_id).collect();
    assert_eq!(left, [recent]);
}

/// Asks in a new session addressed to `audience` (everyone's with `None`) and resolves it as
/// answered by `who`, the session ending with it; the question's id.
fn answered_in(store: &mut Store, audience: Option<&str>, who: Option<&str>, at_ms: i64) -> RequestId {
    let id = ask(store, "deployer", SessionOrigin::External, common::request(), at_ms);
    if let Some(audience) = audience {
        let session = store.read().question(id).unwrap().unwrap().session_id;
        store.write(|tx| tx.address_session(session, &Audience::parse(audience).unwrap())).unwrap();
    }
    let resolution = Resolution {
        session_status: Some(SessionStatus::Completed),
        ..by(id, answered("Haiku"), Some(AnsweredVia::Window), who, at_ms + 10)
    };
    resolve(store, resolution);
    id
}

/// Every row of `share`, read in pages of two.
fn share_of(store: &Store, share: &AuditShare) -> Vec<RequestId> {
    let mut filter = AuditFilter::default();
    let mut seen = Vec::new();
    loop {
        let page = store.read().audit_share(&filter, share, 2).unwrap();
        let Some(last) = page.last() else { return seen };
        filter.after_id = Some(last.id);
        seen.extend(page.iter().map(|r| r.request_id));
    }
}

fn person(subject: &str, groups: &[&str]) -> AuditShare {
    AuditShare::Person { subject: subject.into(), groups: groups.iter().map(|g| (*g).to_owned()).collect() }
}

fn a_persons_share_is_what_is_addressed_to_them_and_what_they_answered(backend: Backend) {
    let (_db, mut store) = backend.store();
    let (ada, bo, root) =
        (Some("oidc:ada (Ada <ada@example.com>)"), Some("oidc:bo (Bo <bo@example.com>)"), Some("oidc:root (root)"));
    // Ada's group's question, answered by her; its session goes with retention.
    let gone = answered_in(&mut store, Some("group:eng"), ada, 10);
    let adas = answered_in(&mut store, Some("person:ada"), ada, 1_000);
    let bos = answered_in(&mut store, Some("person:bo"), bo, 1_100);
    let engs = answered_in(&mut store, Some("group:eng"), bo, 1_200);
    let everyones = answered_in(&mut store, None, None, 1_300);
    let ops = answered_in(&mut store, Some("group:ops"), root, 1_400);
    let pruned = store.write(|tx| tx.prune_finished(500, 5_000)).unwrap().value;
    assert_eq!(pruned.len(), 1, "only the first session goes");

    assert_eq!(share_of(&store, &AuditShare::Whole), [gone, adas, bos, engs, everyones, ops]);
    assert_eq!(
        share_of(&store, &person("ada", &["eng"])),
        [gone, adas, engs, everyones],
        "hers, her group's, everyone's, and what she answered"
    );
    assert_eq!(
        share_of(&store, &person("bo", &["eng"])),
        [bos, engs, everyones],
        "a gone session is nobody's but its answerer's"
    );
    assert_eq!(share_of(&store, &person("ad", &[])), [everyones], "a subject is matched whole, not as a prefix");
    assert_eq!(share_of(&store, &person("cy", &["ops", "eng"])), [engs, everyones, ops]);
    let deployer = AuditFilter { agent: Some("deployer".into()), since_ms: Some(1_100), ..AuditFilter::default() };
    let rows = store.read().audit_share(&deployer, &person("ada", &["eng"]), 100).unwrap();
    assert_eq!(
        rows.iter().map(|r| r.request_id).collect::<Vec<_>>(),
        [engs, everyones],
        "the filters hold within a share"
    );
}

fn a_read_only_connection_reads_the_trail_beside_the_writer_and_writes_nothing(backend: Backend) {
    let (db, mut store) = backend.store();
    let first = answered_in(&mut store, None, None, 10);
    let mut reader = db.open_read_only();
    assert_eq!(share_of(&reader, &AuditShare::Whole), [first]);
    let second = answered_in(&mut store, Some("person:ada"), None, 20);
    assert_eq!(share_of(&reader, &AuditShare::Whole), [first, second], "it sees later commits");
    assert!(reader.write(|tx| tx.prune_audit(i64::MAX)).is_err(), "writes are refused");
    assert_eq!(share_of(&store, &AuditShare::Whole), [first, second]);
}

conformance!(
    every_way_a_question_ends_leaves_one_row,
    a_repeat_or_a_conflict_writes_no_second_row,
    the_machine_is_the_token_that_asked,
    pages_follow_ids_and_filters,
    audit_rows_outlive_pruned_sessions_and_go_by_their_own_age,
    a_persons_share_is_what_is_addressed_to_them_and_what_they_answered,
    a_read_only_connection_reads_the_trail_beside_the_writer_and_writes_nothing,
);
