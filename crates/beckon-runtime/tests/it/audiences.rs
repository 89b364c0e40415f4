//! Whose question it is on a team server, through the service API: a token owned by a person
//! or group asks for them (naming anyone else is refused); only someone signed in as that
//! person, or in that group, may answer or decline it — from any front end, one by one or in a
//! batch — and to anyone else it is as if there were no such question.

use beckon_core::GivenAnswers;
use std::sync::Arc;

use beckon_core::{AnsweredVia, Answerer, Audience, QuestionRequest, RequestId, SignedInPerson};
use beckon_runtime::api::TokenKind;
use beckon_runtime::{BatchDecision, Beckon, Decision, Error, ExternalAsk, ManualClock, RuntimeConfig};
use serde_json::json;

use crate::support::*;

fn ask(audience: Option<Audience>) -> ExternalAsk {
    let request = QuestionRequest::parse(&json!({"questions": [{"question": "Deploy?", "header": "Deploy",
        "options": [{"label": "Yes"}, {"label": "No"}]}]}))
    .unwrap();
    ExternalAsk { agent: "ci".into(), request: Some(request), audience, ..ExternalAsk::default() }
}

fn signed_in(subject: &str, groups: &[&str]) -> Answerer {
    Answerer {
        via: AnsweredVia::Window,
        by: Some(format!("oidc:{subject} ({subject})")),
        signed_in: Some(SignedInPerson {
            subject: subject.into(),
            groups: groups.iter().map(|g| (*g).to_owned()).collect(),
        }),
    }
}

fn yes() -> Decision {
    Decision::Answer(GivenAnswers::Texts(vec!["Yes".into()]))
}

async fn asked_with(beckon: &Beckon, owner: Audience, named: Option<Audience>) -> Result<RequestId, Error> {
    let name = format!("t{}", rand_suffix());
    let made = beckon.tokens().create_owned(&name, TokenKind::AskOnly, Some(owner.clone())).await.unwrap();
    assert_eq!(made.token.owner, Some(owner.to_string()));
    let holder = beckon.tokens().holder(&made.secret).unwrap();
    assert_eq!(holder.owner, Some(owner));
    let asked = beckon.ask_external(ExternalAsk { asked_by: Some(holder), ..ask(named) }).await?;
    Ok(asked.request_id)
}

fn rand_suffix() -> u32 {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

fn not_found(result: Result<beckon_runtime::AnswerReceipt, Error>, id: RequestId) {
    match result {
        Err(Error::QuestionNotFound(found)) => assert_eq!(found, id),
        other => panic!("expected no such question, got {other:?}"),
    }
}

#[tokio::test]
async fn a_persons_question_is_answered_only_by_them() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start_on(RuntimeConfig::new(dir.path()), Arc::new(ManualClock::new(1_800_000_000_000))).await;
    let ada = Audience::Person("ada".into());
    let id = asked_with(&beckon, ada.clone(), None).await.unwrap();
    assert_eq!(beckon.question_audience(id).await.unwrap(), Some(ada.clone()));
    // The window of no one in particular, a script, a channel, and another person: none of them.
    not_found(beckon.resolve(id, AnsweredVia::Window, yes()).await, id);
    not_found(beckon.resolve(id, AnsweredVia::Http, Decision::Decline(None)).await, id);
    not_found(beckon.resolve(id, AnsweredVia::Slack, Decision::Decline(None)).await, id);
    not_found(beckon.resolve(id, signed_in("bo", &["ada"]), yes()).await, id);
    let batch =
        beckon.resolve_batch(vec![id], signed_in("bo", &[]), BatchDecision::Decline { reason: None }).await.unwrap();
    assert_eq!((batch.resolved.len(), batch.failed.len()), (0, 1), "{batch:?}");
    assert_eq!(beckon.inbox().question(id).await.unwrap().status.as_str(), "pending");
    // Ada herself.
    beckon.resolve(id, signed_in("ada", &[]), yes()).await.unwrap();
    assert_eq!(beckon.inbox().question(id).await.unwrap().answered_by.as_deref(), Some("oidc:ada (ada)"));

    // Naming someone else than the token's owner is refused before anything is asked.
    let refused = asked_with(&beckon, ada, Some(Audience::Group("eng".into()))).await.unwrap_err();
    assert!(matches!(&refused, Error::InvalidInput(p) if p.iter().next().unwrap().path == "audience"), "{refused}");
}

#[tokio::test]
async fn a_groups_question_is_answered_by_anyone_in_it() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start_on(RuntimeConfig::new(dir.path()), Arc::new(ManualClock::new(1_800_000_000_000))).await;
    let eng = Audience::Group("eng".into());
    let id = asked_with(&beckon, eng.clone(), Some(eng)).await.unwrap();
    not_found(beckon.resolve(id, signed_in("ada", &["design"]), yes()).await, id);
    beckon.resolve(id, signed_in("bo", &["design", "eng"]), yes()).await.unwrap();

    // A question no one addressed stays everyone's, from any front end, as before.
    let everyones = beckon.ask_external(ask(None)).await.unwrap().request_id;
    assert_eq!(beckon.question_audience(everyones).await.unwrap(), None);
    beckon.resolve(everyones, AnsweredVia::Window, yes()).await.unwrap();
}

#[tokio::test]
async fn a_session_keeps_the_audience_of_its_first_question() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start_on(RuntimeConfig::new(dir.path()), Arc::new(ManualClock::new(1_800_000_000_000))).await;
    let eng = Audience::Group("eng".into());
    let keyed = |key: &str, audience: Option<Audience>| ExternalAsk { external_key: Some(key.into()), ..ask(audience) };
    let first = beckon.ask_external(keyed("deploys", Some(eng.clone()))).await.unwrap();
    beckon.resolve(first.request_id, signed_in("bo", &["eng"]), yes()).await.unwrap();
    let again = beckon.ask_external(keyed("deploys", Some(eng.clone()))).await.unwrap();
    assert_eq!(again.session_id, first.session_id, "the same session, the same audience");
    let refused = beckon.ask_external(keyed("deploys", Some(Audience::Person("ada".into())))).await.unwrap_err();
    assert!(
        matches!(&refused, Error::InvalidInput(p) if p.iter().next().unwrap().message.contains("addressed to group:eng")),
        "{refused}"
    );
    let refused = beckon.ask_external(keyed("deploys", None)).await.unwrap_err();
    assert!(matches!(&refused, Error::InvalidInput(p) if p.iter().next().unwrap().path == "audience"), "{refused}");
    // A session everyone's from its first question stays everyone's.
    beckon.ask_external(keyed("chores", None)).await.unwrap();
    let refused = beckon.ask_external(keyed("chores", Some(eng))).await.unwrap_err();
    assert!(
        matches!(&refused, Error::InvalidInput(p) if p.iter().next().unwrap().message.contains("everyone's")),
        "{refused}"
    );
}
