//! Web Push's rows on both backends: a device kept for the sign-in it was made in (and gone
//! with it), the questions each device is owed (its person's, asked since it was added), a push
//! recorded before it is sent and due again after a crash, retries and giving up, and a device
//! the push service forgot.

use beckon_core::{Audience, Outcome, RequestId};
use beckon_store::{PersonSession, PushAttempt, PushDevice, PushState, SignedIn, Store};

use crate::common::*;

const NOW: i64 = 100_000;

fn sign_in(store: &mut Store, byte: u8, subject: &str, groups: &[&str]) -> [u8; 32] {
    let session = PersonSession {
        id_hash: [byte; 32],
        person: SignedIn {
            subject: subject.into(),
            email: None,
            name: None,
            groups: groups.iter().map(|g| (*g).to_owned()).collect(),
        },
        created_at_ms: 0,
        expires_at_ms: NOW * 10,
    };
    store.write(|tx| tx.open_person_session(&session)).unwrap();
    session.id_hash
}

fn device(endpoint: &str, session_hash: [u8; 32], subject: &str, created_at_ms: i64) -> PushDevice {
    PushDevice {
        endpoint: endpoint.into(),
        session_hash,
        subject: subject.into(),
        p256dh: "BPublicKey".into(),
        auth: "secret".into(),
        created_at_ms,
    }
}

/// A pending question asked at `at`, addressed to `audience` (everyone's without one).
fn ask(store: &mut Store, at: i64, audience: Option<Audience>) -> RequestId {
    let (session, question) = (session_id(), request_id());
    store
        .write(|tx| {
            tx.start_session(&new_session(session, "deploy", at))?;
            if let Some(audience) = &audience {
                tx.address_session(session, audience)?;
            }
            tx.ask(&new_question(question, session, "deploy", at))
        })
        .unwrap();
    question
}

/// The questions owed to each device at `now`, by endpoint.
fn owed(store: &Store, now: i64) -> Vec<(String, Vec<RequestId>)> {
    let (due, _) = store.read().push_work(now, now, 0, 100).unwrap();
    due.into_iter().map(|d| (d.device.endpoint.clone(), d.questions.iter().map(|(q, _)| q.id).collect())).collect()
}

fn attempt<'a>(endpoint: &'a str, ids: &'a [RequestId]) -> PushAttempt<'a> {
    PushAttempt { endpoint, request_ids: ids }
}

fn a_device_is_owed_its_persons_questions_asked_since_it_was_added(backend: Backend) {
    let (_db, mut store) = backend.store();
    let before = ask(&mut store, 10, None);
    let ada = sign_in(&mut store, 1, "ada", &["eng"]);
    let bo = sign_in(&mut store, 2, "bo", &[]);
    store.write(|tx| tx.add_push_device(&device("https://push.example/ada", ada, "ada", 20))).unwrap();
    store.write(|tx| tx.add_push_device(&device("https://push.example/bo", bo, "bo", 20))).unwrap();
    let everyone = ask(&mut store, 30, None);
    let adas = ask(&mut store, 40, Some(Audience::Person("ada".into())));
    let engs = ask(&mut store, 50, Some(Audience::Group("eng".into())));
    let bos = ask(&mut store, 60, Some(Audience::Person("bo".into())));
    let sales = ask(&mut store, 70, Some(Audience::Group("sales".into())));
    assert_ne!(before, everyone);
    assert_eq!(
        owed(&store, NOW),
        [
            ("https://push.example/ada".to_owned(), vec![everyone, adas, engs]),
            ("https://push.example/bo".to_owned(), vec![everyone, bos]),
        ],
        "each person's own, their groups' and everyone's, none from before; {sales} is nobody's here"
    );
    // A question asked after `asked_by` waits, and says when it comes of age.
    let (due, next) = store.read().push_work(NOW, 55, 1_000, 100).unwrap();
    assert_eq!(due[0].questions.len(), 3, "ada's three were asked by 55");
    assert_eq!(next, Some(1_060), "bo's, asked at 60, comes of age a second later");
    // A question that ended is owed to no one.
    store.write(|tx| tx.resolve(&resolution(everyone, Outcome::Declined { reason: None }, 80))).unwrap();
    assert_eq!(owed(&store, NOW)[0].1, [adas, engs]);
}

