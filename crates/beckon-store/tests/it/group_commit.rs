//! Group commit: any sequence of writes, committed in groups of any sizes, leaves the same
//! database and gives every write the same outcome as committing them one at a time — failing
//! writes included, which roll back alone (the group run again, each job in a savepoint of its
//! own). At most one commit (one sync) per group. On both backends: a failure PostgreSQL
//! answers by aborting the transaction is undone for its job alone.

use beckon_core::SessionId;
use beckon_store::{Error, Store, Tx};
use proptest::prelude::*;
use uuid::Uuid;

use crate::common::{self, conformance};

/// One write a test can make.
#[derive(Debug, Clone)]
enum Op {
    /// Sets a setting.
    Set(u8, u8),
    /// Starts session `n` (a second start of the same session fails: its id is taken).
    Start(u8),
    /// Asks a question in session `n` (fails when the session does not exist or already waits).
    Ask(u8, u8),
    /// Writes a setting, then fails.
    SetThenFail(u8),
}

fn session(n: u8) -> SessionId {
    SessionId::from_uuid(Uuid::from_u128(u128::from(n) + 1))
}

fn apply(op: &Op, tx: &mut Tx<'_>) -> beckon_store::Result<()> {
    match *op {
        Op::Set(key, value) => tx.set_setting(&format!("k{key}"), &format!("v{value}")),
        Op::Start(n) => tx.start_session(&common::new_session(session(n), "poet", i64::from(n))),
        Op::Ask(n, q) => {
            let id = beckon_core::RequestId::from_uuid(Uuid::from_u128((u128::from(n) << 16) + u128::from(q) + 1_000));
            tx.ask(&common::new_question(id, session(n), "poet", i64::from(q)))
        }
        Op::SetThenFail(key) => {
            tx.set_setting(&format!("k{key}"), "doomed")?;
            Err(Error::TooLarge { what: "a test write", size: 1, limit: 0 })
        }
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..4, any::<u8>()).prop_map(|(k, v)| Op::Set(k, v)),
        (0u8..4).prop_map(Op::Start),
        (0u8..4, 0u8..3).prop_map(|(n, q)| Op::Ask(n, q)),
        (0u8..4).prop_map(Op::SetThenFail),
    ]
}

/// Everything the writes can touch, in a comparable form.
fn dump(store: &Store) -> Vec<String> {
    let conn = store.connection();
    let mut rows = Vec::new();
    for sql in [
        "SELECT 'setting ' || key || '=' || value FROM settings WHERE key LIKE 'k%' ORDER BY key",
        "SELECT 'session ' || id || ' ' || status FROM sessions ORDER BY id",
        "SELECT 'question ' || id || ' ' || status FROM questions ORDER BY id",
        "SELECT 'event ' || seq || ' ' || kind || ' ' || coalesce(request_id, '') FROM events ORDER BY seq",
        "SELECT 'message ' || session_id || ' ' || kind FROM messages ORDER BY session_id, position",
    ] {
        let mut statement = conn.prepare(sql).unwrap();
        rows.extend(statement.query_map([], |row| row.get::<_, String>(0)).unwrap().map(Result::unwrap));
    }
    rows
}

/// An outcome as comparable text: the events' seqs and kinds, or the error.
fn outcome(result: &beckon_store::Result<Vec<(i64, String)>>) -> String {
    match result {
        Ok(events) => format!("ok {events:?}"),
        Err(err) => format!("err {err}"),
    }
}

