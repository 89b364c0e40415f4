//! `/v1/people`: what admins see of the people of a team server — each one's open sessions
//! (browsers and connected apps) and Slack or Telegram pairings — and how they end them. A
//! person who left keeps nothing that answers for them: their sessions end on every replica at
//! once (each request looks its session up), and their pairings stop answering.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use beckon_store::{ChannelPerson, ListedSession, SessionKind, SignedIn};
use serde::Serialize;

use crate::error::ApiResult;
use crate::state::Shared;

/// One person as an admin sees them.
#[derive(Debug, Serialize)]
pub struct PersonView {
    pub subject: String,
    pub name: Option<String>,
    pub email: Option<String>,
    /// Their groups, as their latest sign-in said.
    pub groups: Vec<String>,
    pub sessions: Vec<SessionView>,
    pub pairings: Vec<PairingView>,
}

/// One open session: never its secret.
#[derive(Debug, Serialize)]
pub struct SessionView {
    /// `browser` or `app`.
    pub kind: &'static str,
    /// How a connected app named itself, and its port.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    pub created_at_ms: i64,
    pub expires_at_ms: i64,
}

/// One pairing.
#[derive(Debug, Serialize)]
pub struct PairingView {
    pub channel: String,
    pub account: String,
    pub paired_at_ms: i64,
    /// When the person last signed in.
    pub signed_in_at_ms: i64,
    /// Whether it answers for them now: they signed in within the server's pairing window.
    pub answers: bool,
}

/// `GET /v1/people`.
#[derive(Debug, Serialize)]
pub struct People {
    pub people: Vec<PersonView>,
}

/// `DELETE /v1/people/{subject}/…`: how many there were.
#[derive(Debug, Serialize)]
pub struct Ended {
    pub subject: String,
    pub ended: usize,
}

fn entry<'a>(people: &'a mut BTreeMap<String, PersonView>, person: &SignedIn) -> &'a mut PersonView {
    people.entry(person.subject.clone()).or_insert_with(|| PersonView {
        subject: person.subject.clone(),
        name: person.name.clone(),
        email: person.email.clone(),
        groups: person.groups.clone(),
        sessions: Vec::new(),
        pairings: Vec::new(),
    })
}

/// Everyone with an open session or a pairing, by subject.
fn gathered(sessions: Vec<ListedSession>, pairings: Vec<(ChannelPerson, bool)>) -> Vec<PersonView> {
    let mut people = BTreeMap::new();
    // Sessions come oldest first: the newest sign-in's name, email and groups are kept.
    for session in sessions {
        let view = entry(&mut people, &session.person);
        view.name.clone_from(&session.person.name);
        view.email.clone_from(&session.person.email);
        view.groups.clone_from(&session.person.groups);
        let (kind, app) = match session.kind {
            SessionKind::Browser => ("browser", None),
            SessionKind::App { label } => ("app", Some(label)),
        };
        view.sessions.push(SessionView {
            kind,
            app,
            created_at_ms: session.created_at_ms,
            expires_at_ms: session.expires_at_ms,
        });
    }
    for (paired, answers) in pairings {
        entry(&mut people, &paired.person).pairings.push(PairingView {
            channel: paired.channel,
            account: paired.account,
            paired_at_ms: paired.paired_at_ms,
            signed_in_at_ms: paired.signed_in_at_ms,
            answers,
        });
    }
    people.into_values().collect()
}

/// `GET /v1/people` (admins): every person with an open session or a pairing.
pub async fn list(State(shared): State<Arc<Shared>>) -> ApiResult<Json<People>> {
    let sessions = shared.beckon.people().open_sessions().await?;
    let pairings = shared.beckon.pairings().all().await?;
    Ok(Json(People { people: gathered(sessions, pairings) }))
}

/// `DELETE /v1/people/{subject}/sessions` (admins): ends every session of the person, browsers'
/// and apps' alike, on every replica.
pub async fn end_sessions(State(shared): State<Arc<Shared>>, Path(subject): Path<String>) -> ApiResult<Json<Ended>> {
    let ended = shared.beckon.people().end_sessions(&subject).await?;
    Ok(Json(Ended { subject, ended }))
}

/// `DELETE /v1/people/{subject}/pairings` (admins): forgets every Slack and Telegram account the
/// person paired; presses from them answer nothing from now on.
pub async fn unpair(State(shared): State<Arc<Shared>>, Path(subject): Path<String>) -> ApiResult<Json<Ended>> {
    let ended = shared.beckon.pairings().unpair_person(&subject).await?;
    Ok(Json(Ended { subject, ended }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(subject: &str, groups: &[&str]) -> SignedIn {
        SignedIn {
            subject: subject.into(),
            email: None,
            name: Some(subject.to_uppercase()),
            groups: groups.iter().map(|g| (*g).to_owned()).collect(),
        }
    }

    #[test]
    fn sessions_and_pairings_are_gathered_by_person_with_the_latest_groups() {
        let session = |who: SignedIn, kind: SessionKind, at: i64| ListedSession {
            person: who,
            kind,
            created_at_ms: at,
            expires_at_ms: at + 10,
        };
        let sessions = vec![
            session(person("ada", &["eng"]), SessionKind::Browser, 1),
            session(person("ada", &["ops"]), SessionKind::App { label: "Beckon (port 5)".into() }, 2),
        ];
        let paired = ChannelPerson {
            channel: "slack".into(),
            account: "U1".into(),
            person: person("bo", &[]),
            paired_at_ms: 3,
            signed_in_at_ms: 3,
        };
        let people = gathered(sessions, vec![(paired, false)]);
        assert_eq!(people.iter().map(|p| p.subject.as_str()).collect::<Vec<_>>(), ["ada", "bo"]);
        assert_eq!(people[0].groups, ["ops"]);
        assert_eq!(people[0].sessions.iter().map(|s| s.kind).collect::<Vec<_>>(), ["browser", "app"]);
        assert_eq!(people[0].sessions[1].app.as_deref(), Some("Beckon (port 5)"));
        assert!(!people[1].pairings[0].answers);
    }
}
