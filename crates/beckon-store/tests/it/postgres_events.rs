//! The event log on PostgreSQL: `seq` gap-free in commit order under concurrent replicas, so a
//! reader following it never skips an event — where a `bigserial` would — and listeners hear of
//! each commit.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use beckon_core::SessionId;
use beckon_store::{EVENTS_CHANNEL, Error, EventKind, EventPayload, NoDetails, Store, Tx};
use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, NoTls};
use rand::Rng;
use uuid::Uuid;

use crate::common::Backend;

/// Appends the `n`th test event (told apart by its session id).
fn append(tx: &mut Tx<'_>, n: u128) {
    tx.append_event(&EventPayload::SessionDeleted(NoDetails {}), Some(session(n)), None, 1).unwrap();
}

fn session(n: u128) -> SessionId {
    SessionId::from_uuid(Uuid::from_u128(n))
}

/// What a reader following `seq` sees: it reads what comes after the last seq it saw, as an
/// SSE stream or a long-poll does.
#[derive(Default)]
struct Follower {
    last: i64,
    seen: Vec<(i64, u128)>,
}

impl Follower {
    fn poll(&mut self, read_after: impl FnOnce(i64) -> Vec<(i64, u128)>) {
        for (seq, n) in read_after(self.last) {
            self.last = seq;
            self.seen.push((seq, n));
        }
    }
}

fn read_log(store: &Store) -> impl FnOnce(i64) -> Vec<(i64, u128)> + '_ {
    move |after| {
        store
            .read()
            .events_after(after, 1000)
            .unwrap()
            .into_iter()
            .map(|event| (event.seq, event.session_id.unwrap().as_uuid().as_u128()))
            .collect()
    }
}

#[test]
fn a_transaction_that_commits_later_gets_a_later_seq() {
    let (db, reader) = Backend::Postgres.store();
    let db = Arc::new(db);
    let (appended, first_appended) = mpsc::channel();
    let (go, commit_first) = mpsc::channel::<()>();
    // The first writer appends, then stays open.
    let first = {
        let db = Arc::clone(&db);
        std::thread::spawn(move || {
            let committed = db
                .open()
                .write(|tx| {
                    append(tx, 1);
                    appended.send(()).unwrap();
                    commit_first.recv().unwrap();
                    Ok(())
                })
                .unwrap();
            committed.events[0].seq
        })
    };
    first_appended.recv_timeout(Duration::from_secs(10)).unwrap();
    // The second appends and commits meanwhile: it is first in the log.
    let second = db
        .open()
        .write(|tx| {
            append(tx, 2);
            Ok(())
        })
        .unwrap();
    assert_eq!(second.events[0].seq, 1);
    let mut follower = Follower::default();
    follower.poll(read_log(&reader));
    assert_eq!(follower.seen, [(1, 2)]);

    go.send(()).unwrap();
    assert_eq!(first.join().unwrap(), 2, "the later commit takes the later number");
    follower.poll(read_log(&reader));
    assert_eq!(follower.seen, [(1, 2), (2, 1)]);
    let stored = reader.read().events_after(0, 10).unwrap();
    assert_eq!(stored[0].kind, EventKind::SessionDeleted);
    assert_eq!(stored[0].payload.get(), "{}");
    assert_eq!(reader.read().last_seq().unwrap(), 2);
}

#[test]
fn a_bigserial_log_makes_the_same_follower_skip_an_event() {
    // The trap this log avoids, shown with the same follower: numbers handed out at insert,
    // committed in another order.
    let (db, _store) = Backend::Postgres.store();
    let url = db.cluster().unwrap().url("beckon");
    let mut setup = Client::connect(&url, NoTls).unwrap();
    setup.batch_execute("CREATE TABLE naive (seq BIGSERIAL PRIMARY KEY, event BIGINT NOT NULL)").unwrap();
    let (mut early, mut late) = (Client::connect(&url, NoTls).unwrap(), Client::connect(&url, NoTls).unwrap());
    let mut reader = Client::connect(&url, NoTls).unwrap();
    let mut read_naive = |after: i64| -> Vec<(i64, u128)> {
        reader
            .query("SELECT seq, event FROM naive WHERE seq > $1 ORDER BY seq", &[&after])
            .unwrap()
            .iter()
            .map(|row| (row.get(0), row.get::<_, i64>(1) as u128))
            .collect()
    };
    let mut slow = early.transaction().unwrap();
    slow.execute("INSERT INTO naive (event) VALUES (1)", &[]).unwrap();
    late.execute("INSERT INTO naive (event) VALUES (2)", &[]).unwrap();
    let mut follower = Follower::default();
    follower.poll(&mut read_naive);
    slow.commit().unwrap();
    follower.poll(&mut read_naive);
    // The slow one committed under seq 1 after the follower had moved past it.
    assert_eq!(follower.seen, [(2, 2)]);
}

