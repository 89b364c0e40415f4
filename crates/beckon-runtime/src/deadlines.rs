//! Question deadlines: one task sleeps until the earliest and hands on each that is due (boot
//! wires that to expiry). Deadlines are stored with their questions, so they are re-armed at
//! start, and one that passed while Beckon was closed is due at once.

use std::collections::BTreeSet;
use std::sync::Arc;

use beckon_core::RequestId;
use tokio::sync::mpsc;

use crate::clock::{Clock, Sleep};
use crate::stop::Stop;

/// Arms deadlines.
#[derive(Debug, Clone)]
pub(crate) struct Deadlines {
    arm: mpsc::UnboundedSender<(i64, RequestId)>,
}

impl Deadlines {
    /// A timer handle and the receiving end for [`run`].
    pub(crate) fn new() -> (Deadlines, mpsc::UnboundedReceiver<(i64, RequestId)>) {
        let (arm, armed) = mpsc::unbounded_channel();
        (Deadlines { arm }, armed)
    }

    /// Expires `request_id` at `at_ms` (Unix ms), unless it is resolved before.
    pub(crate) fn arm(&self, request_id: RequestId, at_ms: i64) {
        let _ = self.arm.send((at_ms, request_id));
    }
}

/// The timer task: runs until the runtime is gone.
pub(crate) async fn run(
    clock: Arc<dyn Clock>,
    mut armed: mpsc::UnboundedReceiver<(i64, RequestId)>,
    due: impl Fn(RequestId) + Send + 'static,
    stop: Stop,
) {
    let mut waiting: BTreeSet<(i64, RequestId)> = BTreeSet::new();
    let stopping = stop.stopping();
    tokio::pin!(stopping);
    loop {
        let wait = waiting.first().map(|(at, _)| clock.sleep_until(*at));
        tokio::select! {
            incoming = armed.recv() => match incoming {
                Some(deadline) => { waiting.insert(deadline); }
                None => return,
            },
            () = sleep_or_forever(wait) => {
                let now = clock.now_ms();
                while let Some(&(at, id)) = waiting.first() {
                    if at > now {
                        break;
                    }
                    waiting.remove(&(at, id));
                    due(id);
                }
            }
            () = &mut stopping => return,
        }
    }
}

async fn sleep_or_forever(wait: Option<Sleep>) {
    match wait {
        Some(wait) => wait.await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::clock::ManualClock;
    use crate::stop::StopSignal;

    fn request(n: u8) -> RequestId {
        format!("0190f1d2-0000-7000-8000-0000000000{n:02x}").parse().unwrap()
    }

    /// Lets the worker run until it waits again.
    async fn settle() {
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test]
    async fn deadlines_come_due_in_order_and_never_early() {
        let clock = Arc::new(ManualClock::new(1_000));
        let (deadlines, armed) = Deadlines::new();
        let fired = Arc::new(Mutex::new(Vec::new()));
        let seen = fired.clone();
        let signal = StopSignal::new();
        let worker =
            tokio::spawn(run(clock.clone(), armed, move |id| seen.lock().unwrap().push(id), signal.subscribe()));
        deadlines.arm(request(3), 3_000);
        deadlines.arm(request(1), 2_000);
        deadlines.arm(request(0), 500); // passed already: due at once
        settle().await;
        assert_eq!(*fired.lock().unwrap(), vec![request(0)]);
        clock.advance(std::time::Duration::from_millis(999));
        settle().await;
        assert_eq!(fired.lock().unwrap().len(), 1, "a deadline 1 ms away is not due");
        clock.advance(std::time::Duration::from_millis(1));
        settle().await;
        assert_eq!(*fired.lock().unwrap(), vec![request(0), request(1)]);
        clock.advance(std::time::Duration::from_millis(5_000));
        settle().await;
        assert_eq!(*fired.lock().unwrap(), vec![request(0), request(1), request(3)]);
        signal.stop();
        worker.await.unwrap();
    }
}
