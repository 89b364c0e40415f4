//! One task per active session: it feeds events to the state machine, commits each
//! transition, then performs its effects. When the session waits for a person (or for a
//! sub-agent, or is finished) the task ends: nothing polls. Any event for a session — an
//! answer, a cancel, a message — starts its task again.

mod context;
mod llm;
mod perform;
mod persist;
mod registry;

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use beckon_core::conversation::{Effect, Event, Message, State, TransitionError, transition};
use beckon_core::{Answerer, SessionId};
use tokio::sync::{mpsc, oneshot};

pub(crate) use context::{Facts, Preread, SessionContext};
pub(crate) use perform::recover;
pub(crate) use persist::Taken;
pub(crate) use registry::Registry;

use crate::agents::Agents;
use crate::clock::Clock;
use crate::db::Db;
use crate::deadlines::Deadlines;
use crate::error::{Error, Result};
use crate::events::TextDelta;
use crate::lock::DataDirLock;
use crate::providers::ProviderSet;
use crate::public_url::PublicUrl;
use crate::stop::Stop;

/// What the executor works with, and nothing else: its sessions' tasks hold it.
pub(crate) struct Executor {
    pub(crate) db: Db,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) agents: Agents,
    pub(crate) providers: std::sync::RwLock<ProviderSet>,
    /// The mailbox of every session whose task is alive.
    pub(crate) tasks: Registry,
    pub(crate) deadlines: Deadlines,
    /// Where the model's text goes as it streams.
    pub(crate) text: tokio::sync::broadcast::Sender<TextDelta>,
    /// Where sessions' workspace folders live.
    pub(crate) workspaces: std::path::PathBuf,
    /// For the answer links in callbacks.
    pub(crate) public_url: PublicUrl,
    pub(crate) stop: Stop,
    /// The data folder's lock: held while any session task still runs, so that no other
    /// runtime opens the folder under a task that is finishing its commit.
    pub(crate) _lock: Arc<DataDirLock>,
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor").field("workspaces", &self.workspaces).finish_non_exhaustive()
    }
}

impl Executor {
    /// The providers as configured now.
    pub(crate) fn providers(&self) -> std::sync::RwLockReadGuard<'_, ProviderSet> {
        self.providers.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Something delivered to a session's task from outside.
#[derive(Debug)]
pub(crate) struct Input {
    pub(crate) event: Event,
    /// Who acted and from where, for answers and declines.
    pub(crate) answerer: Option<Answerer>,
    /// Told whether the event was taken (committed) or refused.
    pub(crate) reply: Option<oneshot::Sender<Result<Taken>>>,
}

impl Input {
    fn internal(event: Event) -> Input {
        Input { event, answerer: None, reply: None }
    }

