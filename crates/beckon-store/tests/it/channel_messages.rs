//! A channel's outbox on a real database file: which questions a channel owes a post, a post
//! recorded before it is sent, the doubt a crash leaves, settling, and the answerer recorded; on a
//! team server, each person's own messages and the accounts people pair.

use beckon_core::{AnsweredVia, Audience, Outcome};
use beckon_store::{ChannelMessageState, ChannelPerson, ChannelScope, SignedIn, Store};

use crate::common::*;

const NOW: i64 = 100_000;

fn scope(asked_by_ms: i64) -> ChannelScope<'static> {
    ChannelScope { asked_by_ms, delay_ms: 0, agents: None, audiences: None }
}

/// A store with one pending question per agent, asked at the given times.
fn asked(store: &mut Store, asks: &[(&str, i64)]) -> Vec<beckon_core::RequestId> {
    let mut ids = Vec::new();
    for (agent, at) in asks {
        let (session, question) = (session_id(), request_id());
        store
            .write(|tx| {
                tx.start_session(&new_session(session, agent, *at))?;
                tx.ask(&new_question(question, session, agent, *at))
            })
            .unwrap();
        ids.push(question);
    }
    ids
}

fn pending_questions_without_a_message_are_owed_a_post_oldest_first(backend: Backend) {
    let (_db, mut store) = backend.store();
    let ids = asked(&mut store, &[("poet", 20), ("deploy", 10)]);
    let work = store.read().channel_work("slack", NOW, scope(NOW), 64).unwrap();
    assert_eq!(work.to_post.iter().map(|q| q.id).collect::<Vec<_>>(), [ids[1], ids[0]]);
    assert!(work.in_doubt.is_empty() && work.to_settle.is_empty());
    // Another channel's rows do not count for this one.
    store.write(|tx| tx.begin_channel_post("telegram", ids[0], "7", NOW)).unwrap();
    assert_eq!(store.read().channel_work("slack", NOW, scope(NOW), 64).unwrap().to_post.len(), 2);
}

fn the_delay_and_the_agents_choose_what_goes(backend: Backend) {
    let (_db, mut store) = backend.store();
    let ids = asked(&mut store, &[("poet", 10), ("deploy", 50)]);
    let late = ChannelScope { asked_by_ms: 30, delay_ms: 60, agents: None, audiences: None };
    let work = store.read().channel_work("slack", 90, late, 64).unwrap();
    assert_eq!(work.to_post.iter().map(|q| q.id).collect::<Vec<_>>(), [ids[0]]);
    assert_eq!(work.next_due_ms, Some(110), "the second comes of age 60 ms after it was asked");
    let agents = vec!["deploy".to_owned()];
    let only = ChannelScope { asked_by_ms: NOW, delay_ms: 0, agents: Some(&agents), audiences: None };
    let work = store.read().channel_work("slack", NOW, only, 64).unwrap();
    assert_eq!(work.to_post.iter().map(|q| q.id).collect::<Vec<_>>(), [ids[1]]);
}

fn a_post_is_recorded_before_it_is_sent_and_blocks_a_second_one(backend: Backend) {
    let (_db, mut store) = backend.store();
    let ids = asked(&mut store, &[("poet", 10)]);
    assert!(store.write(|tx| tx.begin_channel_post("slack", ids[0], "1700.000", NOW)).unwrap().value);
    assert!(
        !store.write(|tx| tx.begin_channel_post("slack", ids[0], "1800.000", NOW)).unwrap().value,
        "one post at a time"
    );
    let work = store.read().channel_work("slack", NOW, scope(NOW), 64).unwrap();
    assert!(work.to_post.is_empty(), "a post in doubt is not owed again");
    let (row, question) = &work.in_doubt[0];
    assert_eq!((row.state, row.mark.as_deref(), question.id), (ChannelMessageState::Posting, Some("1700.000"), ids[0]));

    store.write(|tx| tx.channel_posted("slack", ids[0], "C1", "1700.5", NOW)).unwrap();
    let row = store.read().channel_message("slack", ids[0]).unwrap().unwrap();
    assert_eq!(
        (row.state, row.conversation.as_deref(), row.message.as_deref()),
        (ChannelMessageState::Posted, Some("C1"), Some("1700.5"))
    );
    assert!(store.read().channel_work("slack", NOW, scope(NOW), 64).unwrap().in_doubt.is_empty());
}

