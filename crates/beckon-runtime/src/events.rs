//! Publishing committed events and following them: a front end subscribes after the seq of
//! its snapshot and receives every later event exactly once, in order, even if it lags, and
//! the assistant's text as it streams.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use beckon_core::{RequestId, SessionId};
use beckon_store::{EventKind, EventPayload, StoredEvent};
use serde::{Deserialize, Serialize};
use tokio::sync::{Notify, broadcast, oneshot};

use crate::api::{LiveEvent, live_event};
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

/// Wakes those waiting for a question's resolution. Each wait is registered for as long as its
/// [`Waiter`] lives, and no longer: a wait that ends any way at all (woken, timed out, its
/// caller gone) leaves nothing behind, so long-polls cannot grow this map without bound.
#[derive(Debug, Default)]
pub(crate) struct Waiters {
    waiting: Mutex<WaitList>,
}

#[derive(Debug, Default)]
struct WaitList {
    /// Names each registration, so a waiter removes exactly its own.
    next: u64,
    by_request: HashMap<RequestId, Vec<(u64, oneshot::Sender<()>)>>,
}

/// One registered wait for a question's resolution; dropping it deregisters it.
#[derive(Debug)]
pub(crate) struct Waiter<'w> {
    waiters: &'w Waiters,
    request: RequestId,
    registration: u64,
    woken: oneshot::Receiver<()>,
}

impl Waiter<'_> {
    /// Completes when the question is resolved.
    pub(crate) async fn resolved(&mut self) {
        // An error means the sender was dropped, which only a wake does: resolved either way.
        let _ = (&mut self.woken).await;
    }
}

impl Drop for Waiter<'_> {
    fn drop(&mut self) {
        let mut waiting = self.waiters.lock();
        if let Some(list) = waiting.by_request.get_mut(&self.request) {
            list.retain(|(registration, _)| *registration != self.registration);
            if list.is_empty() {
                waiting.by_request.remove(&self.request);
            }
        }
    }
}

impl Waiters {
    /// A wait for `id`'s resolution. Register before checking the store, so no resolution can
    /// slip between the check and the wait.
    pub(crate) fn register(&self, id: RequestId) -> Waiter<'_> {
        let (sender, woken) = oneshot::channel();
        let mut waiting = self.lock();
        let registration = waiting.next;
        waiting.next = waiting.next.wrapping_add(1);
        waiting.by_request.entry(id).or_default().push((registration, sender));
        Waiter { waiters: self, request: id, registration, woken }
    }

    fn wake(&self, id: RequestId) {
        for (_, sender) in self.lock().by_request.remove(&id).unwrap_or_default() {
            let _ = sender.send(());
        }
    }

    /// How many waits are registered, across every question.
    #[cfg(test)]
    pub(crate) fn registered(&self) -> usize {
        self.lock().by_request.values().map(Vec::len).sum()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, WaitList> {
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
    let pending = match event.details() {
        Ok(EventPayload::QuestionPending(pending)) => pending,
        Ok(_) => return None,
        Err(err) => {
            tracing::warn!(%err, "unreadable question_pending event");
            return None;
        }
    };
    PendingNotice::try_from(pending).map_err(|err| tracing::warn!(%err, "unreadable pending request")).ok()
}

fn resolved_notice(event: &StoredEvent) -> Option<ResolvedNotice> {
    let Ok(EventPayload::QuestionResolved(resolved)) = event.details() else { return None };
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

    /// The next event, typed, waiting for one if needed. An event that cannot be read as its
    /// kind is logged and passed over (its seq still counts as seen).
    pub async fn next(&mut self) -> Result<LiveEvent> {
        loop {
            let stored = self.next_stored().await?;
            if let Some(event) = live_event(&stored) {
                return Ok(event);
            }
        }
    }

    /// The next event as stored.
    async fn next_stored(&mut self) -> Result<StoredEvent> {
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

#[cfg(test)]
mod tests {
    use beckon_core::GivenAnswers;
    use std::time::Duration;

    use beckon_core::{AnsweredVia, QuestionRequest, RequestId};
    use beckon_store::QuestionStatus;
    use serde_json::json;

    use crate::{Beckon, Decision, Error, ExternalAsk, RuntimeConfig, StartOptions};

    async fn ask(beckon: &Beckon) -> RequestId {
        let request = QuestionRequest::parse(&json!({"questions": [{"question": "Ship it?", "header": "Ship",
            "options": [{"label": "Yes"}, {"label": "No"}]}]}))
        .unwrap();
        let ask = ExternalAsk { agent: "ci".into(), request: Some(request), ..ExternalAsk::default() };
        beckon.ask_external(ask).await.unwrap().request_id
    }

    /// Waits (for a bounded time) until `count` waits are registered.
    async fn until_registered(beckon: &Beckon, count: usize) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while beckon.waiters_registered() != count {
            assert!(tokio::time::Instant::now() < deadline, "{count} waits never registered");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    #[tokio::test]
    async fn no_wait_leaves_a_waiter_behind() {
        let dir = tempfile::tempdir().unwrap();
        let beckon = Beckon::start(RuntimeConfig::new(dir.path()), StartOptions::default()).await.unwrap();

        let unknown = crate::clock::new_request_id();
        let found = beckon.inbox().wait_for_resolution(unknown, Duration::from_secs(60)).await;
        assert!(matches!(found, Err(Error::QuestionNotFound(id)) if id == unknown), "{found:?}");
        assert_eq!(beckon.waiters_registered(), 0, "a wait for an unknown id");

        let resolved = ask(&beckon).await;
        beckon.resolve(resolved, AnsweredVia::Window, Decision::Decline(None)).await.unwrap();
        let found = beckon.inbox().wait_for_resolution(resolved, Duration::from_secs(60)).await.unwrap();
        assert_eq!(found.status, QuestionStatus::Declined);
        assert_eq!(beckon.waiters_registered(), 0, "a wait for a resolved id");

        let pending = ask(&beckon).await;
        let found = beckon.inbox().wait_for_resolution(pending, Duration::from_millis(10)).await.unwrap();
        assert_eq!(found.status, QuestionStatus::Pending);
        assert_eq!(beckon.waiters_registered(), 0, "a wait that timed out");

        // A wait whose caller goes away (a dropped connection): its future is dropped mid-wait.
        let waiting = tokio::spawn({
            let beckon = beckon.clone();
            async move { beckon.inbox().wait_for_resolution(pending, Duration::from_secs(3600)).await }
        });
        until_registered(&beckon, 1).await;
        waiting.abort();
        assert!(waiting.await.unwrap_err().is_cancelled());
        assert_eq!(beckon.waiters_registered(), 0, "a cancelled wait");

        // Waits that are woken by the resolution.
        let woken: Vec<_> = (0..3)
            .map(|_| {
                let beckon = beckon.clone();
                tokio::spawn(
                    async move { beckon.inbox().wait_for_resolution(pending, Duration::from_secs(3600)).await },
                )
            })
            .collect();
        until_registered(&beckon, 3).await;
        beckon
            .resolve(pending, AnsweredVia::Window, Decision::Answer(GivenAnswers::Texts(vec!["Yes".into()])))
            .await
            .unwrap();
        for waiting in woken {
            assert_eq!(waiting.await.unwrap().unwrap().status, QuestionStatus::Answered);
        }
        assert_eq!(beckon.waiters_registered(), 0, "woken waits");
        beckon.shutdown().await;
    }
}
