//! Leases on PostgreSQL: one holder at a time, taken over once it runs out.

use std::sync::{Arc, Barrier};

use beckon_store::Store;

use crate::common::Backend;

fn claim(store: &mut Store, work: &str, owner: &str, now_ms: i64, ttl_ms: i64) -> Option<i64> {
    store.write(|tx| tx.claim_lease(work, owner, now_ms, ttl_ms)).unwrap().value.map(|lease| lease.expires_at_ms)
}

#[test]
fn one_replica_holds_work_until_it_lets_go_or_its_lease_runs_out() {
    let (db, mut a) = Backend::Postgres.store();
    let mut b = db.open();

    assert_eq!(claim(&mut a, "retention", "replica-a", 1_000, 500), Some(1_500));
    assert_eq!(claim(&mut b, "retention", "replica-b", 1_200, 500), None);
    // Other work is free.
    assert!(claim(&mut b, "session:7", "replica-b", 1_200, 500).is_some());
    // The holder renews; the other still waits.
    assert_eq!(claim(&mut a, "retention", "replica-a", 1_400, 500), Some(1_900));
    assert_eq!(claim(&mut b, "retention", "replica-b", 1_600, 500), None);
    assert_eq!(b.read().lease_holder("retention", 1_600).unwrap().unwrap().owner, "replica-a");
    // replica-a dies: no more renewals; once the lease runs out, replica-b takes the work.
    assert_eq!(b.read().lease_holder("retention", 1_900).unwrap(), None);
    assert!(claim(&mut b, "retention", "replica-b", 1_900, 500).is_some());
    // A replica that comes back finds its work gone and cannot renew it.
    assert_eq!(claim(&mut a, "retention", "replica-a", 2_000, 500), None);
    assert!(!a.write(|tx| tx.release_lease("retention", "replica-a")).unwrap().value);
    // Letting go frees it at once.
    assert!(b.write(|tx| tx.release_lease("retention", "replica-b")).unwrap().value);
    assert!(claim(&mut a, "retention", "replica-a", 2_000, 500).is_some());
}

#[test]
fn many_works_are_claimed_and_given_back_in_one_statement_each_as_one_by_one() {
    let (db, mut a) = Backend::Postgres.store();
    let mut b = db.open();
    assert!(claim(&mut b, "session:held", "replica-b", 1_000, 5_000).is_some());
    assert!(claim(&mut b, "session:ran-out", "replica-b", 1_000, 500).is_some());
    assert!(claim(&mut a, "session:mine", "replica-a", 1_000, 500).is_some());

    // Free, held by another, another's run out, already this replica's, and one named twice.
    let works = ["session:new", "session:held", "session:ran-out", "session:mine", "session:new"];
    let claimed = a.write(|tx| tx.claim_leases(&works, "replica-a", 2_000, 1_000)).unwrap().value;
    assert_eq!(claimed, ["session:mine", "session:new", "session:ran-out"]);
    for work in &claimed {
        let lease = a.read().lease_holder(work, 2_000).unwrap().unwrap();
        assert_eq!((lease.owner.as_str(), lease.expires_at_ms), ("replica-a", 3_000), "{work}");
    }
    assert_eq!(a.read().lease_holder("session:held", 2_000).unwrap().unwrap().owner, "replica-b");

    // Only what the owner holds is given back; the others' stay.
    let works = ["session:new", "session:held", "session:mine", "session:unknown"];
    let released = a.write(|tx| tx.release_leases_on(&works, "replica-a")).unwrap().value;
    assert_eq!(released, ["session:mine", "session:new"]);
    assert_eq!(a.read().lease_holder("session:new", 2_000).unwrap(), None);
    assert_eq!(a.read().lease_holder("session:ran-out", 2_000).unwrap().unwrap().owner, "replica-a");
    assert_eq!(a.read().lease_holder("session:held", 2_000).unwrap().unwrap().owner, "replica-b");
    // Nothing to claim or give back is no statement at all, and no error.
    assert!(a.write(|tx| tx.claim_leases(&[], "replica-a", 2_000, 1_000)).unwrap().value.is_empty());
}

