//! The service API every front end calls: the `Beckon` handle.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use beckon_core::conversation::{Event, SessionStatus, TransitionError};
use beckon_core::outcome::check_reason;
use beckon_core::{AnsweredVia, Answerer, Answers, Notice, Outcome, Problems, RequestId, SessionId, SessionOrigin};
use beckon_store::{
    Metrics, NewSession, PendingQuestion, QuestionRecord, QuestionStatus, Resolved, ResolvedQuestion, SessionFilter,
    SessionPage, SessionRecord, TimelineEntry, title_from,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::broadcast;

use crate::agents::{AgentInfo, AgentProblem};
use crate::boot::{self, StartOptions};
use crate::clock::new_session_id;
use crate::config::RuntimeConfig;
use crate::error::{Error, Result};
use crate::events::{Subscription, TextDelta};
use crate::executor::{self, Facts, Preread, Taken, deliver};
use crate::external::{self, ExternalAsk, ExternalAsked};
use crate::notices::Notices;
use crate::providers::ProviderSet;
use crate::runtime::Runtime;

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

/// A handle to a running Beckon; cheap to clone, shared by every front end.
#[derive(Clone, Debug)]
pub struct Beckon {
    pub(crate) rt: Arc<Runtime>,
    notices: Arc<Notices>,
}

/// A session with everything a front end shows of it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionView {
    /// The session.
    pub session: SessionRecord,
    /// Its timeline, in order.
    pub timeline: Vec<TimelineEntry>,
    /// The question it waits on, if any.
    pub pending: Option<QuestionRecord>,
    /// Every question it asked, oldest first.
    pub questions: Vec<QuestionRecord>,
}

/// The result of answering or declining.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerReceipt {
    /// The question as resolved.
    pub question: ResolvedQuestion,
    /// True when it had already been resolved exactly this way (an idempotent repeat).
    pub repeat: bool,
}

fn settled(record: &QuestionRecord) -> Option<ResolvedQuestion> {
    Some(ResolvedQuestion {
        id: record.id,
        session_id: record.session_id,
        status: record.status,
        outcome: record.outcome.clone()?,
        answered_via: record.answered_via,
        resolved_at_ms: record.resolved_at_ms?,
    })
}

impl Beckon {
    /// Starts a runtime on `config.data_dir`: takes the folder's lock, opens the store, loads
    /// agents, and resumes whatever a previous run left in flight.
    pub async fn start(config: RuntimeConfig, options: StartOptions) -> Result<Beckon> {
        let (rt, notifier) = boot::boot(config, options).await?;
        let beckon = Beckon { rt, notices: Arc::new(Notices::new(notifier)) };
        beckon.recover().await?;
        Ok(beckon)
    }

    /// Resumes sessions a previous run left mid-turn, re-arms every question deadline (one
    /// that passed while closed fires now), and lets callbacks go out.
    async fn recover(&self) -> Result<()> {
        let (sessions, deadlines) = self
            .rt
            .db
            .call(|store| {
                let mut sessions = store.read().sessions_with_status(SessionStatus::Running)?;
                sessions.extend(store.read().waiting_parents()?);
                Ok((sessions, store.read().deadlines(None)?))
            })
            .await?;
        for session in sessions.iter().filter(|s| s.origin != SessionOrigin::External) {
            executor::recover(&self.rt.executor, session.id, &session.state, None);
        }
        for deadline in &deadlines {
            self.rt.deadlines.arm(deadline.request_id, deadline.expires_at_ms);
        }
        if !sessions.is_empty() || !deadlines.is_empty() {
            tracing::info!(sessions = sessions.len(), deadlines = deadlines.len(), "recovered");
        }
        self.rt.outbox.notify_one();
        Ok(())
    }

