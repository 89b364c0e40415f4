//! Question deadlines: one task sleeps until the earliest and expires what is due. Deadlines
//! are stored with their questions, so they are re-armed at start, and one that passed while
//! Beckon was closed fires at once.

use std::collections::BTreeSet;
use std::sync::{Arc, Weak};

use beckon_core::RequestId;
use tokio::sync::mpsc;

use crate::clock::{Clock, Sleep};
use crate::runtime::Runtime;

/// Arms deadlines.
#[derive(Debug, Clone)]
pub(crate) struct Timers {
    arm: mpsc::UnboundedSender<(i64, RequestId)>,
}

impl Timers {
    /// A timer handle and the receiving end for [`run`].
    pub(crate) fn new() -> (Timers, mpsc::UnboundedReceiver<(i64, RequestId)>) {
        let (arm, armed) = mpsc::unbounded_channel();
        (Timers { arm }, armed)
    }

    /// Expires `request_id` at `at_ms` (Unix ms), unless it is resolved before.
    pub(crate) fn arm(&self, request_id: RequestId, at_ms: i64) {
        let _ = self.arm.send((at_ms, request_id));
    }
}

/// The timer task: runs until the runtime is gone.
pub(crate) async fn run(
    rt: Weak<Runtime>,
    clock: Arc<dyn Clock>,
    mut armed: mpsc::UnboundedReceiver<(i64, RequestId)>,
) {
    let mut due: BTreeSet<(i64, RequestId)> = BTreeSet::new();
    loop {
        let wait = due.first().map(|(at, _)| clock.sleep_until(*at));
        tokio::select! {
            incoming = armed.recv() => match incoming {
                Some(deadline) => { due.insert(deadline); }
                None => return,
            },
            () = sleep_or_forever(wait) => {
                let now = clock.now_ms();
                while let Some(&(at, id)) = due.first() {
                    if at > now {
                        break;
                    }
                    due.remove(&(at, id));
                    let Some(rt) = rt.upgrade() else { return };
                    tokio::spawn(async move { crate::expiry::expire(&rt, id).await });
                }
            }
        }
    }
}

async fn sleep_or_forever(wait: Option<Sleep>) {
    match wait {
        Some(wait) => wait.await,
        None => std::future::pending().await,
    }
}
