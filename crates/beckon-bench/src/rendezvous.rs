//! Where a waiter and an arrival meet, whichever comes first.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;

use tokio::sync::oneshot;

enum Slot<V> {
    Waiting(oneshot::Sender<V>),
    Arrived(V),
}

/// A meeting point per key: [`Rendezvous::arrive`] hands a value to whoever
/// [`Rendezvous::expect`]s that key, before or after.
pub struct Rendezvous<K, V> {
    slots: Mutex<HashMap<K, Slot<V>>>,
}

impl<K, V> std::fmt::Debug for Rendezvous<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let open = self.slots.lock().map(|slots| slots.len()).unwrap_or(0);
        f.debug_struct("Rendezvous").field("open", &open).finish()
    }
}

impl<K, V> Default for Rendezvous<K, V> {
    fn default() -> Self {
        Rendezvous { slots: Mutex::new(HashMap::new()) }
    }
}

impl<K: Eq + Hash, V> Rendezvous<K, V> {
    /// `value` arrives for `key`.
    pub fn arrive(&self, key: K, value: V) {
        let mut slots = self.slots.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match slots.remove(&key) {
            Some(Slot::Waiting(waiter)) => {
                let _ = waiter.send(value);
            }
            _ => {
                slots.insert(key, Slot::Arrived(value));
            }
        }
    }

    /// What arrives (or has arrived) for `key`.
    pub fn expect(&self, key: K) -> oneshot::Receiver<V> {
        let (sender, receiver) = oneshot::channel();
        let mut slots = self.slots.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match slots.remove(&key) {
            Some(Slot::Arrived(value)) => {
                let _ = sender.send(value);
            }
            _ => {
                slots.insert(key, Slot::Waiting(sender));
            }
        }
        receiver
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn arrival_before_or_after_the_waiter_meets_it() {
        let meeting: Rendezvous<u32, &str> = Rendezvous::default();
        meeting.arrive(1, "early");
        assert_eq!(meeting.expect(1).await.unwrap(), "early");
        let late = meeting.expect(2);
        meeting.arrive(2, "late");
        assert_eq!(late.await.unwrap(), "late");
        let never = meeting.expect(3);
        drop(meeting);
        assert!(never.await.is_err(), "a dropped meeting point ends the wait");
    }
}
