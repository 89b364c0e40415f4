//! Following the event log a team server's replicas share on PostgreSQL.
//!
//! Every replica writes to one log. A replica publishes each event — its own and the others' —
//! once, in `seq` order, from one follower: it listens for commits (`LISTEN`), reads the log
//! after the last `seq` it published, and hands the events to the same publisher a lone
//! Beckon's store thread calls after each commit. So a long-poll or an event stream on replica
//! A sees an answer given through replica B, and a replica's own commits reach its clients in
//! the same order as everyone else's. The store thread, meanwhile, only wakes the outbox.
//!
//! Every replica also arms the deadline of every question asked, through whichever replica:
//! when one replica dies, the others still expire its questions on time. Each tries; the
//! database lets the first expiry stand and the others find it done.

use std::sync::Arc;
use std::time::Duration;

use beckon_store::{EventKind, EventListener, EventPayload, Store, StoredEvent};
use tokio::sync::Notify;

use crate::callbacks::OUTBOX_WORK;
use crate::db::AfterCommit;
use crate::deadlines::Deadlines;
use crate::events::Publisher;
use crate::leases::Leases;
use crate::stop::Stop;

/// How long the follower waits for a commit before reading the log anyway (a notice lost with
/// a dropped connection is made up for within this).
const RECHECK: Duration = Duration::from_millis(500);
/// How long it waits before connecting again after the database went away.
const RETRY: Duration = Duration::from_secs(1);
/// Events read at once.
const PAGE: usize = 1000;

/// The store thread's part on a shared log: events are published by the follower, so after a
/// commit only the outbox is woken.
pub(crate) struct OutboxOnly {
    pub(crate) outbox: Arc<Notify>,
}

impl AfterCommit for OutboxOnly {
    fn committed(&self, _events: &[StoredEvent], callbacks_queued: bool) {
        if callbacks_queued {
            self.outbox.notify_one();
        }
    }
}

/// What follows the shared log, and where its events go.
pub(crate) struct Follower {
    pub(crate) publisher: Publisher,
    pub(crate) deadlines: Deadlines,
    /// Whether this replica delivers callbacks (only then is its outbox woken by others' events).
    pub(crate) leases: Leases,
    pub(crate) stop: Stop,
}

impl Follower {
    /// Follows the log at `url` from `after` until the runtime stops. Runs on a thread of its
    /// own (the listener and the reads block).
    pub(crate) fn follow(&self, url: &str, mut after: i64) {
        while !self.stop.is_stopped() {
            let connected = EventListener::connect(url).and_then(|listener| Ok((listener, Store::connect(url)?)));
            let (mut listener, store) = match connected {
                Ok(both) => both,
                Err(err) => {
                    tracing::warn!(%err, "cannot follow the shared event log; trying again");
                    std::thread::sleep(RETRY);
                    continue;
                }
            };
            loop {
                if self.stop.is_stopped() {
                    return;
                }
                match self.catch_up(&store, after) {
                    Ok(last) => after = last,
                    Err(err) => {
                        tracing::warn!(%err, "cannot read the shared event log; connecting again");
                        break;
                    }
                }
                if let Err(err) = listener.wait(RECHECK) {
                    tracing::warn!(%err, "lost the shared event log's notices; connecting again");
                    break;
                }
            }
            std::thread::sleep(RETRY);
        }
    }

    /// Publishes every event after `after`; the last `seq` published.
    fn catch_up(&self, store: &Store, mut after: i64) -> beckon_store::Result<i64> {
        loop {
            let events = store.read().events_after(after, PAGE)?;
            let Some(last) = events.last() else { return Ok(after) };
            after = last.seq;
            self.arm_deadlines(&events);
            // A question asked or resolved may have queued callbacks, through any replica; the
            // replica that delivers them looks (the others look for the outbox lease by themselves).
            let callbacks = self.leases.seems_held(OUTBOX_WORK)
                && events.iter().any(|e| matches!(e.kind, EventKind::QuestionPending | EventKind::QuestionResolved));
            self.publisher.committed(&events, callbacks);
            if events.len() < PAGE {
                return Ok(after);
            }
        }
    }

    fn arm_deadlines(&self, events: &[StoredEvent]) {
        for event in events.iter().filter(|event| event.kind == EventKind::QuestionPending) {
            if let Ok(EventPayload::QuestionPending(pending)) = event.details()
                && let Some(at_ms) = pending.expires_at_ms
            {
                self.deadlines.arm(pending.id, at_ms);
            }
        }
    }
}