fn a_failed_post_waits_for_its_retry_and_a_resolved_question_is_settled_once(backend: Backend) {
    let (_db, mut store) = backend.store();
    let ids = asked(&mut store, &[("poet", 10)]);
    store.write(|tx| tx.begin_channel_post("slack", ids[0], "m", NOW)).unwrap();
    store
        .write(|tx| {
            tx.channel_attempt_failed("slack", ids[0], ChannelMessageState::Waiting, "ratelimited", NOW + 500, NOW)
        })
        .unwrap();
    let work = store.read().channel_work("slack", NOW, scope(NOW), 64).unwrap();
    assert!(work.to_post.is_empty() && work.in_doubt.is_empty());
    assert_eq!(work.next_due_ms, Some(NOW + 500));
    let work = store.read().channel_work("slack", NOW + 500, scope(NOW), 64).unwrap();
    assert_eq!(work.to_post.len(), 1, "due again");

    store.write(|tx| tx.begin_channel_post("slack", ids[0], "m", NOW + 500)).unwrap();
    store.write(|tx| tx.channel_posted("slack", ids[0], "C1", "1.0", NOW + 500)).unwrap();
    assert!(
        store.read().channel_work("slack", NOW + 600, scope(NOW), 64).unwrap().to_settle.is_empty(),
        "still pending"
    );
    let mut answer = resolution(ids[0], answered("Haiku"), NOW + 700);
    answer.via = Some(AnsweredVia::Slack);
    answer.by = Some("slack:U1 (ada)".into());
    store.write(|tx| tx.resolve(&answer)).unwrap();
    let question = store.read().question(ids[0]).unwrap().unwrap();
    assert_eq!(
        (question.answered_via, question.answered_by.as_deref()),
        (Some(AnsweredVia::Slack), Some("slack:U1 (ada)"))
    );
    let work = store.read().channel_work("slack", NOW + 700, scope(NOW), 64).unwrap();
    assert_eq!(work.to_settle.len(), 1);
    store.write(|tx| tx.channel_settled("slack", ids[0], NOW + 800)).unwrap();
    let work = store.read().channel_work("slack", NOW + 900, scope(NOW), 64).unwrap();
    assert!(work.to_settle.is_empty() && work.next_due_ms.is_none());
}

fn a_question_that_ended_is_not_posted_and_its_doubt_can_be_abandoned(backend: Backend) {
    let (_db, mut store) = backend.store();
    let ids = asked(&mut store, &[("poet", 10), ("deploy", 20)]);
    store.write(|tx| tx.resolve(&resolution(ids[0], Outcome::Declined { reason: None }, 30))).unwrap();
    assert!(!store.write(|tx| tx.begin_channel_post("slack", ids[0], "m", NOW)).unwrap().value);
    store.write(|tx| tx.begin_channel_post("slack", ids[1], "m", NOW)).unwrap();
    store.write(|tx| tx.resolve(&resolution(ids[1], Outcome::Declined { reason: None }, 40))).unwrap();
    store.write(|tx| tx.channel_abandon("slack", ids[1])).unwrap();
    assert_eq!(store.read().channel_message_count("slack").unwrap(), 0);
}