    /// Lets HTTP, MCP and the CLI allow tool calls waiting for approval, or stops them.
    pub fn set_scripts_may_approve(&self, allowed: bool) {
        self.rt.scripts_may_approve.store(allowed, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether HTTP, MCP and the CLI may allow tool calls waiting for approval.
    pub fn scripts_may_approve(&self) -> bool {
        self.rt.scripts_may_approve.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Uses new provider settings from now on (sessions asking a model later pick them up).
    pub fn configure_providers(
        &self,
        anthropic: crate::config::ProviderSettings,
        openai: crate::config::ProviderSettings,
        default: Option<beckon_core::agent::ProviderKind>,
    ) {
        let mut config = self.rt.config.clone();
        config.anthropic = anthropic;
        config.openai = openai;
        config.default_provider = default;
        let providers = ProviderSet::new(&config, &self.rt.http);
        *self.rt.executor.providers.write().unwrap_or_else(std::sync::PoisonError::into_inner) = providers;
    }

    /// Tells the runtime where the gateway listens, so callbacks carry answer links.
    pub fn set_public_url(&self, url: Option<String>) {
        self.rt.public_url.set(url);
    }

    /// The data folder.
    pub fn data_dir(&self) -> &Path {
        &self.rt.config.data_dir
    }

    /// The secret callbacks are signed with now (receivers verify `Beckon-Signature` with it).
    pub fn callback_secret(&self) -> String {
        self.rt.callback_secret.current()
    }

    /// Replaces the callback secret with a new random one and returns it. It is stored before
    /// it is returned, and every callback sent from then on is signed with it; signatures made
    /// with the old one no longer verify against it.
    pub async fn rotate_callback_secret(&self) -> Result<String> {
        self.rt.callback_secret.rotate(&self.rt.db).await
    }

    /// The agents, by name.
    pub fn agents(&self) -> Vec<AgentInfo> {
        self.rt.executor.agents.infos()
    }

    /// Agent files that could not be loaded.
    pub fn agent_problems(&self) -> Vec<AgentProblem> {
        self.rt.executor.agents.problems().to_vec()
    }

    /// The agent a new chat uses when none is picked: the poet demo when no provider key is set.
    pub fn default_agent(&self) -> &'static str {
        if self.rt.executor.providers().any_configured() && self.rt.executor.agents.get("assistant").is_some() {
            "assistant"
        } else {
            "poet"
        }
    }

    fn agent(&self, name: &str) -> Result<Arc<crate::agents::Agent>> {
        self.rt
            .executor
            .agents
            .get(name)
            .ok_or_else(|| Error::AgentNotFound { name: name.to_owned(), available: self.rt.executor.agents.names() })
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
            .db
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

    /// Answers a question with checked answers.
    pub async fn answer(&self, request: RequestId, answers: Answers, via: AnsweredVia) -> Result<AnswerReceipt> {
        self.answer_as(request, answers, via.into()).await
    }

    /// Answers a question with checked answers, recording who answered (a channel's person).
    pub async fn answer_as(&self, request: RequestId, answers: Answers, answerer: Answerer) -> Result<AnswerReceipt> {
        let found = self.question_and_session(request).await?;
        self.resolve_by_person(found, Outcome::Answered { answers }, answerer).await
    }

    /// Answers a question with answers given as JSON (an array, one entry per question; a
    /// plain string entry is read as a label or "Other" text), reporting problems by path.
    pub async fn answer_json(&self, request: RequestId, answers: &Value, via: AnsweredVia) -> Result<AnswerReceipt> {
        let found = self.question_and_session(request).await?;
        let answers = Answers::parse(answers, &found.question.request).map_err(Error::InvalidAnswer)?;
        self.resolve_by_person(found, Outcome::Answered { answers }, via.into()).await
    }

    /// Answers a question with one text per question (the CLI's and notification buttons'
    /// form): labels select options, other text becomes the "Other" answer.
    pub async fn answer_texts(&self, request: RequestId, texts: &[String], via: AnsweredVia) -> Result<AnswerReceipt> {
        let found = self.question_and_session(request).await?;
        let answers = Answers::from_texts(&found.question.request, texts).map_err(Error::InvalidAnswer)?;
        self.resolve_by_person(found, Outcome::Answered { answers }, via.into()).await
    }

    /// Declines a question: the agent goes on without an answer.
    pub async fn decline(&self, request: RequestId, reason: Option<String>, via: AnsweredVia) -> Result<AnswerReceipt> {
        self.decline_as(request, reason, via.into()).await
    }

    /// Declines a question, recording who declined (a channel's person).
    pub async fn decline_as(
        &self,
        request: RequestId,
        reason: Option<String>,
        answerer: Answerer,
    ) -> Result<AnswerReceipt> {
        let found = self.question_and_session(request).await?;
        self.resolve_by_person(found, Outcome::Declined { reason }, answerer).await
    }

    /// Resolves a question, read with its session, as the person decided.
    async fn resolve_by_person(&self, found: Found, outcome: Outcome, answerer: Answerer) -> Result<AnswerReceipt> {
        let Found { question, session, known } = found;
        let id = question.id;
        if let Some(winner) = settled(&question) {
            return repeat_or_conflict(winner, &outcome);
        }
        self.check_approver(&question, &outcome, answerer.via)?;
        match &outcome {
            Outcome::Answered { answers } => answers.validate(&question.request).map_err(Error::InvalidAnswer)?,
            Outcome::Declined { reason } => check_reason(reason.as_deref()).map_err(Error::InvalidInput)?,
            _ => {}
        }
        if session.origin == SessionOrigin::External {
            return match external::resolve(
                &self.rt,
                &question,
                outcome.clone(),
                Some(&answerer),
                SessionStatus::Completed,
            )
            .await
            {
                Ok(Resolved::Now(resolved)) => Ok(AnswerReceipt { question: resolved, repeat: false }),
                Ok(Resolved::Repeat(resolved)) => Ok(AnswerReceipt { question: resolved, repeat: true }),
                Err(err) => Err(err),
            };
        }
        let event = match outcome.clone() {
            Outcome::Answered { answers } => Event::UserAnswered { request_id: id, answers },
            Outcome::Declined { reason } => Event::UserDeclined { request_id: id, reason },
            Outcome::Expired { .. } | Outcome::Cancelled { .. } => {
                return Err(Error::InvalidInput(Problems::one("outcome", "a person can only answer or decline")));
            }
        };
        let delivered = executor::deliver_knowing(&self.rt.executor, session.id, event, Some(answerer), known).await;
        if let Ok(Taken { resolved: Some(resolved) }) = delivered {
            return Ok(AnswerReceipt { question: resolved, repeat: false });
        }
        // Not taken: the store says who won, if anyone did.
        let now = self.question(id).await?;
        match (delivered, settled(&now)) {
            (Err(Error::InvalidAnswer(problems)), _) => Err(Error::InvalidAnswer(problems)),
            (_, Some(winner)) => repeat_or_conflict(winner, &outcome),
            (Err(err), None) => Err(err),
            (Ok(_), None) => Err(Error::WrongState {
                session: session.id,
                status: session.status,
                detail: "the answer was taken but the question is still pending".into(),
            }),
        }
    }

    /// Refuses a script's (HTTP, MCP, CLI) answer that only the person may give — allowing an
    /// approval, or answering a question an agent's own interface asked the person — unless
    /// scripts may approve: the agent that asked can reach those routes too, and must not
    /// answer for the person. Denying and declining stay open to everyone.
    fn check_approver(&self, question: &QuestionRecord, outcome: &Outcome, via: AnsweredVia) -> Result<()> {
        let Outcome::Answered { answers } = outcome else { return Ok(()) };
        // Every front end is named, so a new one must be placed on one side or the other.
        let by_script = match via {
            AnsweredVia::Http | AnsweredVia::Mcp | AnsweredVia::Cli => true,
            AnsweredVia::Window
            | AnsweredVia::Notification
            | AnsweredVia::Tray
            | AnsweredVia::DeepLink
            | AnsweredVia::Slack
            | AnsweredVia::Telegram => false,
        };
        if !by_script || !question.request.needs_the_person(answers) || self.scripts_may_approve() {
            return Ok(());
        }
        let (what, open) = match question.request.approval() {
            Some(_) => ("asks permission for a tool call; only a person can allow it", "Deny"),
            None => ("was asked of the person by the agent's own interface; only they can answer it", "Declining"),
        };
        Err(Error::PersonOnly(format!(
            "question {} {what}, in Beckon's window, a notification or the tray (the agent that asked can reach this {} too, so it must not answer for the person). {open} stays open here. To let scripts approve, turn on \"Scripts may approve tool calls\" in Settings or start Beckon with {}=1",
            question.id,
            via.as_str(),
            crate::config::SCRIPTS_MAY_APPROVE_ENV
        )))
    }

    /// Withdraws an external agent's pending question (the agent no longer needs it, such as
    /// when the person answered in the terminal): it resolves as cancelled with `reason`, and
    /// the session goes on waiting for nothing.
    pub async fn withdraw(&self, request: RequestId, reason: Option<String>) -> Result<AnswerReceipt> {
        check_reason(reason.as_deref()).map_err(Error::InvalidInput)?;
        let Found { question, session, .. } = self.question_and_session(request).await?;
        let outcome = Outcome::Cancelled { reason };
        if let Some(winner) = settled(&question) {
            return repeat_or_conflict(winner, &outcome);
        }
        if session.origin != SessionOrigin::External {
            return Err(Error::WrongState {
                session: session.id,
                status: session.status,
                detail: "only an external agent's question can be withdrawn; cancel the session instead".into(),
            });
        }
        match external::resolve(&self.rt, &question, outcome, None, SessionStatus::Completed).await? {
            Resolved::Now(resolved) => Ok(AnswerReceipt { question: resolved, repeat: false }),
            Resolved::Repeat(resolved) => Ok(AnswerReceipt { question: resolved, repeat: true }),
        }
    }

    /// Cancels a session: its waiting question (if any) is cancelled, every open tool call gets
    /// an error result, and its sub-agents are cancelled too.
    pub async fn cancel(&self, session: SessionId, reason: Option<String>) -> Result<()> {
        check_reason(reason.as_deref()).map_err(Error::InvalidInput)?;
        let record = self.session_record(session).await?;
        if record.origin != SessionOrigin::External {
            return deliver(&self.rt.executor, session, Event::UserCancel { reason }, None).await.map(drop);
        }
        let pending = self.rt.db.call(move |store| store.read().pending_question_of(session)).await?;
        match pending {
            Some(question) => {
                external::resolve(&self.rt, &question, Outcome::Cancelled { reason }, None, SessionStatus::Cancelled)
                    .await?;
            }
            None => {
                self.rt
                    .db
                    .write({
                        let now = self.rt.clock.now_ms();
                        move |tx| tx.set_status(session, SessionStatus::Cancelled, reason.as_deref(), now)
                    })
                    .await?;
            }
        }
        Ok(())
    }

    /// An agent outside Beckon waits for its person where Beckon cannot answer for it (Claude
    /// Code idle at its prompt): the person is told, replacing an earlier notice under `key`.
    pub fn post_notice(&self, key: &str, agent: String, message: String, project: Option<String>) -> Result<Notice> {
        let notice = Notice::new(key, agent, message, project, self.rt.clock.now_ms()).map_err(Error::InvalidInput)?;
        self.notices.post(notice.clone());
        Ok(notice)
    }

    /// The agent under `key` went on: its notice goes away. Says whether there was one.
    pub fn clear_notice(&self, key: &str) -> bool {
        self.notices.clear(key)
    }

    /// The notices shown now, oldest first.
    pub fn notices(&self) -> Vec<Notice> {
        self.notices.list()
    }

    /// Puts an external agent's question to the person.
    pub async fn ask_external(&self, ask: ExternalAsk) -> Result<ExternalAsked> {
        external::ask(&self.rt, ask).await
    }

    /// Waits until question `id` is resolved or `timeout` passes; returns it as it then stands.
    /// An unknown or settled question is answered from the store without waiting; a wait ends
    /// without a trace however it ends, even when the caller drops this future mid-wait.
    pub async fn wait_for_resolution(&self, id: RequestId, timeout: Duration) -> Result<QuestionRecord> {
        let question = self.question(id).await?;
        if question.status != QuestionStatus::Pending {
            return Ok(question);
        }
        let mut waiter = self.rt.waiters.register(id);
        // Again, now that a resolution from here on wakes the waiter.
        let question = self.question(id).await?;
        if question.status != QuestionStatus::Pending {
            return Ok(question);
        }
        let _ = tokio::time::timeout(timeout, waiter.resolved()).await;
        drop(waiter);
        self.question(id).await
    }

    /// How many waits for a resolution are registered now.
    #[cfg(test)]
    pub(crate) fn waiters_registered(&self) -> usize {
        self.rt.waiters.registered()
    }

    /// Every pending question, oldest first (the inbox).
    pub async fn pending(&self) -> Result<Vec<PendingQuestion>> {
        self.rt.db.call(|store| store.read().pending_questions()).await
    }

    /// A question.
    pub async fn question(&self, id: RequestId) -> Result<QuestionRecord> {
        self.rt.db.call(move |store| store.read().question(id)).await?.ok_or(Error::QuestionNotFound(id))
    }

    /// Questions by status (all when `None`), newest first, at most `limit`.
    pub async fn questions(&self, status: Option<QuestionStatus>, limit: usize) -> Result<Vec<QuestionRecord>> {
        self.rt.db.call(move |store| store.read().questions(status, None, limit)).await
    }

    /// A question with its session, and, while it waits in a session Beckon runs, that
    /// session's facts for the task its answer wakes: all in one read.
    async fn question_and_session(&self, id: RequestId) -> Result<Found> {
        let revisions = self.rt.executor.tasks.revisions().clone();
        let found = self
            .rt
            .db
            .call(move |store| {
                let Some(question) = store.read().question(id)? else { return Ok(None) };
                let Some(session) = store.read().session(question.session_id)? else { return Ok(None) };
                let known = if session.origin != SessionOrigin::External && settled(&question).is_none() {
                    let revision = revisions.of(session.id);
                    Some(Preread { facts: Facts::of(store, session.clone())?, revision })
                } else {
                    None
                };
                Ok(Some(Found { question, session, known }))
            })
            .await?;
        found.ok_or(Error::QuestionNotFound(id))
    }

    async fn session_record(&self, id: SessionId) -> Result<SessionRecord> {
        self.rt.db.call(move |store| store.read().session(id)).await?.ok_or(Error::SessionNotFound(id))
    }

    /// A session with its timeline and questions.
    pub async fn session(&self, id: SessionId) -> Result<SessionView> {
        let view = self
            .rt
            .db
            .call(move |store| {
                let Some(session) = store.read().session(id)? else { return Ok(None) };
                Ok(Some(SessionView {
                    session,
                    timeline: store.read().timeline(id)?,
                    pending: store.read().pending_question_of(id)?,
                    questions: store.read().questions_of(id)?,
                }))
            })
            .await?;
        view.ok_or(Error::SessionNotFound(id))
    }

    /// A page of sessions, newest first.
    pub async fn sessions(&self, filter: SessionFilter) -> Result<SessionPage> {
        self.rt.db.call(move |store| store.read().sessions(&filter)).await
    }

    /// Answering figures: what waits, how long, how questions end.
    pub async fn metrics(&self) -> Result<Metrics> {
        let now = self.rt.clock.now_ms();
        self.rt.db.call(move |store| store.read().metrics(now, None)).await
    }

    /// The newest event's seq: a snapshot taken now is complete up to it.
    pub async fn last_seq(&self) -> Result<i64> {
        self.rt.db.call(|store| store.read().last_seq()).await
    }

    /// How many write transactions the store has committed since this runtime started, each
    /// one synced to disk: what a workload costs in durable commits.
    pub async fn commits(&self) -> Result<u64> {
        self.rt.db.call(|store| Ok(store.commits())).await
    }

    /// How many jobs (reads and writes) the store has been given since this runtime started:
    /// what a workload costs in trips to the store.
    pub fn store_jobs(&self) -> u64 {
        self.rt.db.jobs()
    }

    /// Every event after `after_seq`, then live ones, none missed or doubled.
    pub async fn subscribe(&self, after_seq: i64) -> Result<Subscription> {
        Subscription::start(self.rt.db.clone(), self.rt.hub.live.subscribe(), after_seq).await
    }

    /// The assistant's text as it streams (live display only).
    pub fn text_deltas(&self) -> broadcast::Receiver<TextDelta> {
        self.rt.hub.text.subscribe()
    }

    /// Stops: workers and session tasks end at their next safe point (an LLM request in
    /// flight is abandoned; its session re-issues it at the next start, as after a crash), and
    /// once they have, the data folder's lock is released. Other handles to this runtime stop
    /// working.
    pub async fn shutdown(self) {
        self.rt.signal.stop();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        let workers = std::mem::take(&mut *self.rt.workers.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        for worker in workers {
            if tokio::time::timeout_at(deadline, worker).await.is_err() {
                tracing::warn!("a worker did not stop in time; it may still write to the store");
            }
        }
        // Every session task holds the executor; every other task in flight, the runtime.
        let held = |rt: &Arc<Runtime>| Arc::strong_count(rt) > 1 || Arc::strong_count(&rt.executor) > 1;
        while held(&self.rt) && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        if held(&self.rt) {
            tracing::warn!("some handles to the runtime are still held; the data folder stays locked until they go");
        }
    }
}

/// A question a person answers, with its session and what its task will need.
struct Found {
    question: QuestionRecord,
    session: SessionRecord,
    known: Option<Preread>,
}

fn repeat_or_conflict(winner: ResolvedQuestion, outcome: &Outcome) -> Result<AnswerReceipt> {
    if &winner.outcome == outcome {
        Ok(AnswerReceipt { question: winner, repeat: true })
    } else {
        Err(Error::AlreadyResolved(Box::new(winner)))
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
