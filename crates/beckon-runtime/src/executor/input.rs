//! What reaches a session's task from outside, and what the task answers.

use beckon_core::Answerer;
use beckon_core::conversation::Event;
use beckon_store::ResolvedQuestion;
use tokio::sync::oneshot;

use crate::error::Result;

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
    pub(super) fn internal(event: Event) -> Input {
        Input { event, answerer: None, reply: None }
    }

    pub(super) fn answer(self, result: Result<Taken>) {
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

/// What committing an event did that its sender may want to know.
#[derive(Debug, Default)]
pub(crate) struct Taken {
    /// The question the event resolved, as stored.
    pub(crate) resolved: Option<ResolvedQuestion>,
}