fn a_device_goes_with_its_sign_in_and_a_new_sign_in_starts_afresh(backend: Backend) {
    let (_db, mut store) = backend.store();
    let first = sign_in(&mut store, 1, "ada", &[]);
    let endpoint = "https://push.example/browser";
    store.write(|tx| tx.add_push_device(&device(endpoint, first, "ada", 20))).unwrap();
    let id = ask(&mut store, 30, None);
    store.write(|tx| tx.begin_push(&attempt(endpoint, &[id]), NOW, NOW + 30_000)).unwrap();
    // Subscribing again in the same sign-in keeps what was sent.
    let renewed = PushDevice { p256dh: "BOther".into(), ..device(endpoint, first, "ada", 90) };
    store.write(|tx| tx.add_push_device(&renewed)).unwrap();
    let kept = store.read().push_device(endpoint).unwrap().unwrap();
    assert_eq!((kept.p256dh.as_str(), kept.created_at_ms), ("BOther", 20), "new keys, the same device");
    assert_eq!(store.read().push_state(endpoint, id).unwrap(), Some((PushState::Sending, 0)));
    // The same browser in another sign-in (bo's) is a new device: nothing of ada's comes along.
    let bo = sign_in(&mut store, 2, "bo", &[]);
    store.write(|tx| tx.add_push_device(&device(endpoint, bo, "bo", 100))).unwrap();
    assert_eq!(store.read().push_device(endpoint).unwrap().unwrap().subject, "bo");
    assert_eq!(store.read().push_state(endpoint, id).unwrap(), None);
    // Bo signs out: his device goes with the sign-in.
    assert!(store.write(|tx| tx.close_person_session(&bo)).unwrap().value);
    assert_eq!(store.read().push_device(endpoint).unwrap(), None);
    // Ending a person's sessions (an admin's revocation) removes their devices too.
    let again = sign_in(&mut store, 3, "ada", &[]);
    store.write(|tx| tx.add_push_device(&device(endpoint, again, "ada", 110))).unwrap();
    store.write(|tx| tx.end_person_sessions("ada")).unwrap();
    assert_eq!(store.read().push_device(endpoint).unwrap(), None);
    // A session that expired is pruned with its devices, and owed nothing meanwhile.
    let short = PersonSession {
        id_hash: [4; 32],
        person: SignedIn { subject: "cy".into(), email: None, name: None, groups: vec![] },
        created_at_ms: 0,
        expires_at_ms: 200,
    };
    store.write(|tx| tx.open_person_session(&short)).unwrap();
    store.write(|tx| tx.add_push_device(&device(endpoint, short.id_hash, "cy", 120))).unwrap();
    ask(&mut store, 130, None);
    assert_eq!(owed(&store, 150).len(), 1);
    assert!(owed(&store, 250).is_empty(), "expired: owed nothing");
    store.write(|tx| tx.prune_sign_ins(250)).unwrap();
    assert_eq!(store.read().push_device(endpoint).unwrap(), None);
}

fn only_its_person_removes_a_device_and_the_push_service_forgets_it(backend: Backend) {
    let (_db, mut store) = backend.store();
    let ada = sign_in(&mut store, 1, "ada", &[]);
    let endpoint = "https://push.example/ada";
    store.write(|tx| tx.add_push_device(&device(endpoint, ada, "ada", 20))).unwrap();
    assert!(!store.write(|tx| tx.remove_push_device(endpoint, "bo")).unwrap().value, "not bo's");
    assert!(store.write(|tx| tx.remove_push_device(endpoint, "ada")).unwrap().value);
    assert!(!store.write(|tx| tx.remove_push_device(endpoint, "ada")).unwrap().value);
    store.write(|tx| tx.add_push_device(&device(endpoint, ada, "ada", 20))).unwrap();
    let id = ask(&mut store, 30, None);
    store.write(|tx| tx.begin_push(&attempt(endpoint, &[id]), NOW, NOW + 30_000)).unwrap();
    assert!(store.write(|tx| tx.forget_push_device(endpoint)).unwrap().value, "gone (410)");
    assert_eq!(store.read().push_state(endpoint, id).unwrap(), None, "its rows go with it");
    assert!(owed(&store, NOW).is_empty());
    let begun = store.write(|tx| tx.begin_push(&attempt(endpoint, &[id]), NOW, NOW + 30_000)).unwrap().value;
    assert!(begun.is_empty(), "no push begins for a device that is gone");
}

