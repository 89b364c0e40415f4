//! Which callbacks are being sent now, and whether another may start: a receiver that is slow
//! or dead holds at most a few of the sender's slots, so it cannot hold up everyone else's
//! callbacks, and the two callbacks of one question never race each other.

use std::collections::{HashMap, HashSet};

use beckon_store::OutboxEntry;

use super::origin;

/// Deliveries in flight at once, across every receiver.
pub(super) const MAX_IN_FLIGHT: usize = 16;
/// Deliveries in flight at once to one receiving host (scheme, host and port).
pub(super) const MAX_IN_FLIGHT_PER_HOST: usize = 4;

/// What a delivery in flight holds.
#[derive(Debug)]
struct Held {
    host: String,
    subject: String,
}

/// The deliveries in flight, by outbox id.
#[derive(Debug, Default)]
pub(super) struct InFlight {
    held: HashMap<i64, Held>,
    per_host: HashMap<String, usize>,
    subjects: HashSet<String>,
}

/// What a callback is about: its idempotency key up to the last `:` (the question's id, for
/// `<id>:pending` and `<id>:resolved`).
fn subject(idempotency_key: &str) -> &str {
    idempotency_key.rsplit_once(':').map_or(idempotency_key, |(subject, _)| subject)
}

impl InFlight {
    /// Starts `entry` if a slot is free: none is in flight for the same outbox row or the same
    /// subject, its host has fewer than [`MAX_IN_FLIGHT_PER_HOST`], and fewer than
    /// [`MAX_IN_FLIGHT`] are in flight in all. True when it may be sent now.
    pub(super) fn admit(&mut self, entry: &OutboxEntry) -> bool {
        let host = origin(&entry.target);
        let subject = subject(&entry.idempotency_key);
        let admitted = self.held.len() < MAX_IN_FLIGHT
            && !self.held.contains_key(&entry.id)
            && !self.subjects.contains(subject)
            && self.per_host.get(&host).copied().unwrap_or(0) < MAX_IN_FLIGHT_PER_HOST;
        if admitted {
            *self.per_host.entry(host.clone()).or_default() += 1;
            self.subjects.insert(subject.to_owned());
            self.held.insert(entry.id, Held { host, subject: subject.to_owned() });
        }
        admitted
    }

    /// Frees the slots of the delivery of outbox row `id`.
    pub(super) fn finish(&mut self, id: i64) {
        let Some(held) = self.held.remove(&id) else { return };
        self.subjects.remove(&held.subject);
        if let Some(count) = self.per_host.get_mut(&held.host) {
            *count -= 1;
            if *count == 0 {
                self.per_host.remove(&held.host);
            }
        }
    }

    /// Whether every slot is taken.
    pub(super) fn full(&self) -> bool {
        self.held.len() >= MAX_IN_FLIGHT
    }
}

#[cfg(test)]
mod tests {
    use beckon_store::CallbackFormat;
    use serde_json::json;

    use super::*;

    fn entry(id: i64, target: &str, key: &str) -> OutboxEntry {
        OutboxEntry {
            id,
            idempotency_key: key.into(),
            target: target.into(),
            format: CallbackFormat::Json,
            kind: beckon_store::CallbackKind::Pending,
            payload: json!({}),
            attempts: 0,
            next_attempt_at_ms: 0,
            created_at_ms: 0,
        }
    }

    #[test]
    fn one_host_gets_at_most_its_share() {
        let mut in_flight = InFlight::default();
        for id in 0..MAX_IN_FLIGHT_PER_HOST as i64 {
            assert!(in_flight.admit(&entry(
                id,
                &format!("http://dead.example:8080/hook/{id}"),
                &format!("q{id}:pending")
            )));
        }
        let one_more = entry(100, "http://dead.example:8080/other?token=x", "q100:pending");
        assert!(!in_flight.admit(&one_more), "the same host, another path: still that host");
        assert!(in_flight.admit(&entry(101, "http://dead.example:8081/hook", "q101:pending")), "another port");
        assert!(in_flight.admit(&entry(102, "https://dead.example/hook", "q102:pending")), "another scheme");
        assert!(in_flight.admit(&entry(103, "http://healthy.example/hook", "q103:pending")));

        in_flight.finish(0);
        assert!(in_flight.admit(&one_more), "a finished delivery frees its host's slot");
        assert!(!in_flight.admit(&entry(104, "http://dead.example:8080/", "q104:pending")));
    }

    #[test]
    fn a_row_and_a_question_are_sent_once_at_a_time() {
        let mut in_flight = InFlight::default();
        assert!(in_flight.admit(&entry(1, "http://a.example/", "q1:pending")));
        assert!(!in_flight.admit(&entry(1, "http://a.example/", "q1:pending")), "the same row");
        assert!(!in_flight.admit(&entry(2, "http://b.example/", "q1:resolved")), "the same question");
        in_flight.finish(1);
        assert!(in_flight.admit(&entry(2, "http://b.example/", "q1:resolved")));
        in_flight.finish(7);
        assert!(!in_flight.full());
    }

    #[test]
    fn every_slot_taken_is_full() {
        let mut in_flight = InFlight::default();
        for id in 0..MAX_IN_FLIGHT as i64 {
            assert!(!in_flight.full());
            assert!(in_flight.admit(&entry(id, &format!("http://host{id}.example/"), &format!("q{id}:pending"))));
        }
        assert!(in_flight.full());
        assert!(!in_flight.admit(&entry(99, "http://another.example/", "q99:pending")));
        in_flight.finish(3);
        assert!(!in_flight.full());
    }
}
