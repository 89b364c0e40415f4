//! People signing in on a team server: a sign-in under way is taken at most once and only
//! before it expires; a browser session reads back by its cookie hash until it expires or is
//! closed; pruning forgets only what expired; logins under way are capped, oldest dropped first;
//! wrong pairing codes are counted per account and per channel, alike from every replica.

use beckon_store::{NewSignIn, PersonSession, SignedIn};

use crate::common::{Backend, conformance};

fn sign_in(state: &str, expires_at_ms: i64) -> NewSignIn {
    NewSignIn {
        state: state.into(),
        secret: format!("{{\"verifier\":\"v-{state}\"}}"),
        next: "/inbox".into(),
        at_ms: 100,
        expires_at_ms,
    }
}

fn session(byte: u8, subject: &str, expires_at_ms: i64) -> PersonSession {
    PersonSession {
        id_hash: [byte; 32],
        person: SignedIn {
            subject: subject.into(),
            email: Some(format!("{subject}@example.com")),
            name: None,
            groups: vec!["eng".into(), "on-call".into()],
        },
        created_at_ms: 100,
        expires_at_ms,
    }
}

fn a_sign_in_is_taken_once_and_only_before_it_expires(backend: Backend) {
    let (_db, mut store) = backend.store();
    store.write(|tx| tx.begin_sign_in(&sign_in("s1", 1_000))).unwrap();
    store.write(|tx| tx.begin_sign_in(&sign_in("s2", 1_000))).unwrap();
    let taken = store.write(|tx| tx.take_sign_in("s1", 999)).unwrap().value.unwrap();
    assert_eq!((taken.secret.as_str(), taken.next.as_str()), ("{\"verifier\":\"v-s1\"}", "/inbox"));
    assert!(store.write(|tx| tx.take_sign_in("s1", 999)).unwrap().value.is_none(), "taken once");
    assert!(store.write(|tx| tx.take_sign_in("s2", 1_000)).unwrap().value.is_none(), "expired");
    assert!(store.write(|tx| tx.take_sign_in("s2", 10)).unwrap().value.is_none(), "an expired one is gone too");
    assert!(store.write(|tx| tx.take_sign_in("never", 10)).unwrap().value.is_none());
}

fn a_browser_session_reads_back_until_it_expires_or_is_closed(backend: Backend) {
    let (_db, mut store) = backend.store();
    let ada = session(1, "ada", 5_000);
    store.write(|tx| tx.open_person_session(&ada)).unwrap();
    store.write(|tx| tx.open_person_session(&session(2, "bo", 5_000))).unwrap();
    assert_eq!(store.read().person_session(&[1; 32], 4_999).unwrap(), Some(ada));
    assert_eq!(store.read().person_session(&[1; 32], 5_000).unwrap(), None, "expired");
    assert_eq!(store.read().person_session(&[3; 32], 10).unwrap(), None, "no such cookie");
    assert!(store.write(|tx| tx.close_person_session(&[1; 32])).unwrap().value);
    assert!(!store.write(|tx| tx.close_person_session(&[1; 32])).unwrap().value, "closed once");
    assert_eq!(store.read().person_session(&[1; 32], 10).unwrap(), None, "signed out");
    assert_eq!(store.read().person_session(&[2; 32], 10).unwrap().unwrap().person.subject, "bo");
}

fn pruning_forgets_only_what_expired(backend: Backend) {
    let (_db, mut store) = backend.store();
    store.write(|tx| tx.begin_sign_in(&sign_in("old", 1_000))).unwrap();
    store.write(|tx| tx.begin_sign_in(&sign_in("new", 3_000))).unwrap();
    store.write(|tx| tx.open_person_session(&session(1, "ada", 1_000))).unwrap();
    store.write(|tx| tx.open_person_session(&session(2, "bo", 3_000))).unwrap();
    assert_eq!(store.write(|tx| tx.prune_sign_ins(2_000)).unwrap().value, 2);
    assert!(store.write(|tx| tx.take_sign_in("new", 2_000)).unwrap().value.is_some());
    assert!(store.read().person_session(&[2; 32], 2_000).unwrap().is_some());
    assert_eq!(store.write(|tx| tx.prune_sign_ins(2_000)).unwrap().value, 0);
}

/// A flood of logins keeps only the newest; a signed-in person's app and pairing codes are not
/// among what is dropped.
fn sign_ins_begun_at_the_login_page_are_capped_oldest_first(backend: Backend) {
    let (_db, mut store) = backend.store();
    let pairing = NewSignIn { state: "pair:slack:abc".into(), at_ms: 1, ..sign_in("-", 9_000) };
    store.write(|tx| tx.begin_sign_in(&pairing)).unwrap();
    for n in 0..10 {
        let login = NewSignIn { at_ms: 10 + n, ..sign_in(&format!("login-{n}"), 9_000) };
        store.write(|tx| tx.begin_sign_in(&login)).unwrap();
    }
    assert_eq!(store.write(|tx| tx.cap_sign_ins(4)).unwrap().value, 6);
    assert_eq!(store.write(|tx| tx.cap_sign_ins(4)).unwrap().value, 0, "within the cap");
    for n in 0..6 {
        assert!(store.write(|tx| tx.take_sign_in(&format!("login-{n}"), 20)).unwrap().value.is_none(), "{n} dropped");
    }
    for n in 6..10 {
        assert!(store.write(|tx| tx.take_sign_in(&format!("login-{n}"), 20)).unwrap().value.is_some(), "{n} kept");
    }
    assert!(store.write(|tx| tx.take_sign_in("pair:slack:abc", 20)).unwrap().value.is_some(), "not a login");
}