#[test]
fn concurrent_writers_never_make_a_follower_skip_or_repeat_an_event() {
    const WRITERS: usize = 8;
    const TRANSACTIONS: usize = 40;
    let (db, _store) = Backend::Postgres.store();
    let db = Arc::new(db);
    let stop = Arc::new(AtomicBool::new(false));

    let follower = {
        let (db, stop) = (Arc::clone(&db), Arc::clone(&stop));
        std::thread::spawn(move || {
            let store = db.open();
            let mut follower = Follower::default();
            loop {
                let finishing = stop.load(Ordering::SeqCst);
                follower.poll(read_log(&store));
                if finishing {
                    return follower.seen;
                }
                std::thread::sleep(Duration::from_micros(500));
            }
        })
    };

    let writers: Vec<_> = (0..WRITERS)
        .map(|writer| {
            let db = Arc::clone(&db);
            std::thread::spawn(move || {
                let mut store = db.open();
                let mut rng = rand::rng();
                let mut committed = Vec::new();
                for t in 0..TRANSACTIONS {
                    let events: Vec<u128> =
                        (0..rng.random_range(1..=3)).map(|e: usize| ((writer * 1_000 + t) * 10 + e) as u128).collect();
                    let pause = Duration::from_micros(rng.random_range(0..2000));
                    let roll_back = rng.random_bool(0.1);
                    let written = store.write(|tx| {
                        for n in &events {
                            append(tx, *n);
                        }
                        // Other work in the same transaction, of varying length, before it ends.
                        std::thread::sleep(pause);
                        if roll_back { Err(Error::GroupFailed("rolled back on purpose".into())) } else { Ok(()) }
                    });
                    if written.is_ok() {
                        committed.extend(events);
                    }
                }
                committed
            })
        })
        .collect();
    let committed: BTreeSet<u128> = writers.into_iter().flat_map(|writer| writer.join().unwrap()).collect();
    stop.store(true, Ordering::SeqCst);
    let seen = follower.join().unwrap();

    // Every committed event was read once, under 1, 2, 3, … with no gap, in the order read.
    let seqs: Vec<i64> = seen.iter().map(|(seq, _)| *seq).collect();
    assert_eq!(seqs, (1..=committed.len() as i64).collect::<Vec<_>>());
    let read: BTreeSet<u128> = seen.into_iter().map(|(_, n)| n).collect();
    assert_eq!(read, committed);
    // And nothing rolled back was left in the log.
    assert_eq!(db.open().read().last_seq().unwrap(), committed.len() as i64);
}

#[test]
fn listeners_hear_of_commits_with_their_last_seq_and_never_of_rollbacks() {
    let (db, mut writer) = Backend::Postgres.store();
    let mut listener = Client::connect(&db.cluster().unwrap().url("beckon"), NoTls).unwrap();
    listener.batch_execute(&format!("LISTEN {EVENTS_CHANNEL}")).unwrap();

    let rolled_back = writer.write(|tx| {
        append(tx, 1);
        Err::<(), _>(Error::GroupFailed("rolled back on purpose".into()))
    });
    assert!(rolled_back.is_err());
    writer
        .write(|tx| {
            append(tx, 2);
            append(tx, 3);
            Ok(())
        })
        .unwrap();

    let mut heard = Vec::new();
    let mut notifications = listener.notifications();
    let mut waiting = notifications.timeout_iter(Duration::from_millis(500));
    while let Some(notification) = waiting.next().unwrap() {
        assert_eq!(notification.channel(), EVENTS_CHANNEL);
        heard.push(notification.payload().to_owned());
    }
    // The rolled-back append said nothing (and gave its number back); the commit says once
    // how far the log now goes.
    assert_eq!(heard, ["2"]);
}
