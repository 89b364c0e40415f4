//! Sessions Beckon runs: starting one (a chat, a webhook trigger), messaging it, cancelling it,
//! and the agents they run.

use std::sync::Arc;

use beckon_core::conversation::{Event, SessionStatus, TransitionError};
use beckon_core::outcome::check_reason;
use beckon_core::{Outcome, Problems, SessionId, SessionOrigin};
use beckon_store::{NewSession, title_from};
use serde_json::Value;

use super::handle::Beckon;
use crate::agents::Agent;
use crate::clock::new_session_id;
use crate::error::{Error, Result};
use crate::executor::{self, Facts, Preread, deliver};
use crate::external;

/// What a webhook delivery key is stored under, apart from external agents' session keys.
const WEBHOOK_KEY_PREFIX: &str = "webhook:";

/// A session started by a trigger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Begun {
    /// The session.
    pub session: SessionId,
    /// Whether an earlier delivery with the same key started it.
    pub repeat: bool,
}

impl Beckon {
    fn agent(&self, name: &str) -> Result<Arc<Agent>> {
        self.rt
            .executor
            .agents
            .get(name)
            .ok_or_else(|| Error::AgentNotFound { name: name.to_owned(), available: self.rt.executor.agents.names() })
    }

    /// Starts a session of `agent` with a first message.
    pub async fn start_session(&self, agent: &str, message: &str) -> Result<SessionId> {
        check_message(message)?;
        Ok(self.begin_session(agent, SessionOrigin::Chat, message, None, message.to_owned(), None).await?.session)
    }

    /// Starts a session of `agent` from a webhook payload. An agent with `questions: false`
    /// runs without `ask_user_question` and must work from the payload alone. A `delivery` key
    /// (the sender's idempotency key) makes the trigger idempotent: the same key for the same
    /// agent returns the session the first delivery started, however often it is sent again.
    pub async fn trigger(&self, agent: &str, payload: Value, delivery: Option<&str>) -> Result<Begun> {
        let pretty = serde_json::to_string_pretty(&payload).unwrap_or_default();
        let message = format!("A webhook triggered this session. Its payload:\n\n```json\n{pretty}\n```");
        check_message(&message)?;
        let title = format!("Webhook: {}", title_from(&payload.to_string()));
        let key = match delivery {
            Some(key) => {
                let mut problems = Problems::new();
                beckon_core::check_name("idempotency_key", key, external::KEY_MAX, &mut problems);
                if !problems.is_empty() {
                    return Err(Error::InvalidInput(problems));
                }
                Some(format!("{WEBHOOK_KEY_PREFIX}{key}"))
            }
            None => None,
        };
        self.begin_session(agent, SessionOrigin::Webhook, &title, Some(payload), message, key).await
    }

    /// Creates a session of `agent` together with its first message, in one transaction, and
    /// starts its first turn. A crash at any moment leaves either no session or one that has
    /// its message and runs at the next start; never a session that waits for a message its
    /// sender was not told was lost.
    async fn begin_session(
        &self,
        agent: &str,
        origin: SessionOrigin,
        title: &str,
        payload: Option<Value>,
        message: String,
        external_key: Option<String>,
    ) -> Result<Begun> {
        self.agent(agent)?;
        let (state, messages) = executor::first_turn(message).map_err(|err| match err {
            TransitionError::InvalidText(problems) => Error::InvalidInput(problems),
            other => Error::InvalidInput(Problems::one("message", other.to_string())),
        })?;
        let at_ms = self.rt.clock.now_ms();
        let id = new_session_id();
        // Read before the write: a state committed after it makes the facts below stale
        // (someone reached the session before its first turn began).
        let revision = self.rt.executor.tasks.revisions().of(id);
        let history = messages.clone();
        let session = NewSession {
            id,
            agent: agent.to_owned(),
            origin,
            parent: None,
            external_key,
            title: title.to_owned(),
            state: state.clone(),
            payload,
            at_ms,
        };
        let begun = self
            .rt
            .records
            .write(move |tx| {
                if let Some(key) = &session.external_key
                    && let Some(earlier) = tx.read().session_by_external_key(&session.agent, key)?
                {
                    return Ok(Begun { session: earlier.id, repeat: true });
                }
                tx.start_session(&session)?;
                tx.append_messages(session.id, &messages, at_ms)?;
                Ok(Begun { session: session.id, repeat: false })
            })
            .await?;
        if !begun.repeat {
            let facts = Facts::fresh(begun.session, agent.to_owned(), state.clone(), history);
            executor::recover(&self.rt.executor, begun.session, &state, Some(Preread { facts, revision }));
        }
        Ok(begun)
    }

    /// Sends a follow-up message to a session whose turn has finished.
    pub async fn send_message(&self, session: SessionId, text: &str) -> Result<()> {
        check_message(text)?;
        let record = self.session_record(session).await?;
        if record.origin == SessionOrigin::External {
            return Err(Error::WrongState {
                session,
                status: record.status,
                detail: "an external agent's session is driven by that agent; answer its questions instead".into(),
            });
        }
        deliver(&self.rt.executor, session, Event::UserMessage { text: text.to_owned() }, None).await.map(drop)
    }

    /// Cancels a session: its waiting question (if any) is cancelled, every open tool call gets
    /// an error result, and its sub-agents are cancelled too.
    pub async fn cancel(&self, session: SessionId, reason: Option<String>) -> Result<()> {
        check_reason(reason.as_deref()).map_err(Error::InvalidInput)?;
        let record = self.session_record(session).await?;
        if record.origin != SessionOrigin::External {
            return deliver(&self.rt.executor, session, Event::UserCancel { reason }, None).await.map(drop);
        }
        let pending = self.rt.records.call(move |store| store.read().pending_question_of(session)).await?;
        match pending {
            Some(question) => {
                external::resolve(&self.rt, &question, Outcome::Cancelled { reason }, None, SessionStatus::Cancelled)
                    .await?;
            }
            None => {
                self.rt
                    .records
                    .write({
                        let now = self.rt.clock.now_ms();
                        move |tx| tx.set_status(session, SessionStatus::Cancelled, reason.as_deref(), now)
                    })
                    .await?;
            }
        }
        Ok(())
    }
}

fn check_message(text: &str) -> Result<()> {
    let limit = beckon_core::limits::USER_MESSAGE_MAX_BYTES;
    if text.trim().is_empty() {
        return Err(Error::InvalidInput(Problems::one("message", "must not be empty")));
    }
    if text.len() > limit {
        return Err(Error::InvalidInput(Problems::one(
            "message",
            format!("is {} bytes; the limit is {limit}", text.len()),
        )));
    }
    Ok(())
}
