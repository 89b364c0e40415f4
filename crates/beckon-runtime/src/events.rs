//! Publishing committed events and following them: a front end subscribes after the seq of
//! its snapshot and receives every later event exactly once, in order, even if it lags, and
//! the assistant's text as it streams.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use beckon_core::{RequestId, SessionId};
use beckon_store::{EventKind, PendingQuestion, QuestionStatus, StoredEvent};
use serde::{Deserialize, Serialize};
use tokio::sync::{Notify, broadcast, oneshot};

use crate::db::{AfterCommit, Db};
use crate::error::{Error, Result};
use crate::notifier::{Notifier, PendingNotice, ResolvedNotice};

/// How many events a slow subscriber may fall behind before it re-reads from the store.
const LIVE_BUFFER: usize = 4096;
/// How many events a subscriber reads from the store at a time when catching up.
const CATCH_UP_PAGE: usize = 1000;

/// A piece of assistant text as it streams (live display only; never stored).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextDelta {
    /// The session.
    pub session_id: SessionId,
    /// The text.
    pub text: String,
}

/// Wakes those waiting for a question's resolution.
#[derive(Debug, Default)]
pub(crate) struct Waiters {
    waiting: Mutex<HashMap<RequestId, Vec<oneshot::Sender<()>>>>,
}

impl Waiters {
    /// A receiver that fires when `id` is resolved. Register before checking the store, so
    /// no resolution can slip between the check and the wait.
    pub(crate) fn register(&self, id: RequestId) -> oneshot::Receiver<()> {
        let (sender, receiver) = oneshot::channel();
        let mut waiting = self.lock();
        let list = waiting.entry(id).or_default();
        list.retain(|s| !s.is_closed());
        list.push(sender);
        receiver
    }

    fn wake(&self, id: RequestId) {
        for sender in self.lock().remove(&id).unwrap_or_default() {
            let _ = sender.send(());
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Vec<oneshot::Sender<()>>>> {
        self.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Everything that happens after a commit, on the store thread: publish the events, wake
/// waiters, tell the notifier, and wake the callback sender when there is something to send.
pub(crate) struct Publisher {
    pub(crate) live: broadcast::Sender<Arc<StoredEvent>>,
    pub(crate) waiters: Arc<Waiters>,
    pub(crate) outbox: Arc<Notify>,
    pub(crate) notifier: Arc<dyn Notifier>,
}

impl AfterCommit for Publisher {
    fn committed(&self, events: &[StoredEvent], callbacks_queued: bool) {
        for event in events {
            // No subscribers is fine: they read from the store when they come.
            let _ = self.live.send(Arc::new(event.clone()));
            match event.kind {
                EventKind::QuestionPending => {
                    if let Some(notice) = pending_notice(event) {
                        self.notifier.question_pending(&notice);
                    }
                }
                EventKind::QuestionResolved => {
                    if let Some(notice) = resolved_notice(event) {
                        self.notifier.question_resolved(&notice);
                    }
                    if let Some(id) = event.request_id {
                        self.waiters.wake(id);
                    }
                }
                _ => {}
            }
        }
        if callbacks_queued {
            self.outbox.notify_one();
        }
    }
}

fn pending_notice(event: &StoredEvent) -> Option<PendingNotice> {
    let pending: PendingQuestion =
        event.payload_as().map_err(|err| tracing::warn!(%err, "unreadable question_pending event")).ok()?;
    let request = pending.request().map_err(|err| tracing::warn!(%err, "unreadable pending request")).ok()?;
    Some(PendingNotice {
        request_id: pending.id,
        session_id: pending.session_id,
        agent: pending.agent,
        origin: pending.origin,
        request,
        created_at_ms: pending.created_at_ms,
        expires_at_ms: pending.expires_at_ms,
    })
}

fn resolved_notice(event: &StoredEvent) -> Option<ResolvedNotice> {
    #[derive(Deserialize)]
    struct Resolved {
        status: QuestionStatus,
        answered_via: Option<beckon_core::AnsweredVia>,
    }
    let resolved: Resolved = event.payload_as().ok()?;
    Some(ResolvedNotice {
        request_id: event.request_id?,
        session_id: event.session_id?,
        status: resolved.status,
        answered_via: resolved.answered_via,
    })
}

/// Every event after a seq, then live ones: none missed, none twice, in order.
#[derive(Debug)]
pub struct Subscription {
    db: Db,
    live: broadcast::Receiver<Arc<StoredEvent>>,
    last_seq: i64,
    backlog: VecDeque<StoredEvent>,
}

impl Subscription {
    /// Subscribes to live events first, then reads the backlog after `after_seq`, so nothing
    /// committed in between is lost.
    pub(crate) async fn start(db: Db, live: broadcast::Receiver<Arc<StoredEvent>>, after_seq: i64) -> Result<Self> {
        let mut subscription = Subscription { db, live, last_seq: after_seq.max(0), backlog: VecDeque::new() };
        subscription.catch_up().await?;
        Ok(subscription)
    }

    /// The seq of the last event returned (or the starting seq).
    pub fn last_seq(&self) -> i64 {
        self.last_seq
    }

    async fn catch_up(&mut self) -> Result<()> {
        let after = self.last_seq;
        let page = self.db.call(move |store| store.read().events_after(after, CATCH_UP_PAGE)).await?;
        self.backlog.extend(page);
        Ok(())
    }

    /// The next event, waiting for one if needed.
    pub async fn next(&mut self) -> Result<StoredEvent> {
        loop {
            if let Some(event) = self.backlog.pop_front() {
                if event.seq <= self.last_seq {
                    continue;
                }
                self.last_seq = event.seq;
                if self.backlog.is_empty() {
                    // The page may have been full: look for more before going live.
                    self.catch_up().await?;
                }
                return Ok(event);
            }
            match self.live.recv().await {
                Ok(event) if event.seq <= self.last_seq => continue,
                Ok(event) if event.seq == self.last_seq + 1 => {
                    self.last_seq = event.seq;
                    return Ok((*event).clone());
                }
                // A gap, or we fell behind: the store has everything.
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => self.catch_up().await?,
                Err(broadcast::error::RecvError::Closed) => return Err(Error::ShuttingDown),
            }
        }
    }
}

/// The live channels.
#[derive(Debug)]
pub(crate) struct Hub {
    pub(crate) live: broadcast::Sender<Arc<StoredEvent>>,
    pub(crate) text: broadcast::Sender<TextDelta>,
}

impl Hub {
    pub(crate) fn new() -> Hub {
        Hub { live: broadcast::channel(LIVE_BUFFER).0, text: broadcast::channel(LIVE_BUFFER).0 }
    }
}
