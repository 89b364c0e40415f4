//! Whose questions are whose on a team server: a token keeps the person or group it belongs
//! to; a session keeps the audience its first question gave it; a question's audience is its
//! session's, read alone or with the question and its session.

use beckon_core::{Addressees, Audience};
use beckon_store::{EventKind, NewToken, TokenKind};

use crate::common::{self, Backend, conformance};

fn ada() -> Audience {
    Audience::Person("ada".into())
}

fn a_token_keeps_whom_it_asks_for(backend: Backend) {
    let (_db, mut store) = backend.store();
    let owned = NewToken {
        name: "ada-laptop".into(),
        kind: TokenKind::AskOnly,
        secret_hash: [1; 32],
        owner: Some(ada()),
        at_ms: 10,
    };
    let made = store.write(|tx| tx.create_token(&owned)).unwrap().value;
    assert_eq!(made.owner, Some(ada()));
    let group =
        NewToken { name: "ci".into(), secret_hash: [2; 32], owner: Some(Audience::Group("eng".into())), ..owned };
    store.write(|tx| tx.create_token(&group)).unwrap();
    let listed: Vec<_> = store.read().tokens(false).unwrap().into_iter().map(|t| (t.name, t.owner)).collect();
    assert_eq!(listed, [("ci".into(), Some(Audience::Group("eng".into()))), ("ada-laptop".into(), Some(ada()))]);
}

fn a_session_keeps_the_audience_its_first_question_gave_it(backend: Backend) {
    let (_db, mut store) = backend.store();
    let (session, question) = common::asked(&mut store, "remote", 20);
    let (other_session, everyones) = common::asked(&mut store, "local", 30);
    assert_eq!(store.read().question_audience(question).unwrap(), None, "everyone's until addressed");
    let kept = store.write(|tx| tx.address_session(session, &ada())).unwrap().value;
    assert_eq!(kept, ada());
    let again = store.write(|tx| tx.address_session(session, &Audience::Group("eng".into()))).unwrap().value;
    assert_eq!(again, ada(), "the first audience stays");
    assert_eq!(store.read().session_audience(session).unwrap(), Some(ada()));
    assert_eq!(store.read().question_audience(question).unwrap(), Some(ada()));
    assert_eq!(store.read().session_audience(other_session).unwrap(), None);
    assert_eq!(store.read().question_audience(everyones).unwrap(), None);
    let (_, _, audience) = store.read().question_with_session(question).unwrap().unwrap();
    assert_eq!(audience, Some(ada()));
    let (_, _, audience) = store.read().question_with_session(everyones).unwrap().unwrap();
    assert_eq!(audience, None);
}

/// Retention takes a session's events with it, and what is left of a session that is gone is
/// nobody's: read back after retention, nothing of it passes for everyone's.
fn a_pruned_session_leaves_no_events_and_is_nobodys(backend: Backend) {
    let (_db, mut store) = backend.store();
    let (adas, everyones) = (common::session_id(), common::session_id());
    store
        .write(|tx| {
            tx.start_session(&common::new_session(adas, "remote", 1))?;
            tx.address_session(adas, &ada())?;
            tx.save_state(adas, &beckon_core::conversation::State::Completed, 2)?;
            tx.start_session(&common::new_session(everyones, "remote", 900))
        })
        .unwrap();
    assert_eq!(store.read().session_addressees(adas).unwrap(), Addressees::Only(ada()));
    assert_eq!(store.read().session_addressees(everyones).unwrap(), Addressees::Everyone);
    let kinds = |store: &beckon_store::Store, session| -> Vec<EventKind> {
        let events = store.read().events_after(0, 1000).unwrap();
        events.into_iter().filter(|e| e.session_id == Some(session)).map(|e| e.kind).collect()
    };
    assert!(!kinds(&store, adas).is_empty(), "the session's events are there before retention");
    let pruned = store.write(|tx| tx.prune_finished(500, 1_000)).unwrap().value;
    assert_eq!(pruned, [adas]);
    assert_eq!(kinds(&store, adas), [EventKind::SessionDeleted], "only the deletion's own event is left");
    assert_eq!(store.read().session_addressees(adas).unwrap(), Addressees::Gone);
    assert!(!Addressees::Gone.include("bo", &[]));
}

conformance!(
    a_token_keeps_whom_it_asks_for,
    a_session_keeps_the_audience_its_first_question_gave_it,
    a_pruned_session_leaves_no_events_and_is_nobodys,
);
