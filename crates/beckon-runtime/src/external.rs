//! Questions from agents Beckon does not run (Claude Code and other MCP clients, scripts, CI
//! jobs): each lives in an `external` session, grouped by the agent's key when it gives one.

use std::sync::Arc;
use std::time::Duration;

use beckon_core::agent::OnTimeout;
use beckon_core::approval::ApprovalChoice;
use beckon_core::conversation::{ExpiryPolicy, Origin, SessionStatus, State};
use beckon_core::outcome::check_reason;
use beckon_core::{
    AnsweredVia, Answerer, Answers, Audience, Outcome, Problems, QuestionRequest, RequestId, SessionId, SessionOrigin,
    SignedInPerson, check_name,
};
use beckon_store::{NewQuestion, NewSession, QuestionRecord, Resolution, Resolved, rule_name};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::callbacks;
use crate::clock::{new_request_id, new_session_id};
use crate::error::{Error, Result};
use crate::live_tokens::TokenHolder;
use crate::runtime::Runtime;

/// Longest external agent name and grouping key.
const NAME_MAX: usize = 64;
pub(crate) const KEY_MAX: usize = 200;
/// Longest question timeout an external agent may set.
const MAX_TIMEOUT: Duration = Duration::from_secs(365 * 86_400);

/// A question from an external agent. `Debug` shows where callbacks go by scheme, host and
/// port only: a callback URL's path can be a credential (a Slack webhook's is).
#[derive(Clone, Default)]
pub struct ExternalAsk {
    /// The agent's name, shown as who asks.
    pub agent: String,
    /// Groups its questions into one session; a new session per question when `None`.
    pub external_key: Option<String>,
    /// What to ask.
    pub request: Option<QuestionRequest>,
    /// How long it may wait.
    pub timeout: Option<Duration>,
    /// What happens then.
    pub on_timeout: OnTimeout,
    /// The answer used with [`OnTimeout::Default`], read as by `Answer::from_text`.
    pub default_answer: Option<String>,
    /// Where to send signed callbacks.
    pub callback_url: Option<String>,
    /// Anything the agent wants kept with its session.
    pub metadata: Option<Value>,
    /// The token the question came with, when an agent on another machine asked with one; set
    /// by the gateway from the request's token, never from its body. Recorded with the question
    /// (only that token may then read or withdraw it), and its sessions are its own: a key it
    /// gives never groups its questions with another caller's.
    pub asked_by: Option<TokenHolder>,
    /// The person signed in on a team server who asked, when one did (set by the gateway from
    /// their session, never from the body): recorded and shown with the question, they address
    /// only themselves or their groups, and only they withdraw it.
    pub asking_person: Option<AskingPerson>,
    /// Whom it is for on a team server, as the agent names it (`audience` in the body): within
    /// what its token allows (see [`audience_of`]). A token owned by a person or group addresses
    /// them without naming anyone.
    pub audience: Option<Audience>,
}

/// A signed-in person asking a question themselves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskingPerson {
    /// Who they are, as audiences read it.
    pub person: SignedInPerson,
    /// How they are shown as the asker ("oidc:ada (Ada Lovelace <ada@example.com>)").
    pub shown: String,
}

/// Where an ask's question went in the write that asks it.
enum Placed {
    /// Into this session; allowed by this rule, if one allowed it.
    Asked(SessionId, Option<i64>),
    /// Nowhere: the key names a session of an agent Beckon runs.
    NotExternal,
    /// Nowhere: the session is addressed otherwise (or to everyone, `None`).
    AddressedElsewhere(Option<Audience>),
}

/// Whom a question goes to: a token owned by a person or group asks for them, and may name no
/// one else; a signed-in person asks for themselves or one of their groups, never for someone
/// else (their question would show in another's inbox as if that one's agent asked); a token
/// without an owner (or the person's own) may name anyone, and without a name the question is
/// everyone's.
pub(crate) fn audience_of(
    asked_by: Option<&TokenHolder>,
    person: Option<&SignedInPerson>,
    named: Option<Audience>,
) -> Result<Option<Audience>> {
    if let Some(person) = person {
        return match named {
            None => Ok(Some(Audience::Person(person.subject.clone()))),
            Some(named) if named.includes(&person.subject, &person.groups) => Ok(Some(named)),
            Some(named) => Err(Error::InvalidInput(Problems::one(
                "audience",
                format!(
                    "a person signed in addresses only themselves (person:{}) or one of their groups, not {named}",
                    person.subject
                ),
            ))),
        };
    }
    match (asked_by.and_then(|holder| holder.owner.as_ref()), named) {
        (Some(owner), Some(named)) if named != *owner => Err(Error::InvalidInput(Problems::one(
            "audience",
            format!(
                "this token asks for {owner} and cannot address {named}; leave audience out, or ask for a token for {named}"
            ),
        ))),
        (Some(owner), _) => Ok(Some(owner.clone())),
        (None, named) => Ok(named),
    }
}

