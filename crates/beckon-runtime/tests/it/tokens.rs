//! Tokens for agents on other machines through the service API: made with a secret shown once
//! and stored only hashed, listed newest first, checked in memory, refused the moment they are
//! revoked, their use written at most once a minute on the runtime's clock, still live after a
//! restart, and the questions a token asks recorded as its own and kept apart from others'.

use std::sync::Arc;
use std::time::Duration;

use beckon_core::QuestionRequest;
use beckon_runtime::api::{ErrorKind, TokenKind};
use beckon_runtime::{Error, ExternalAsk, ManualClock, RuntimeConfig, token_secret};
use serde_json::json;

use crate::support::*;

const START_MS: i64 = 1_800_000_000_000;

fn ask(agent: &str) -> ExternalAsk {
    let request = QuestionRequest::parse(&json!({"questions": [{"question": "Deploy?", "header": "Deploy",
        "options": [{"label": "Yes"}, {"label": "No"}]}]}))
    .unwrap();
    ExternalAsk { agent: agent.into(), request: Some(request), ..ExternalAsk::default() }
}

#[tokio::test]
async fn a_token_is_made_listed_checked_and_refused_once_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MS));
    let (beckon, _) = start_on(RuntimeConfig::new(dir.path()), clock.clone()).await;
    let devbox = beckon.tokens().create("devbox", TokenKind::AskOnly).await.unwrap();
    assert!(devbox.secret.starts_with("bkn_ask_"), "recognisable");
    assert_eq!((devbox.token.created_at_ms, devbox.token.last_used_at_ms), (START_MS, None));
    clock.advance(Duration::from_secs(1));
    let ci = beckon.tokens().create("ci", TokenKind::AskOnly).await.unwrap();
    let names: Vec<_> = beckon.tokens().list().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["ci", "devbox"], "newest first");

    let taken = beckon.tokens().create("devbox", TokenKind::AskOnly).await.unwrap_err();
    assert!(matches!(&taken, Error::InvalidInput(p) if p.iter().next().unwrap().path == "name"), "{taken}");
    let badly_named = beckon.tokens().create("dev box", TokenKind::AskOnly).await.unwrap_err();
    assert!(matches!(badly_named, Error::InvalidInput(_)));

    let holder = beckon.tokens().holder(&devbox.secret).unwrap();
    assert_eq!((holder.name.as_str(), holder.kind), ("devbox", TokenKind::AskOnly));
    assert!(beckon.tokens().holder("bkn_ask_0000").is_none());
    let hint = token_secret::hint(&token_secret::hash(&devbox.secret));
    assert_eq!(beckon.tokens().proof_key(&hint), Some(token_secret::proof_key(&token_secret::hash(&devbox.secret))));

    let revoked = beckon.tokens().revoke("devbox").await.unwrap();
    assert_eq!(revoked.name, "devbox");
    assert!(beckon.tokens().holder(&devbox.secret).is_none(), "refused at once");
    assert!(beckon.tokens().proof_key(&hint).is_none());
    assert!(beckon.tokens().holder(&ci.secret).is_some(), "the other one stays");
    let again = beckon.tokens().revoke("devbox").await.unwrap_err();
    assert_eq!(beckon_runtime::api::ErrorBody::from(&again).kind, ErrorKind::NotFound, "{again}");
    let names: Vec<_> = beckon.tokens().list().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["ci"], "revoked tokens are not listed");
    beckon.tokens().create("devbox", TokenKind::AskOnly).await.expect("a revoked token's name is free again");
}

#[tokio::test]
async fn use_is_written_once_a_minute_and_tokens_outlive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MS));
    let (beckon, _) = start_on(RuntimeConfig::new(dir.path()), clock.clone()).await;
    let made = beckon.tokens().create("devbox", TokenKind::AskOnly).await.unwrap();
    let last_used = || async { beckon.tokens().list().await.unwrap()[0].last_used_at_ms };
    assert_eq!(last_used().await, None);
    clock.advance(Duration::from_secs(5));
    beckon.tokens().holder(&made.secret).unwrap();
    assert_eq!(last_used().await, Some(START_MS + 5_000), "the first use");
    clock.advance(Duration::from_secs(50));
    beckon.tokens().holder(&made.secret).unwrap();
    assert_eq!(last_used().await, Some(START_MS + 5_000), "not again within the minute");
    clock.advance(Duration::from_secs(10));
    beckon.tokens().holder(&made.secret).unwrap();
    assert_eq!(last_used().await, Some(START_MS + 65_000), "a minute on, it is written again");

    beckon.shutdown().await;
    let (beckon, _) = start_on(RuntimeConfig::new(dir.path()), clock.clone()).await;
    assert_eq!(beckon.tokens().holder(&made.secret).unwrap().name, "devbox", "live after a restart");
    beckon.shutdown().await;

    // The database and whatever its write-ahead log still holds, read whole: the log may be
    // folded into the database and removed while the store closes, and then it is read again.
    let stored = loop {
        let files: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.file_name().unwrap().to_string_lossy().starts_with("beckon.db"))
            .collect();
        let read: Result<Vec<Vec<u8>>, _> = files.iter().map(std::fs::read).collect();
        if let Ok(read) = read {
            break read.concat();
        }
    };
    assert!(!stored.is_empty());
    let secret = made.secret.as_bytes();
    assert!(!stored.windows(secret.len()).any(|w| w == secret), "the secret is not in the database");
    let random = made.secret.trim_start_matches(token_secret::ASK_ONLY_PREFIX).as_bytes();
    assert!(!stored.windows(random.len()).any(|w| w == random));
}

#[tokio::test]
async fn a_tokens_questions_are_its_own_and_its_sessions_apart() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start(dir.path()).await;
    let made = beckon.tokens().create("devbox", TokenKind::AskOnly).await.unwrap();
    let other = beckon.tokens().create("ci", TokenKind::AskOnly).await.unwrap();
    let holder = beckon.tokens().holder(&made.secret).unwrap();
    let keyed =
        |asked_by| ExternalAsk { external_key: Some("claude-code:5b0c".into()), asked_by, ..ask("claude-code") };
    let local = beckon.ask_external(keyed(None)).await.unwrap();
    let remote = beckon.ask_external(keyed(Some(holder.clone()))).await.unwrap();
    assert_ne!(remote.session_id, local.session_id, "the same key from a token is a session of its own");

    assert!(beckon.tokens().asked_by(remote.request_id, holder.id).await.unwrap());
    assert!(!beckon.tokens().asked_by(local.request_id, holder.id).await.unwrap(), "the person's question");
    let other = beckon.tokens().holder(&other.secret).unwrap();
    assert!(!beckon.tokens().asked_by(remote.request_id, other.id).await.unwrap(), "another token's");
}
