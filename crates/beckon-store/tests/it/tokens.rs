//! The tokens table: a name names one live token at a time, revoking keeps the row (and frees
//! the name), lists come newest first, a question remembers which token asked it, and what is
//! stored of a secret is its hash alone.

use beckon_store::{Error, NewToken, TokenKind};

use crate::common::{self, Backend, conformance};

fn token(name: &str, hash_byte: u8, at_ms: i64) -> NewToken {
    NewToken { name: name.into(), kind: TokenKind::AskOnly, secret_hash: [hash_byte; 32], owner: None, at_ms }
}

fn a_name_names_one_live_token_and_is_free_again_once_revoked(backend: Backend) {
    let (_db, mut store) = backend.store();
    let first = store.write(|tx| tx.create_token(&token("devbox", 1, 10))).unwrap().value;
    let taken = store.write(|tx| tx.create_token(&token("devbox", 2, 20))).unwrap_err();
    assert!(matches!(&taken, Error::TokenNameTaken(name) if name == "devbox"), "{taken}");

    let revoked = store.write(|tx| tx.revoke_token("devbox", 30)).unwrap().value.unwrap();
    assert_eq!((revoked.id, revoked.revoked_at_ms), (first.id, Some(30)));
    assert!(store.write(|tx| tx.revoke_token("devbox", 31)).unwrap().value.is_none(), "nothing live to revoke");

    let second = store.write(|tx| tx.create_token(&token("devbox", 2, 40))).unwrap().value;
    assert_ne!(second.id, first.id, "a reused name is a new token");
    let live: Vec<_> = store.read().tokens(false).unwrap().into_iter().map(|t| t.id).collect();
    assert_eq!(live, [second.id]);
    let all: Vec<_> = store.read().tokens(true).unwrap().into_iter().map(|t| (t.id, t.revoked_at_ms)).collect();
    assert_eq!(all, [(second.id, None), (first.id, Some(30))], "newest first, revoked ones kept");
}

fn use_is_recorded_and_never_goes_back_in_time(backend: Backend) {
    let (_db, mut store) = backend.store();
    let made = store.write(|tx| tx.create_token(&token("ci", 7, 10))).unwrap().value;
    store.write(|tx| tx.token_used(made.id, 500)).unwrap();
    store.write(|tx| tx.token_used(made.id, 400)).unwrap();
    let listed = store.read().tokens(false).unwrap();
    assert_eq!(listed[0].last_used_at_ms, Some(500));
    assert_eq!(listed[0].secret_hash, [7; 32]);
}

fn a_question_remembers_the_token_that_asked_it(backend: Backend) {
    let (_db, mut store) = backend.store();
    let made = store.write(|tx| tx.create_token(&token("devbox", 3, 10))).unwrap().value;
    let (_, mine) = common::asked(&mut store, "remote", 20);
    let (_, theirs) = common::asked(&mut store, "local", 30);
    store.write(|tx| tx.mark_asked_by(mine, made.id)).unwrap();
    assert_eq!(store.read().asked_by(mine).unwrap(), Some(made.id));
    assert_eq!(store.read().asked_by(theirs).unwrap(), None);
    let unknown = common::request_id();
    assert!(store.write(|tx| tx.mark_asked_by(unknown, made.id)).is_err(), "only a stored question is marked");
}

conformance!(
    a_name_names_one_live_token_and_is_free_again_once_revoked,
    use_is_recorded_and_never_goes_back_in_time,
    a_question_remembers_the_token_that_asked_it,
);