impl std::fmt::Debug for ExternalAsk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExternalAsk")
            .field("agent", &self.agent)
            .field("external_key", &self.external_key)
            .field("request", &self.request)
            .field("timeout", &self.timeout)
            .field("on_timeout", &self.on_timeout)
            .field("default_answer", &self.default_answer)
            .field("callback_url", &self.callback_url.as_deref().map(callbacks::origin))
            .field("metadata", &self.metadata)
            .field("asked_by", &self.asked_by.as_ref().map(|holder| &holder.name))
            .field("asking_person", &self.asking_person.as_ref().map(|asker| &asker.shown))
            .field("audience", &self.audience)
            .finish()
    }
}

/// The question as created.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExternalAsked {
    /// The question's id.
    pub request_id: RequestId,
    /// Its session.
    pub session_id: SessionId,
    /// When it expires (Unix ms).
    pub expires_at_ms: Option<i64>,
    /// The rule that allowed it at once, when the question is an approval a live rule covers:
    /// it was never pending, and the first read of it returns the allow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_by_rule: Option<i64>,
}

fn check_url(field: &str, url: &str, problems: &mut Problems) {
    let has_scheme = url.starts_with("http://") || url.starts_with("https://");
    if !has_scheme || url.len() > 2048 || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        problems.push(field, "must be an http:// or https:// URL without spaces, at most 2048 bytes");
    }
}

/// Puts an external agent's question to the person.
pub(crate) async fn ask(rt: &Arc<Runtime>, ask: ExternalAsk) -> Result<ExternalAsked> {
    let mut problems = Problems::new();
    check_name("agent", &ask.agent, NAME_MAX, &mut problems);
    if let Some(key) = &ask.external_key {
        check_name("session_key", key, KEY_MAX, &mut problems);
    }
    if let Some(url) = &ask.callback_url {
        let before = problems.len();
        check_url("callback_url", url, &mut problems);
        // Only a well-formed URL is worth resolving.
        if problems.len() == before
            && let Err(refused) = rt.config.callback_destinations.vet_url(url).await
        {
            problems.push(
                "callback_url",
                format!("{refused}: give a receiver at a public address (the server's operator may allow others)"),
            );
        }
    }
    if ask.timeout.is_some_and(|t| t.is_zero() || t > MAX_TIMEOUT) {
        problems.push("timeout", "must be more than zero and at most 365 days");
    }
    let Some(request) = ask.request else {
        problems.push("questions", "is required");
        return Err(Error::InvalidInput(problems));
    };
    let policy = match ExpiryPolicy::for_question(ask.on_timeout, ask.default_answer.as_deref(), &request) {
        Ok(policy) => policy,
        Err(problem) => {
            problems.push("default_answer", problem.message());
            ExpiryPolicy::Decline
        }
    };
    if !problems.is_empty() {
        return Err(Error::InvalidInput(problems));
    }
    let now = rt.clock.now_ms();
    let expires_at_ms = ask.timeout.map(|t| now.saturating_add(t.as_millis() as i64));
    let request_id = new_request_id();
    let new_session = new_session_id();
    let asking_person = ask.asking_person;
    let audience = audience_of(ask.asked_by.as_ref(), asking_person.as_ref().map(|a| &a.person), ask.audience)?;
    let (agent, metadata, callback_url, asked_by) = (ask.agent, ask.metadata, ask.callback_url, ask.asked_by);
    // A token's sessions are apart from everyone else's: its key is kept under the token's id;
    // and a signed-in person's under their subject.
    let key = match (&asked_by, &asking_person, ask.external_key) {
        (Some(holder), _, Some(key)) => Some(format!("{key}@token-{}", holder.id)),
        (None, Some(asker), Some(key)) => Some(format!("{key}@person-{}", asker.person.subject)),
        (_, _, key) => key,
    };
    // How the asker is shown, and the subject that alone may withdraw: a token by its name and
    // whom it asks for, a person as they signed in.
    let shown_asker = match (&asked_by, &asking_person) {
        (Some(holder), _) => Some((
            None,
            match &holder.owner {
                Some(owner) => format!("token {} (for {owner})", holder.name),
                None => format!("token {}", holder.name),
            },
        )),
        (None, Some(asker)) => Some((Some(asker.person.subject.clone()), asker.shown.clone())),
        (None, None) => None,
    };
    let asker = asked_by.map(|holder| holder.id);
    let public_url = rt.callbacks.public_url();
    let by_rule = allowed_by_rule(rt, &request);
    let (session_id, rule) = match rt
        .records
        .write(move |tx| {
            let existing = match &key {
                Some(key) => tx.read().session_by_external_key(&agent, key)?,
                None => None,
            };
            let session_id = match existing {
                Some(session) if session.origin == SessionOrigin::External => {
                    // A session keeps the audience its first question gave it (none: everyone).
                    let kept = tx.read().session_audience(session.id)?;
                    if kept != audience {
                        return Ok(Placed::AddressedElsewhere(kept));
                    }
                    session.id
                }
                // A webhook's delivery key under the same agent name: not this agent's session.
                Some(_) => return Ok(Placed::NotExternal),
                None => {
                    tx.start_session(&NewSession {
                        id: new_session,
                        agent: agent.clone(),
                        origin: SessionOrigin::External,
                        parent: None,
                        external_key: key.clone(),
                        title: request.summary(),
                        state: State::Idle,
                        payload: metadata.clone(),
                        at_ms: now,
                    })?;
                    if let Some(audience) = &audience {
                        tx.address_session(new_session, audience)?;
                    }
                    new_session
                }
            };
            let question = NewQuestion {
                id: request_id,
                session_id,
                tool_use_id: format!("external_{}", request_id.as_uuid().simple()),
                agent: agent.clone(),
                origin: Origin::agent(agent.clone()),
                request: request.clone(),
                callback_url: callback_url.clone(),
                expires_at_ms,
                expiry_policy: expires_at_ms.map(|_| policy.clone()),
                at_ms: now,
                callbacks: Vec::new(),
            };
            if let Some((rule, outcome)) = &by_rule {
                let (rule, outcome) = (*rule, outcome.clone());
                let resolution = Resolution {
                    request_id,
                    callbacks: callbacks::for_resolved(
                        callback_url.as_deref(),
                        request_id,
                        session_id,
                        &question.agent,
                        &outcome,
                    ),
                    outcome,
                    via: Some(AnsweredVia::Rule),
                    by: Some(rule_name(rule)),
                    at_ms: now,
                    session_status: Some(SessionStatus::Completed),
                };
                let question = NewQuestion { expires_at_ms: None, expiry_policy: None, ..question.clone() };
                if tx.ask_allowed_by_rule(&question, &resolution, rule, asker)?.is_some() {
                    if let Some((subject, shown)) = &shown_asker {
                        tx.mark_asker(request_id, subject.as_deref(), shown)?;
                    }
                    return Ok(Placed::Asked(session_id, Some(rule)));
                }
            }
            let callbacks = callbacks::for_pending(public_url.as_deref(), callback_url.as_deref(), &question);
            tx.ask(&NewQuestion { callbacks, ..question })?;
            if let Some(token) = asker {
                tx.mark_asked_by(request_id, token)?;
            }
            if let Some((subject, shown)) = &shown_asker {
                tx.mark_asker(request_id, subject.as_deref(), shown)?;
            }
            Ok(Placed::Asked(session_id, None))
        })
        .await?
    {
        Placed::Asked(session_id, rule) => (session_id, rule),
        Placed::NotExternal => {
            return Err(Error::InvalidInput(Problems::one(
                "session_key",
                "names a session of an agent that runs in Beckon, not an external one; choose another agent name or key",
            )));
        }
        Placed::AddressedElsewhere(kept) => {
            let whose = kept.map_or_else(|| "everyone's".to_owned(), |kept| format!("addressed to {kept}"));
            return Err(Error::InvalidInput(Problems::one(
                "audience",
                format!(
                    "this session is {whose}, as its first question made it; ask in another session (another session_key) to address someone else"
                ),
            )));
        }
    };
    if rule.is_some() {
        tracing::info!(%request_id, rule, "a rule allowed the call");
        return Ok(ExternalAsked { request_id, session_id, expires_at_ms: None, allowed_by_rule: rule });
    }
    if let Some(at) = expires_at_ms {
        rt.work.deadlines.arm(request_id, at);
    }
    Ok(ExternalAsked { request_id, session_id, expires_at_ms, allowed_by_rule: None })
}

