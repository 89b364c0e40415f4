//! The window's one stream: committed events and assistant text as it streams, merged so that
//! text streamed before a commit reaches the window before that commit's event. Otherwise a
//! last piece of text could land after the committed message had replaced the draft, and
//! stand as a stray draft under it.

use std::future::Future;

use beckon_runtime::api::LiveEvent;
use beckon_runtime::{Subscription, TextDelta};
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

use crate::dto::UiEvent;

/// Where committed events come from.
pub(crate) trait Committed {
    /// The next event for the window, or `None` once there will be no more.
    fn next_event(&mut self) -> impl Future<Output = Option<LiveEvent>> + Send;
}

impl Committed for Subscription {
    async fn next_event(&mut self) -> Option<LiveEvent> {
        self.next().await.ok()
    }
}

/// Sends `events` and `deltas` to `send` until either ends or `send` returns false.
pub(crate) async fn forward(
    mut events: impl Committed,
    mut deltas: broadcast::Receiver<TextDelta>,
    mut send: impl FnMut(UiEvent) -> bool,
) {
    loop {
        let event = tokio::select! {
            // Text is published before the commit that ends it, so when both are ready the
            // text goes first.
            biased;
            delta = deltas.recv() => match delta {
                Ok(delta) => UiEvent::TextDelta { session_id: delta.session_id, text: delta.text },
                // Missed deltas are only cosmetic: the committed message follows.
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            },
            event = events.next_event() => match event {
                Some(event) => UiEvent::Live { event },
                None => return,
            },
        };
        if !send(event) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use beckon_core::SessionId;

    use super::*;

    /// Committed events that are all ready at once, then none.
    struct Ready(VecDeque<LiveEvent>);

    impl Committed for Ready {
        async fn next_event(&mut self) -> Option<LiveEvent> {
            match self.0.pop_front() {
                Some(event) => Some(event),
                None => std::future::pending().await,
            }
        }
    }

    fn session(n: u128) -> SessionId {
        SessionId::from_uuid(uuid::Uuid::from_u128(n))
    }

    /// What the window receives for `events` and `deltas`, all ready before forwarding starts.
    async fn received(events: Vec<LiveEvent>, deltas: &[&str]) -> Vec<UiEvent> {
        let (sender, receiver) = broadcast::channel(16);
        for text in deltas {
            sender.send(TextDelta { session_id: session(1), text: (*text).to_owned() }).unwrap();
        }
        let wanted = events.len() + deltas.len();
        let mut got = Vec::new();
        forward(Ready(events.into()), receiver, |event| {
            got.push(event);
            got.len() < wanted
        })
        .await;
        got
    }

    fn is_delta(event: &UiEvent) -> bool {
        matches!(event, UiEvent::TextDelta { .. })
    }

    #[tokio::test]
    async fn text_streamed_before_a_commit_reaches_the_window_first() {
        // Either order would be picked about half the time if the merge chose at random.
        for _ in 0..64 {
            let commit = LiveEvent::SessionDeleted { seq: 7, session_id: session(1) };
            let got = received(vec![commit], &["Hel", "lo"]).await;
            let kinds: Vec<bool> = got.iter().map(is_delta).collect();
            assert_eq!(kinds, [true, true, false], "{got:?}");
        }
    }

    #[tokio::test]
    async fn committed_events_keep_their_order_and_the_text_its_own() {
        let commits: Vec<LiveEvent> =
            (1..=3).map(|seq| LiveEvent::SessionDeleted { seq, session_id: session(seq as u128) }).collect();
        let got = received(commits, &["a", "b"]).await;
        let texts: Vec<&str> = got
            .iter()
            .filter_map(|event| match event {
                UiEvent::TextDelta { text, .. } => Some(text.as_str()),
                UiEvent::Live { .. } => None,
            })
            .collect();
        let seqs: Vec<i64> = got
            .iter()
            .filter_map(|event| match event {
                UiEvent::Live { event } => Some(event.seq()),
                UiEvent::TextDelta { .. } => None,
            })
            .collect();
        assert_eq!(texts, ["a", "b"]);
        assert_eq!(seqs, [1, 2, 3]);
    }

    #[tokio::test]
    async fn forwarding_stops_when_the_window_is_gone_or_the_runtime_is() {
        let (sender, receiver) = broadcast::channel(4);
        sender.send(TextDelta { session_id: session(1), text: "x".into() }).unwrap();
        let mut sent = 0;
        forward(Ready(VecDeque::new()), receiver, |_| {
            sent += 1;
            false
        })
        .await;
        assert_eq!(sent, 1, "nothing is sent after the window refuses one");

        let (sender, receiver) = broadcast::channel::<TextDelta>(4);
        drop(sender);
        forward(Ready(VecDeque::new()), receiver, |_| panic!("nothing to send")).await;
    }
}