#[test]
fn replicas_claiming_overlapping_works_at_once_each_get_a_share_and_never_deadlock() {
    const REPLICAS: usize = 6;
    const ROUNDS: i64 = 20;
    let (db, _store) = Backend::Postgres.store();
    let db = Arc::new(db);
    let barrier = Arc::new(Barrier::new(REPLICAS));
    let works: Vec<String> = (0..12).map(|n| format!("session:{n}")).collect();
    let replicas: Vec<_> = (0..REPLICAS)
        .map(|replica| {
            let (db, barrier, works) = (Arc::clone(&db), Arc::clone(&barrier), works.clone());
            std::thread::spawn(move || {
                let mut store = db.open();
                let owner = format!("replica-{replica}");
                (0..ROUNDS)
                    .map(|round| {
                        // Each asks for the works in its own order: rows are locked in name order.
                        let mut mine: Vec<&str> = works.iter().map(String::as_str).collect();
                        mine.rotate_left(replica * 2);
                        barrier.wait();
                        // A failure (a deadlock) is kept for the end: the others still meet here.
                        let claimed = store
                            .write(|tx| tx.claim_leases(&mine, &owner, round * 1_000, 1_000))
                            .map(|written| written.value)
                            .map_err(|err| err.to_string());
                        barrier.wait();
                        claimed
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut per_round: Vec<Vec<String>> = vec![Vec::new(); ROUNDS as usize];
    for replica in replicas {
        for (round, claimed) in replica.join().unwrap().into_iter().enumerate() {
            per_round[round].extend(claimed.expect("no claim fails, deadlocks included"));
        }
    }
    let mut every = works.clone();
    every.sort();
    for (round, mut claimed) in per_round.into_iter().enumerate() {
        claimed.sort();
        assert_eq!(claimed, every, "round {round}: each work claimed once");
    }
}

#[test]
fn replicas_claiming_at_the_same_moment_get_one_holder() {
    const REPLICAS: usize = 8;
    const ROUNDS: i64 = 30;
    let (db, _store) = Backend::Postgres.store();
    let db = Arc::new(db);
    let barrier = Arc::new(Barrier::new(REPLICAS));
    let replicas: Vec<_> = (0..REPLICAS)
        .map(|replica| {
            let (db, barrier) = (Arc::clone(&db), Arc::clone(&barrier));
            std::thread::spawn(move || {
                let mut store = db.open();
                let owner = format!("replica-{replica}");
                // Each round is a moment after the last lease ran out: everyone claims at once.
                (0..ROUNDS)
                    .filter(|round| {
                        barrier.wait();
                        let won = claim(&mut store, "retention", &owner, round * 1_000, 1_000).is_some();
                        barrier.wait();
                        won
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut winners_per_round = vec![0; ROUNDS as usize];
    for replica in replicas {
        for round in replica.join().unwrap() {
            winners_per_round[round as usize] += 1;
        }
    }
    assert_eq!(winners_per_round, vec![1; ROUNDS as usize]);
}

#[test]
fn on_sqlite_the_one_process_always_holds_the_work() {
    let (_db, mut store) = Backend::Sqlite.store();
    assert!(claim(&mut store, "retention", "a", 1_000, 500).is_some());
    assert!(claim(&mut store, "retention", "b", 1_100, 500).is_some());
    assert_eq!(store.read().lease_holder("retention", 1_100).unwrap(), None);
}

#[test]
fn a_heartbeat_renews_only_what_its_replica_still_holds_and_a_restart_lets_go_of_everything() {
    let (db, mut a) = Backend::Postgres.store();
    let mut b = db.open();
    assert!(claim(&mut a, "session:1", "replica-a", 1_000, 500).is_some());
    assert!(claim(&mut a, "session:2", "replica-a", 1_000, 500).is_some());
    assert!(claim(&mut a, "outbox", "replica-a", 1_000, 500).is_some());
    assert!(claim(&mut b, "session:3", "replica-b", 1_000, 500).is_some());

    // replica-a's heartbeat at 1,400 carries its three leases to 1,900; replica-b's is untouched.
    assert_eq!(a.write(|tx| tx.renew_leases("replica-a", 1_400, 500)).unwrap().value, 3);
    let held = |store: &Store, at: i64| {
        let mut works: Vec<(String, String)> = store
            .read()
            .leases_held("session:", at)
            .unwrap()
            .into_iter()
            .map(|lease| (lease.work, lease.owner))
            .collect();
        works.sort();
        works
    };
    assert_eq!(held(&b, 1_600), [("session:1".into(), "replica-a".into()), ("session:2".into(), "replica-a".into())]);
    // A lease that ran out is not renewed (another replica may have been promised it).
    assert_eq!(b.write(|tx| tx.renew_leases("replica-b", 1_600, 500)).unwrap().value, 0);
    assert!(claim(&mut a, "session:3", "replica-a", 1_600, 500).is_some());

    // replica-a starts again: it holds nothing, and replica-b may take any of it at once.
    assert_eq!(a.write(|tx| tx.release_leases("replica-a")).unwrap().value, 4);
    assert!(held(&b, 1_700).is_empty());
    assert!(claim(&mut b, "outbox", "replica-b", 1_700, 500).is_some());
}

#[test]
fn on_sqlite_every_claim_succeeds_and_nothing_is_held() {
    let (_db, mut store) = Backend::Sqlite.store();
    assert!(claim(&mut store, "session:1", "replica-a", 1_000, 500).is_some());
    assert!(claim(&mut store, "session:1", "replica-b", 1_000, 500).is_some());
    assert!(store.read().leases_held("session:", 1_000).unwrap().is_empty());
    assert_eq!(store.write(|tx| tx.renew_leases("replica-a", 1_000, 500)).unwrap().value, 0);
    let works = ["session:2", "session:1", "session:2"];
    assert_eq!(
        store.write(|tx| tx.claim_leases(&works, "replica-b", 1_000, 500)).unwrap().value,
        ["session:1", "session:2"]
    );
    assert_eq!(store.write(|tx| tx.release_leases_on(&works, "replica-a")).unwrap().value, ["session:1", "session:2"]);
}