/// The live rule that allows `request` at once, with the allow it answers: only an approval,
/// and never a destructive call (a rule's `covers` refuses those).
fn allowed_by_rule(rt: &Runtime, request: &QuestionRequest) -> Option<(i64, Outcome)> {
    let rule = rt.approvals.rule_covering(request.approval()?)?;
    let answers = Answers::new(vec![ApprovalChoice::Allow.answer()], request).ok()?;
    Some((rule, Outcome::Answered { answers }))
}

/// Resolves an external question; the session then shows `status`.
pub(crate) async fn resolve(
    rt: &Runtime,
    question: &QuestionRecord,
    outcome: Outcome,
    answerer: Option<&Answerer>,
    status: SessionStatus,
) -> Result<Resolved> {
    if let Outcome::Declined { reason } | Outcome::Cancelled { reason } = &outcome {
        check_reason(reason.as_deref()).map_err(Error::InvalidInput)?;
    }
    let callbacks = callbacks::for_resolved(
        question.callback_url.as_deref(),
        question.id,
        question.session_id,
        &question.agent,
        &outcome,
    );
    let resolution = Resolution {
        request_id: question.id,
        outcome,
        via: answerer.map(|a| a.via),
        by: answerer.and_then(|a| a.by.clone()),
        at_ms: rt.clock.now_ms(),
        session_status: Some(status),
        callbacks,
    };
    rt.records.write(move |tx| tx.resolve(&resolution)).await
}
