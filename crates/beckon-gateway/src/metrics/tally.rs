//! What this replica counts as it serves: connections at each door, responses by class,
//! sign-ins, and the questions it sees asked and resolved in the event log. Counts only — never
//! who, never what — kept in atomics so counting costs a request nothing it would notice.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use beckon_store::QuestionStatus;

use crate::connection_limits::ConnectionLimits;

/// The counts of one door (the TCP port, or the private socket).
#[derive(Debug, Default)]
pub(crate) struct DoorTally {
    /// Connections it holds at most.
    max: usize,
    open: AtomicU64,
    accepted: AtomicU64,
    refused: AtomicU64,
}

/// One open connection, counted until it is dropped.
#[derive(Debug)]
pub(crate) struct OpenConnection(Arc<DoorTally>);

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::Relaxed);
    }
}

impl DoorTally {
    /// The counts of a door that holds at most `max` connections.
    fn new(max: usize) -> Arc<DoorTally> {
        Arc::new(DoorTally { max, ..DoorTally::default() })
    }

    /// Connections it holds at most.
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// A connection was accepted; it counts as open until the returned guard is dropped.
    pub(crate) fn accepted(self: &Arc<Self>) -> OpenConnection {
        self.accepted.fetch_add(1, Ordering::Relaxed);
        self.open.fetch_add(1, Ordering::Relaxed);
        OpenConnection(self.clone())
    }

    /// A connection was closed as soon as it was accepted (over the cap, or its address's share).
    pub(crate) fn refused(&self) {
        self.refused.fetch_add(1, Ordering::Relaxed);
    }

    /// (open now, accepted since start, refused since start).
    pub(crate) fn read(&self) -> (u64, u64, u64) {
        (self.open.load(Ordering::Relaxed), self.accepted.load(Ordering::Relaxed), self.refused.load(Ordering::Relaxed))
    }
}

/// The classes responses are counted in, as the metric's `class` label names them.
pub(crate) const RESPONSE_CLASSES: [&str; 5] = ["1xx", "2xx", "3xx", "4xx", "5xx"];

/// How the questions the event log shows ended, as the metric's `status` label names them.
pub(crate) const RESOLUTIONS: [QuestionStatus; 4] =
    [QuestionStatus::Answered, QuestionStatus::Declined, QuestionStatus::Expired, QuestionStatus::Cancelled];

/// Everything this replica counts.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// When counting began: when the gateway started (seconds since the Unix epoch).
    started_at_s: f64,
    /// The TCP port.
    pub(crate) tcp: Arc<DoorTally>,
    /// The private socket in the data folder.
    pub(crate) socket: Arc<DoorTally>,
    responses: [AtomicU64; 5],
    sign_ins_completed: AtomicU64,
    sign_ins_refused: AtomicU64,
    asked: AtomicU64,
    resolved: [AtomicU64; 4],
}

/// The path the identity provider sends people back to; its answer says how a sign-in ended.
const SIGN_IN_CALLBACK: &str = "/auth/callback";

impl Tally {
    /// Counting from now, at doors holding what `limits` allow.
    pub(crate) fn new(limits: &ConnectionLimits) -> Tally {
        let started_at_s = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |since| since.as_secs_f64());
        Tally {
            started_at_s,
            tcp: DoorTally::new(limits.max_connections),
            socket: DoorTally::new(limits.max_local_connections),
            ..Tally::default()
        }
    }

    /// When counting began (seconds since the Unix epoch).
    pub(crate) fn started_at_s(&self) -> f64 {
        self.started_at_s
    }

    /// Counts a response by its class, and, when it answers the sign-in callback, how the
    /// sign-in ended.
    fn responded(&self, sign_in_callback: bool, status: StatusCode) {
        let class = usize::from(status.as_u16() / 100).clamp(1, 5) - 1;
        if let Some(count) = self.responses.get(class) {
            count.fetch_add(1, Ordering::Relaxed);
        }
        if sign_in_callback {
            // The callback redirects only a person it signed in; every refusal is a page.
            let count = if status.is_redirection() { &self.sign_ins_completed } else { &self.sign_ins_refused };
            count.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Responses since start, in the order of [`RESPONSE_CLASSES`].
    pub(crate) fn responses(&self) -> [u64; 5] {
        std::array::from_fn(|i| self.responses[i].load(Ordering::Relaxed))
    }

    /// Sign-ins since start: (completed, refused).
    pub(crate) fn sign_ins(&self) -> (u64, u64) {
        (self.sign_ins_completed.load(Ordering::Relaxed), self.sign_ins_refused.load(Ordering::Relaxed))
    }

    /// A question began waiting (anywhere on the team: every replica follows the whole log).
    pub(crate) fn asked(&self) {
        self.asked.fetch_add(1, Ordering::Relaxed);
    }

    /// A question was resolved with `status`.
    pub(crate) fn resolved(&self, status: QuestionStatus) {
        if let Some(i) = RESOLUTIONS.iter().position(|known| *known == status) {
            self.resolved[i].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Questions asked and resolved (in the order of [`RESOLUTIONS`]) since start.
    pub(crate) fn questions(&self) -> (u64, [u64; 4]) {
        (self.asked.load(Ordering::Relaxed), std::array::from_fn(|i| self.resolved[i].load(Ordering::Relaxed)))
    }
}

/// Counts every response the gateway gives, refusals at the guard included.
pub(crate) async fn count_responses(State(tally): State<Arc<Tally>>, request: Request, next: Next) -> Response {
    let sign_in_callback = request.uri().path() == SIGN_IN_CALLBACK;
    let response = next.run(request).await;
    tally.responded(sign_in_callback, response.status());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_count_open_until_dropped() {
        let door = DoorTally::new(4);
        assert_eq!(door.max(), 4);
        let first = door.accepted();
        let second = door.accepted();
        door.refused();
        assert_eq!(door.read(), (2, 2, 1));
        drop(first);
        assert_eq!(door.read(), (1, 2, 1));
        drop(second);
        assert_eq!(door.read(), (0, 2, 1));
    }

    #[test]
    fn responses_count_by_class_and_the_callback_counts_sign_ins() {
        let tally = Tally::default();
        tally.responded(false, StatusCode::CREATED);
        tally.responded(false, StatusCode::NOT_FOUND);
        tally.responded(true, StatusCode::SEE_OTHER);
        tally.responded(true, StatusCode::FOUND);
        tally.responded(true, StatusCode::UNAUTHORIZED);
        tally.responded(false, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(tally.responses(), [0, 1, 2, 2, 1]);
        assert_eq!(tally.sign_ins(), (2, 1));
    }

    #[test]
    fn questions_count_as_asked_and_by_how_they_ended() {
        let tally = Tally::default();
        tally.asked();
        tally.asked();
        tally.resolved(QuestionStatus::Declined);
        tally.resolved(QuestionStatus::Pending);
        assert_eq!(tally.questions(), (2, [0, 1, 0, 0]));
    }
}
