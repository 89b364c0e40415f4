//! One task per active session: it feeds events to the state machine, commits each
//! transition, then performs its effects. When the session waits for a person (or for a
//! sub-agent, or is finished) the task ends: nothing polls. Any event for a session — an
//! answer, a cancel, a message — starts its task again.
//!
//! The task's loop is here (`Executor::run_session`): transition, commit (`persist`), then
//! perform (`perform`). Events reach a task through `delivery`, which starts the task when
//! none runs; `shared` holds what every task works with.

mod context;
mod delivery;
mod input;
mod llm;
mod orphans;
mod perform;
mod persist;
mod registry;
mod shared;

use std::collections::VecDeque;
use std::sync::Arc;

use beckon_core::SessionId;
use beckon_core::conversation::{Effect, Event, Message, State, TransitionError, transition};
use tokio::sync::mpsc;

pub(crate) use context::{Facts, Preread, SessionContext};
pub(crate) use delivery::{deliver, deliver_knowing};
pub(crate) use input::Taken;
pub(crate) use orphans::{adopt, resume, unheld};
pub(crate) use perform::recover;
pub(crate) use registry::Registry;
pub(crate) use shared::Executor;

use crate::error::Error;
use input::Input;
use perform::Activity;

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

impl Executor {
    /// `session`'s task, started by `start_or_send`. On a team server it first takes the
    /// session's lease: a task with nothing to hand over (a recovery) leaves a session another
    /// replica runs to it; one with an input waits for that replica to let go (or to die and
    /// its lease to run out).
    async fn run_session(
        self: Arc<Self>,
        session: SessionId,
        mut inbox: mpsc::UnboundedReceiver<Input>,
        input: Option<Input>,
        mut known: Option<Facts>,
    ) {
        let work = orphans::session_work(session);
        match self.take_session(&work, input.is_some()).await {
            Taking::Took => {}
            // Facts read before another replica let go may be out of date.
            Taking::Waited => known = None,
            Taking::HeldElsewhere => {
                tracing::debug!(%session, "another replica runs this session");
                if let Some(input) = input {
                    input.answer(Err(Error::HeldElsewhere(session)));
                }
                while let Some(input) = retire(&self, session, &mut inbox) {
                    input.answer(Err(Error::HeldElsewhere(session)));
                }
                return;
            }
        }
        self.clone().run_held(session, inbox, input, known).await;
        self.leases.give_back(&work).await;
    }

    /// Takes `work` (a session's lease); waits for it up to a lease's length and a second when
    /// `wait` is set.
    async fn take_session(&self, work: &str, wait: bool) -> Taking {
        if self.leases.take(work).await {
            return Taking::Took;
        }
        if !wait {
            return Taking::HeldElsewhere;
        }
        let patience = tokio::time::Instant::now() + self.leases.lease() + LEASE_GRACE;
        while tokio::time::Instant::now() < patience {
            tokio::select! {
                () = tokio::time::sleep(LEASE_POLL) => {}
                () = self.stop.stopping() => return Taking::HeldElsewhere,
            }
            if self.leases.take(work).await {
                return Taking::Waited;
            }
        }
        Taking::HeldElsewhere
    }

    /// The task proper, holding the session: it loads the session (or builds it from `known`),
    /// performs what its committed state owes, then takes one input at a time (transition,
    /// commit, perform) until the session waits for someone else or the runtime stops.
    async fn run_held(
        self: Arc<Self>,
        session: SessionId,
        mut inbox: mpsc::UnboundedReceiver<Input>,
        input: Option<Input>,
        known: Option<Facts>,
    ) {
        let loaded = match known {
            Some(facts) => context::build(&self, facts),
            None => context::load(&self, session).await,
        };
        let (ctx, mut state, history) = match loaded {
            Ok(loaded) => loaded,
            Err(err) => {
                tracing::warn!(%session, %err, "cannot run session");
                let message = err.to_string();
                if let Some(input) = input {
                    input.answer(Err(err));
                }
                while let Some(input) = retire(&self, session, &mut inbox) {
                    input.answer(Err(Error::AgentConfig { agent: session.to_string(), detail: message.clone() }));
                }
                return;
            }
        };
        // The conversation, kept here as committed so that no model call reads it first.
        let mut history = Arc::new(history);
        let mut queue: VecDeque<Input> = VecDeque::new();
        let mut activity: Option<Activity> = None;
        let stopping = self.stop.stopping();
        tokio::pin!(stopping);
        let owed = perform::owed(&state);
        if !owed.is_empty() {
            tracing::info!(%session, state = state.name(), "performing what the committed state owes");
            let (next, follow) = perform::outward(&self, &ctx, &history, &state, &owed).await;
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
                            self.tasks.lock().remove(session);
                            return;
                        }
                    },
                    None => match inbox.try_recv() {
                        Ok(input) => input,
                        Err(_) => match retire(&self, session, &mut inbox) {
                            Some(input) => input,
                            None => return,
                        },
                    },
                },
            };
            let event_name = input.event.name();
            let (next, effects) = match transition(&state, input.event.clone()) {
                Ok((next, effects)) => fold_decided(&ctx, next, effects, self.clock.now_ms()),
                Err(err) => {
                    let err = refusal(&ctx, &state, err);
                    tracing::debug!(%session, event = event_name, %err, "event refused");
                    input.answer(Err(err));
                    continue;
                }
            };
            let taken = match persist::commit(&self, &ctx, &next, &effects, input.answerer.as_ref()).await {
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
            let (next_activity, follow) = perform::outward(&self, &ctx, &history, &state, &effects).await;
            if next_activity.is_some() {
                activity = next_activity;
            }
            queue.extend(follow.into_iter().map(Input::internal));
        }
    }
}

/// How often a task looks again for a session another replica holds.
const LEASE_POLL: std::time::Duration = std::time::Duration::from_millis(50);
/// How long past a lease's length a task waits for it (the holder's clock may run behind).
const LEASE_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// How a task came to hold its session.
enum Taking {
    /// At once.
    Took,
    /// After another replica let go of it.
    Waited,
    /// Not at all: another replica runs it.
    HeldElsewhere,
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