/// Two replicas beginning sign-ins at the same moment still keep no more than the cap: the
/// second to trim counts the first's new row, though the first has not committed when the
/// second begins.
fn sign_ins_begun_on_two_replicas_at_once_stay_within_the_cap(backend: Backend) {
    let (db, mut store) = backend.store();
    for n in 0..3 {
        let login = NewSignIn { at_ms: 10 + n, ..sign_in(&format!("login-{n}"), 9_000) };
        store.write(|tx| tx.begin_sign_in(&login)).unwrap();
    }
    let (capped, on_a) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut a = db.open();
            a.write(|tx| {
                tx.begin_sign_in(&NewSignIn { at_ms: 20, ..sign_in("a", 9_000) })?;
                tx.cap_sign_ins(4)?;
                capped.send(()).unwrap();
                // Still uncommitted while the other replica begins and trims.
                std::thread::sleep(std::time::Duration::from_millis(400));
                Ok(())
            })
            .unwrap();
        });
        on_a.recv().unwrap();
        let mut b = db.open();
        b.write(|tx| {
            tx.begin_sign_in(&NewSignIn { at_ms: 30, ..sign_in("b", 9_000) })?;
            tx.cap_sign_ins(4)
        })
        .unwrap();
    });
    let states = ["login-0", "login-1", "login-2", "a", "b"];
    let kept: Vec<&str> = states
        .into_iter()
        .filter(|state| store.write(|tx| tx.take_sign_in(state, 20)).unwrap().value.is_some())
        .collect();
    assert_eq!(kept, ["login-1", "login-2", "a", "b"], "the oldest dropped, four kept");
}

/// Wrong pairing codes are counted from a moment on, per account and for the whole channel, the
/// same through every connection (another replica's); recording one forgets the channel's misses
/// from before the moment it is given, and no other channel's.
fn wrong_pairing_codes_are_counted_per_account_and_per_channel_alike_by_every_replica(backend: Backend) {
    let (db, mut store) = backend.store();
    let mut other = db.open();
    for at in [100, 200, 300] {
        store.write(|tx| tx.record_pairing_miss("slack", "U0MAL", at, 0)).unwrap();
    }
    other.write(|tx| tx.record_pairing_miss("slack", "U0EVE", 250, 0)).unwrap();
    other.write(|tx| tx.record_pairing_miss("telegram", "777", 250, 0)).unwrap();
    for replica in [&store, &other] {
        let read = replica.read();
        assert_eq!(read.pairing_misses("slack", Some("U0MAL"), 0).unwrap(), 3);
        assert_eq!(read.pairing_misses("slack", Some("U0MAL"), 200).unwrap(), 2, "from 200 on");
        assert_eq!(read.pairing_misses("slack", Some("U0MAL"), 301).unwrap(), 0);
        assert_eq!(read.pairing_misses("slack", Some("U0EVE"), 0).unwrap(), 1);
        assert_eq!(read.pairing_misses("slack", Some("777"), 0).unwrap(), 0, "another channel's account");
        assert_eq!(read.pairing_misses("slack", None, 0).unwrap(), 4, "every account's");
        assert_eq!(read.pairing_misses("telegram", None, 0).unwrap(), 1);
    }
    other.write(|tx| tx.record_pairing_miss("slack", "U0EVE", 1_000, 250)).unwrap();
    let read = store.read();
    assert_eq!(read.pairing_misses("slack", None, 0).unwrap(), 3, "those at 250, 300 and 1000 are kept");
    assert_eq!(read.pairing_misses("slack", Some("U0MAL"), 0).unwrap(), 1);
    assert_eq!(read.pairing_misses("slack", Some("U0EVE"), 0).unwrap(), 2);
    assert_eq!(read.pairing_misses("telegram", None, 0).unwrap(), 1, "another channel's are kept");
}

conformance!(
    wrong_pairing_codes_are_counted_per_account_and_per_channel_alike_by_every_replica,
    sign_ins_begun_at_the_login_page_are_capped_oldest_first,
    sign_ins_begun_on_two_replicas_at_once_stay_within_the_cap,
    a_sign_in_is_taken_once_and_only_before_it_expires,
    a_browser_session_reads_back_until_it_expires_or_is_closed,
    pruning_forgets_only_what_expired,
);
