//! Resolving many questions in one transaction: each in its own savepoint, a failing one undone
//! alone, one commit for all, and the store counts what it resolved.

use beckon_store::{AuditFilter, Error, EventKind, Resolved};

use crate::common::{Backend, answered, asked, conformance, request_id, resolution};

fn a_failing_resolution_is_undone_alone_and_the_rest_commit_together(backend: Backend) {
    let (_db, mut store) = backend.store();
    let (_, first) = asked(&mut store, "poet", 10);
    let (_, second) = asked(&mut store, "poet", 20);
    let (_, settled) = asked(&mut store, "poet", 30);
    store.write(|tx| tx.resolve(&resolution(settled, answered("Haiku"), 40))).unwrap();
    let (commits, resolutions) = (store.commits(), store.resolutions());
    let unknown = request_id();

    let batch = [first, unknown, settled, second].map(|id| resolution(id, answered("Sonnet"), 50));
    let committed = store.write(|tx| Ok(tx.resolve_each(&batch))).unwrap();
    let outcomes = committed.value;
    assert!(matches!(&outcomes[0], Ok(Resolved::Now(q)) if q.id == first));
    assert!(matches!(&outcomes[1], Err(Error::QuestionNotFound(id)) if *id == unknown));
    assert!(matches!(&outcomes[2], Err(Error::AlreadyResolved(winner)) if winner.id == settled));
    assert!(matches!(&outcomes[3], Ok(Resolved::Now(q)) if q.id == second));
    let resolved_events = committed.events.iter().filter(|e| e.kind == EventKind::QuestionResolved).count();
    assert_eq!(resolved_events, 2, "only the resolutions that stood have events");
    assert_eq!((store.commits() - commits, store.resolutions() - resolutions), (1, 2));
    assert_eq!(store.read().audit(&AuditFilter::default(), 10).unwrap().len(), 3);
}

conformance!(a_failing_resolution_is_undone_alone_and_the_rest_commit_together,);