fn a_push_is_recorded_before_it_is_sent_and_is_due_again_after_a_crash(backend: Backend) {
    let (_db, mut store) = backend.store();
    let ada = sign_in(&mut store, 1, "ada", &[]);
    let endpoint = "https://push.example/ada";
    store.write(|tx| tx.add_push_device(&device(endpoint, ada, "ada", 20))).unwrap();
    let (one, two) = (ask(&mut store, 30, None), ask(&mut store, 40, None));
    let ids = [one, two];
    let begun = store.write(|tx| tx.begin_push(&attempt(endpoint, &ids), NOW, NOW + 30_000)).unwrap().value;
    assert_eq!(begun, ids);
    // Sent but not recorded (the replica died): not owed until the doubt runs out, then again.
    assert!(owed(&store, NOW + 1).is_empty());
    let (_, next) = store.read().push_work(NOW + 1, NOW + 1, 0, 100).unwrap();
    assert_eq!(next, Some(NOW + 30_000));
    assert_eq!(owed(&store, NOW + 30_000), [(endpoint.to_owned(), ids.to_vec())]);
    // Sent: owed no more, and never begun again.
    store.write(|tx| tx.push_sent(&attempt(endpoint, &ids), NOW + 30_001)).unwrap();
    assert!(owed(&store, NOW * 5).is_empty());
    assert_eq!(store.read().push_state(endpoint, one).unwrap(), Some((PushState::Sent, 1)));
    let again = store.write(|tx| tx.begin_push(&attempt(endpoint, &ids), NOW * 5, NOW * 6)).unwrap().value;
    assert!(again.is_empty(), "at most one push per device and question");
}

fn a_failed_push_waits_for_its_retry_and_is_given_up_at_last(backend: Backend) {
    let (_db, mut store) = backend.store();
    let ada = sign_in(&mut store, 1, "ada", &[]);
    let endpoint = "https://push.example/ada";
    store.write(|tx| tx.add_push_device(&device(endpoint, ada, "ada", 20))).unwrap();
    let id = ask(&mut store, 30, None);
    store.write(|tx| tx.begin_push(&attempt(endpoint, &[id]), NOW, NOW + 30_000)).unwrap();
    store
        .write(|tx| tx.push_failed(&attempt(endpoint, &[id]), "503 from the push service", Some(NOW + 2_000), NOW + 5))
        .unwrap();
    assert!(owed(&store, NOW + 1_999).is_empty());
    let due = store.read().push_work(NOW + 2_000, NOW + 2_000, 0, 100).unwrap().0;
    assert_eq!(due[0].questions[0].1, 1, "one attempt made");
    store.write(|tx| tx.begin_push(&attempt(endpoint, &[id]), NOW + 2_000, NOW + 32_000)).unwrap();
    store
        .write(|tx| tx.push_failed(&attempt(endpoint, &[id]), "400 from the push service", None, NOW + 2_005))
        .unwrap();
    assert_eq!(store.read().push_state(endpoint, id).unwrap(), Some((PushState::Failed, 2)));
    assert!(owed(&store, NOW * 5).is_empty(), "given up");
}

conformance!(
    a_device_is_owed_its_persons_questions_asked_since_it_was_added,
    a_device_goes_with_its_sign_in_and_a_new_sign_in_starts_afresh,
    only_its_person_removes_a_device_and_the_push_service_forgets_it,
    a_push_is_recorded_before_it_is_sent_and_is_due_again_after_a_crash,
    a_failed_push_waits_for_its_retry_and_is_given_up_at_last,
);