    fn answer(self, result: Result<Taken>) {
        match self.reply {
            Some(reply) => {
                let _ = reply.send(result);
            }
            None => {
                if let Err(err) = result {
                    tracing::warn!(%err, event = self.event.name(), "an internal event was refused");
                }
            }
        }
    }
}

/// An outward action in flight (an LLM request, a tool, a backoff): it yields the next event,
/// or nothing when the session is to wait for someone else (a sub-agent).
pub(crate) type Activity = Pin<Box<dyn Future<Output = Option<Event>> + Send>>;

/// Delivers `event` to `session`'s task (starting it if needed) and waits until it is
/// committed or refused.
pub(crate) async fn deliver(
    ex: &Arc<Executor>,
    session: SessionId,
    event: Event,
    answerer: Option<Answerer>,
) -> Result<Taken> {
    deliver_knowing(ex, session, event, answerer, None).await
}

/// [`deliver`], with the session's facts already read: a task started for the event uses them
/// instead of reading them again, if they are still current.
pub(crate) async fn deliver_knowing(
    ex: &Arc<Executor>,
    session: SessionId,
    event: Event,
    answerer: Option<Answerer>,
    known: Option<Preread>,
) -> Result<Taken> {
    let (reply, answer) = oneshot::channel();
    start_or_send(ex, session, Some(Input { event, answerer, reply: Some(reply) }), known);
    answer.await.map_err(|_| Error::ShuttingDown)?
}

/// Hands `input` to `session`'s running task, or starts one. A task begins by performing what
/// its committed state still owes (no other task is alive to perform it), then takes `input`;
/// with no input it only does the former (after a restart, or for a session created with its
/// first turn already committed).
pub(crate) fn start_or_send(ex: &Arc<Executor>, session: SessionId, input: Option<Input>, known: Option<Preread>) {
    let mut tasks = ex.tasks.lock();
    if let Some(mailbox) = tasks.mailbox(session) {
        match input {
            Some(input) => match mailbox.send(input) {
                Ok(()) => return,
                // The task is gone without having unregistered (it panicked): start afresh.
                Err(mpsc::error::SendError(input)) => {
                    tasks.remove(session);
                    drop(tasks);
                    return start_or_send(ex, session, Some(input), None);
                }
            },
            // The live task performed what the state owed when it began.
            None => return,
        }
    }
    // Facts read before a state of the session was committed are out of date: read afresh.
    let known = known.filter(|known| tasks.unchanged_since(session, known.revision)).map(|known| known.facts);
    let (mailbox, inbox) = mpsc::unbounded_channel();
    tasks.insert(session, mailbox);
    drop(tasks);
    tokio::spawn(run(ex.clone(), session, inbox, input, known));
}

/// A new session's first turn: its state after its first message, and the messages to write
/// with it.
pub(crate) fn first_turn(text: String) -> std::result::Result<(State, Vec<Message>), TransitionError> {
    let (state, effects) = transition(&State::Idle, Event::UserMessage { text })?;
    let messages = effects
        .into_iter()
        .flat_map(|effect| match effect {
            Effect::PersistMessages { messages } => messages,
            _ => Vec::new(),
        })
        .collect();
    Ok((state, messages))
}

/// Folds the tool calls a step makes that are decided without I/O (a question for the person,
/// a refused call) into that step, so that one commit covers both: a model's reply that asks a
/// question is one durable write, not two. A crash then finds the session either before the
/// reply or waiting on its question, which recovery treats alike.
fn fold_decided(ctx: &SessionContext, mut state: State, mut effects: Vec<Effect>, now_ms: i64) -> (State, Vec<Effect>) {
    loop {
        let decided = effects.iter().enumerate().find_map(|(index, effect)| match effect {
            Effect::ExecuteTool { call } => perform::decided(ctx, call, now_ms).map(|event| (index, event)),
            _ => None,
        });
        let Some((index, event)) = decided else {
            return (state, effects);
        };
        match transition(&state, event) {
            Ok((after, more)) => {
                effects.remove(index);
                effects.extend(more);
                state = after;
            }
            // Left to be performed after the commit, where the refusal is reported.
            Err(_) => return (state, effects),
        }
    }
}

/// Removes the task from the registry if its mailbox is empty; returns false (and the input
/// that arrived meanwhile) otherwise.
fn retire(ex: &Executor, session: SessionId, inbox: &mut mpsc::UnboundedReceiver<Input>) -> Option<Input> {
    let mut tasks = ex.tasks.lock();
    match inbox.try_recv() {
        Ok(input) => Some(input),
        Err(_) => {
            tasks.remove(session);
            None
        }
    }
}

/// Adds what a committed transition appended to the conversation to the task's copy of it.
fn remember(history: &mut Arc<Vec<Message>>, effects: &[Effect]) {
    for effect in effects {
        match effect {
            Effect::PersistMessages { messages } => Arc::make_mut(history).extend(messages.iter().cloned()),
            Effect::PersistToolResults { results } => Arc::make_mut(history)
                .extend(results.iter().map(|result| Message::ToolResult { result: result.clone() })),
            _ => {}
        }
    }
}

async fn run(
    ex: Arc<Executor>,
    session: SessionId,
    mut inbox: mpsc::UnboundedReceiver<Input>,
    input: Option<Input>,
    known: Option<Facts>,
) {
    let loaded = match known {
        Some(facts) => context::build(&ex, facts),
        None => context::load(&ex, session).await,
    };
    let (ctx, mut state, history) = match loaded {
        Ok(loaded) => loaded,
        Err(err) => {
            tracing::warn!(%session, %err, "cannot run session");
            let message = err.to_string();
            if let Some(input) = input {
                input.answer(Err(err));
            }
            while let Some(input) = retire(&ex, session, &mut inbox) {
                input.answer(Err(Error::AgentConfig { agent: session.to_string(), detail: message.clone() }));
            }
            return;
        }
    };
    // The conversation, kept here as committed so that no model call reads it first.
    let mut history = Arc::new(history);
    let mut queue: VecDeque<Input> = VecDeque::new();
    let mut activity: Option<Activity> = None;
    let stopping = ex.stop.stopping();
    tokio::pin!(stopping);
    let owed = perform::owed(&state);
    if !owed.is_empty() {
        tracing::info!(%session, state = state.name(), "performing what the committed state owes");
        let (next, follow) = perform::outward(&ex, &ctx, &history, &state, &owed).await;
        activity = next;
        queue.extend(follow.into_iter().map(Input::internal));
    }
    queue.extend(input);
    loop {
        let input = match queue.pop_front() {
            Some(input) => input,
            None => match activity.as_mut() {
                Some(running) => tokio::select! {
                    event = running => {
                        activity = None;
                        match event {
                            Some(event) => Input::internal(event),
                            None => continue,
                        }
                    }
                    Some(input) = inbox.recv() => input,
                    () = &mut stopping => {
                        // Committed state is enough to pick this up at the next start.
                        ex.tasks.lock().remove(session);
                        return;
                    }
                },
                None => match inbox.try_recv() {
                    Ok(input) => input,
                    Err(_) => match retire(&ex, session, &mut inbox) {
                        Some(input) => input,
                        None => return,
                    },
                },
            },
        };
        let event_name = input.event.name();
        let (next, effects) = match transition(&state, input.event.clone()) {
            Ok((next, effects)) => fold_decided(&ctx, next, effects, ex.clock.now_ms()),
            Err(err) => {
                let err = refusal(&ctx, &state, err);
                tracing::debug!(%session, event = event_name, %err, "event refused");
                input.answer(Err(err));
                continue;
            }
        };
        let taken = match persist::commit(&ex, &ctx, &next, &effects, input.answerer.as_ref()).await {
            Ok(taken) => taken,
            Err(err) => {
                tracing::warn!(%session, event = event_name, %err, "transition not committed");
                input.answer(Err(err));
                continue;
            }
        };
        tracing::debug!(%session, from = state.name(), to = next.name(), event = event_name, "transition");
        state = next;
        remember(&mut history, &effects);
        input.answer(Ok(taken));
        if matches!(state, State::Cancelled | State::Failed { .. } | State::AwaitingUserResponse { .. }) {
            // Whatever was in flight belongs to a turn that has ended or is stopped.
            activity = None;
        }
        let (next_activity, follow) = perform::outward(&ex, &ctx, &history, &state, &effects).await;
        if next_activity.is_some() {
            activity = next_activity;
        }
        queue.extend(follow.into_iter().map(Input::internal));
    }
}

/// A refused event, said in the service API's terms.
fn refusal(ctx: &SessionContext, state: &State, err: TransitionError) -> Error {
    match err {
        TransitionError::InvalidAnswer(problems) => Error::InvalidAnswer(problems),
        TransitionError::InvalidText(problems) => Error::InvalidInput(problems),
        TransitionError::StaleAnswer { expected, got } => Error::WrongState {
            session: ctx.id,
            status: state.status(),
            detail: format!("it waits for question {expected}, not {got}"),
        },
        other => Error::WrongState { session: ctx.id, status: state.status(), detail: other.to_string() },
    }
}

#[cfg(test)]
mod tests;