fn a_persons_messages_hold_only_what_is_addressed_to_them(backend: Backend) {
    let (_db, mut store) = backend.store();
    let ids = asked(&mut store, &[("ci", 10), ("ci", 20), ("ci", 30)]);
    let addresses = [Audience::Person("ada".into()), Audience::Group("ops".into())];
    for (id, audience) in ids.iter().zip(addresses.iter()) {
        let session = store.read().question(*id).unwrap().unwrap().session_id;
        store.write(|tx| tx.address_session(session, audience)).unwrap();
    }
    let adas = ["person:ada".to_owned(), "group:eng".to_owned()];
    let scope = ChannelScope { asked_by_ms: NOW, delay_ms: 0, agents: None, audiences: Some(&adas) };
    let work = store.read().channel_work("slack:ada", NOW, scope, 64).unwrap();
    assert_eq!(work.to_post.iter().map(|q| q.id).collect::<Vec<_>>(), [ids[0]], "hers, not ops' nor everyone's");
    // Her message is kept under her own name, beside the channel's.
    assert!(store.write(|tx| tx.begin_channel_post("slack:ada", ids[0], "m", NOW)).unwrap().value);
    assert!(store.write(|tx| tx.begin_channel_post("slack", ids[0], "m", NOW)).unwrap().value);
    assert_eq!(store.read().channel_message("slack:ada", ids[0]).unwrap().unwrap().state, ChannelMessageState::Posting);
    let opss = ["group:ops".to_owned()];
    let later = ChannelScope { asked_by_ms: 15, delay_ms: 0, agents: None, audiences: Some(&opss) };
    let work = store.read().channel_work("slack:bo", 15, later, 64).unwrap();
    assert!(work.to_post.is_empty());
    assert_eq!(work.next_due_ms, Some(20), "the next question addressed to them comes of age");
}

fn a_person_pairs_one_account_per_channel_and_is_known_as_they_last_signed_in(backend: Backend) {
    let (_db, mut store) = backend.store();
    let ada = SignedIn { subject: "ada".into(), email: None, name: Some("Ada".into()), groups: vec!["eng".into()] };
    let paired = |account: &str, person: &SignedIn| ChannelPerson {
        channel: "slack".into(),
        account: account.into(),
        person: person.clone(),
        paired_at_ms: NOW,
        signed_in_at_ms: NOW,
    };
    store.write(|tx| tx.pair_channel_person(&paired("U1", &ada))).unwrap();
    store.write(|tx| tx.pair_channel_person(&paired("U2", &ada))).unwrap();
    assert_eq!(store.read().channel_person("slack", "U1").unwrap(), None, "one account per person");
    assert_eq!(store.read().channel_account("slack", "ada").unwrap().unwrap().account, "U2");
    let bo = SignedIn { subject: "bo".into(), email: None, name: None, groups: vec![] };
    store.write(|tx| tx.pair_channel_person(&paired("U2", &bo))).unwrap();
    assert_eq!(store.read().channel_account("slack", "ada").unwrap(), None, "one person per account");
    assert_eq!(store.read().channel_people("slack").unwrap().len(), 1);
    assert!(store.read().channel_people("telegram").unwrap().is_empty());

    let moved = SignedIn { groups: vec!["sales".into()], email: Some("bo@example.com".into()), ..bo };
    store.write(|tx| tx.refresh_channel_person(&moved, NOW + 1)).unwrap();
    let refreshed = store.read().channel_person("slack", "U2").unwrap().unwrap();
    assert_eq!(
        (refreshed.person, refreshed.signed_in_at_ms),
        (moved.clone(), NOW + 1),
        "the latest sign-in's groups, and when"
    );
    assert_eq!(store.read().all_channel_people().unwrap().len(), 1);
    assert_eq!(store.write(|tx| tx.unpair_person("bo")).unwrap().value, 1);
    store.write(|tx| tx.pair_channel_person(&paired("U2", &moved))).unwrap();
    assert!(store.write(|tx| tx.unpair_channel_person("slack", "bo")).unwrap().value);
    assert!(!store.write(|tx| tx.unpair_channel_person("slack", "bo")).unwrap().value);
}

conformance!(
    pending_questions_without_a_message_are_owed_a_post_oldest_first,
    the_delay_and_the_agents_choose_what_goes,
    a_post_is_recorded_before_it_is_sent_and_blocks_a_second_one,
    a_failed_post_waits_for_its_retry_and_a_resolved_question_is_settled_once,
    a_question_that_ended_is_not_posted_and_its_doubt_can_be_abandoned,
    a_persons_messages_hold_only_what_is_addressed_to_them,
    a_person_pairs_one_account_per_channel_and_is_known_as_they_last_signed_in,
);
