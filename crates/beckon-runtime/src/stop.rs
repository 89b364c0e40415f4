//! The runtime's stop signal, as each part holds it.

use tokio::sync::watch;

/// Tells every part that the runtime stops. Dropping it stops them too.
#[derive(Debug)]
pub(crate) struct StopSignal(watch::Sender<bool>);

/// A part's view of the stop signal; cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct Stop(watch::Receiver<bool>);

impl StopSignal {
    pub(crate) fn new() -> StopSignal {
        StopSignal(watch::channel(false).0)
    }

    /// A view for one part.
    pub(crate) fn subscribe(&self) -> Stop {
        Stop(self.0.subscribe())
    }

    /// Stops every part.
    pub(crate) fn stop(&self) {
        let _ = self.0.send(true);
    }
}

impl Stop {
    /// Whether the runtime stops (for parts on threads of their own, which look now and then).
    pub(crate) fn is_stopped(&self) -> bool {
        *self.0.borrow() || self.0.has_changed().is_err()
    }

    /// A future that completes when the runtime stops.
    pub(crate) fn stopping(&self) -> impl std::future::Future<Output = ()> + Send + use<> {
        let mut receiver = self.0.clone();
        async move {
            // Either the value turns true or the signal is gone: both mean stop.
            let _ = receiver.wait_for(|stop| *stop).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn stopping_completes_on_stop_or_when_the_signal_is_gone() {
        let signal = StopSignal::new();
        let stop = signal.subscribe();
        let waiting = tokio::spawn(stop.stopping());
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        signal.stop();
        waiting.await.unwrap();

        let signal = StopSignal::new();
        let waiting = tokio::spawn(signal.subscribe().stopping());
        drop(signal);
        waiting.await.unwrap();
    }
}
