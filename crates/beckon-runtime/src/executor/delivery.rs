//! Getting an event to a session's task: handed to the task while it runs, or a task started
//! for it.

use std::sync::Arc;

use beckon_core::conversation::Event;
use beckon_core::{Answerer, SessionId};
use tokio::sync::{mpsc, oneshot};

use super::context::Preread;
use super::input::{Input, Taken};
use super::shared::Executor;
use crate::error::{Error, Result};

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
    tokio::spawn(ex.clone().run_session(session, inbox, input, known));
}