/// Each of `ops` committed alone, in order: their outcomes.
fn one_at_a_time(store: &mut Store, ops: &[Op]) -> Vec<String> {
    ops.iter()
        .map(|op| {
            let result = store.write(|tx| apply(op, tx)).map(|committed| {
                committed.events.iter().map(|e| (e.seq, e.kind.as_str().to_owned())).collect::<Vec<_>>()
            });
            outcome(&result)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn groups_of_any_sizes_give_what_one_at_a_time_gives(
        ops in prop::collection::vec(op(), 1..24),
        cuts in prop::collection::vec(1usize..6, 1..24),
    ) {
        let (_one_dir, mut one) = common::file_store();
        let singly = one_at_a_time(&mut one, &ops);

        let (_group_dir, mut grouped) = common::file_store();
        let before = grouped.commits();
        let mut outcomes = Vec::new();
        let mut rest: &[Op] = &ops;
        let (mut groups, mut groups_that_wrote) = (0, 0);
        for size in cuts.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (group, after) = rest.split_at((*size).min(rest.len()));
            let mut jobs: Vec<Op> = group.to_vec();
            let results = grouped.write_group(&mut jobs, |op, tx| apply(op, tx));
            groups_that_wrote += u64::from(results.iter().any(Result::is_ok));
            for result in results {
                let result = result.map(|written| {
                    written.events.iter().map(|e| (e.seq, e.kind.as_str().to_owned())).collect::<Vec<_>>()
                });
                outcomes.push(outcome(&result));
            }
            groups += 1;
            rest = after;
        }
        prop_assert_eq!(outcomes, singly);
        prop_assert_eq!(dump(&grouped), dump(&one));
        // A group run again after a failure still commits once; one whose only job failed
        // has nothing to commit.
        let commits = grouped.commits() - before;
        prop_assert!(commits <= groups && commits >= groups_that_wrote, "{commits} commits, {groups} groups");
    }
}

#[test]
fn a_failed_write_in_a_group_leaves_no_trace_and_the_others_commit() {
    let (_dir, mut store) = common::file_store();
    let mut jobs = vec![Op::Start(1), Op::SetThenFail(2), Op::Set(3, 3)];
    let results = store.write_group(&mut jobs, |op, tx| apply(op, tx));
    assert!(results[0].as_ref().is_ok_and(|w| !w.events.is_empty()), "{results:?}");
    assert!(matches!(results[1], Err(Error::TooLarge { .. })), "{results:?}");
    assert!(results[2].is_ok());
    let rows = dump(&store);
    assert!(rows.contains(&"setting k3=v3".to_owned()), "{rows:?}");
    assert!(!rows.iter().any(|row| row.starts_with("setting k2")), "the failed write's setting is gone: {rows:?}");
}

/// What a store holds that the ops can touch, read through the store's own reads (either
/// backend).
fn read_back(store: &Store) -> Vec<String> {
    let read = store.read();
    let mut rows = Vec::new();
    for key in 0u8..4 {
        rows.push(format!("k{key}={:?}", read.setting(&format!("k{key}")).unwrap()));
    }
    for n in 0u8..4 {
        rows.push(format!("session {n}: {:?}", read.session(session(n)).unwrap().map(|s| s.status)));
    }
    for event in read.events_after(0, 1000).unwrap() {
        rows.push(format!("event {} {}", event.seq, event.kind.as_str()));
    }
    rows
}

/// Jobs that fail by themselves (an error of the job's own, a constraint the database refuses)
/// among jobs that succeed, in groups: each outcome and the store as committing one at a time
/// leaves them.
fn failed_jobs_roll_back_alone(backend: common::Backend) {
    let ops = [
        Op::Start(1),
        Op::SetThenFail(2),
        Op::Set(3, 3),
        Op::Start(1),
        Op::Start(1),
        Op::Ask(1, 0),
        Op::Ask(1, 1),
        Op::Set(2, 2),
        Op::Ask(3, 0),
        Op::Start(2),
    ];
    let (_one_db, mut one) = backend.store();
    let singly = one_at_a_time(&mut one, &ops);
    let (_grouped_db, mut grouped) = backend.store();
    let mut outcomes = Vec::new();
    let before = grouped.commits();
    for group in [&ops[..1], &ops[1..6], &ops[6..]] {
        let mut jobs = group.to_vec();
        for result in grouped.write_group(&mut jobs, |op, tx| apply(op, tx)) {
            let result = result
                .map(|written| written.events.iter().map(|e| (e.seq, e.kind.as_str().to_owned())).collect::<Vec<_>>());
            outcomes.push(outcome(&result));
        }
    }
    assert_eq!(outcomes, singly);
    assert!(outcomes.iter().filter(|outcome| outcome.starts_with("err")).count() >= 4, "{outcomes:?}");
    assert_eq!(read_back(&grouped), read_back(&one));
    assert_eq!(grouped.commits() - before, 3, "one commit per group");
}

/// A group runs each job once when none fails. When one fails, the group is rolled back and
/// run again from the start, each job in a savepoint of its own: the jobs before the failure
/// run twice, the failed one twice, those after it once (they had not run yet), and only the
/// last run's writes stay.
fn a_failure_runs_the_group_again_and_only_then(backend: common::Backend) {
    let (_db, mut store) = backend.store();
    let mut runs = [0u32; 3];
    let mut jobs = [(0usize, Op::Set(0, 1)), (1, Op::Set(1, 1)), (2, Op::Set(2, 1))];
    let results = store.write_group(&mut jobs, |(n, op), tx| {
        runs[*n] += 1;
        apply(op, tx)
    });
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(runs, [1, 1, 1]);

    let mut runs = [0u32; 3];
    let mut jobs = [(0usize, Op::Set(0, 2)), (1, Op::SetThenFail(1)), (2, Op::Set(2, 2))];
    let results = store.write_group(&mut jobs, |(n, op), tx| {
        runs[*n] += 1;
        apply(op, tx)
    });
    assert!(results[0].is_ok() && results[2].is_ok(), "{results:?}");
    assert!(matches!(results[1], Err(Error::TooLarge { .. })), "{results:?}");
    assert_eq!(runs, [2, 2, 1]);
    let rows = read_back(&store);
    assert_eq!(rows[..3], ["k0=Some(\"v2\")", "k1=Some(\"v1\")", "k2=Some(\"v2\")"], "{rows:?}");
}

conformance!(failed_jobs_roll_back_alone, a_failure_runs_the_group_again_and_only_then);
