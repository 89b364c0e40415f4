//! The person's notifications: the runtime calls a [`Notifier`] right after a question becomes
//! pending or is resolved has been committed. The desktop implements it with OS notifications;
//! tests and benchmarks record the calls.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use beckon_core::conversation::Origin;
use beckon_core::{AnsweredVia, Notice, QuestionRequest, RequestId, SessionId};
use beckon_store::{PendingQuestion, QuestionStatus};

/// A question now waits for a person.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingNotice {
    /// The question.
    pub request_id: RequestId,
    /// The asking session.
    pub session_id: SessionId,
    /// The asking agent.
    pub agent: String,
    /// Who asks ("research › summariser").
    pub origin: Origin,
    /// What is asked.
    pub request: QuestionRequest,
    /// Asked (Unix ms).
    pub created_at_ms: i64,
    /// Expires (Unix ms).
    pub expires_at_ms: Option<i64>,
}

impl TryFrom<PendingQuestion> for PendingNotice {
    type Error = beckon_store::Error;

    /// A pending question as the person is told of it; its request read from its stored JSON.
    fn try_from(question: PendingQuestion) -> Result<Self, Self::Error> {
        let request = question.request().map_err(|err| beckon_store::Error::InvalidData {
            table: "questions",
            column: "request",
            detail: err.to_string(),
        })?;
        Ok(PendingNotice {
            request_id: question.id,
            session_id: question.session_id,
            agent: question.agent,
            origin: question.origin,
            request,
            created_at_ms: question.created_at_ms,
            expires_at_ms: question.expires_at_ms,
        })
    }
}

/// A question was resolved (answered anywhere, declined, expired or cancelled).
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedNotice {
    /// The question.
    pub request_id: RequestId,
    /// Its session.
    pub session_id: SessionId,
    /// How it ended.
    pub status: QuestionStatus,
    /// Where the person acted from.
    pub answered_via: Option<AnsweredVia>,
}

/// Tells the person. Called on the store thread right after commit: implementations must
/// return quickly and do slow work (D-Bus, HTTP) elsewhere.
pub trait Notifier: Send + Sync {
    /// A question became pending.
    fn question_pending(&self, notice: &PendingNotice);
    /// A question was resolved.
    fn question_resolved(&self, notice: &ResolvedNotice);
    /// An agent outside Beckon waits for its person (replacing its earlier notice).
    fn notice_posted(&self, _notice: &Notice) {}
    /// That agent went on: its notice under `key` goes away.
    fn notice_cleared(&self, _key: &str) {}
}

/// A notifier that tells nobody (headless hosts rely on callbacks instead).
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Notifier for Silent {
    fn question_pending(&self, _notice: &PendingNotice) {}
    fn question_resolved(&self, _notice: &ResolvedNotice) {}
}

/// One recorded call.
#[derive(Debug, Clone, PartialEq)]
pub enum Recorded {
    /// `question_pending`.
    Pending(PendingNotice),
    /// `question_resolved`.
    Resolved(ResolvedNotice),
    /// `notice_posted`.
    NoticePosted(Notice),
    /// `notice_cleared`, with the key.
    NoticeCleared(String),
}

/// A notifier that records every call with the instant it arrived, for tests and benchmarks.
#[derive(Debug, Default)]
pub struct RecordingNotifier {
    calls: Mutex<Vec<(Instant, Recorded)>>,
    changed: tokio::sync::Notify,
}

impl RecordingNotifier {
    /// Every call so far.
    pub fn calls(&self) -> Vec<Recorded> {
        self.lock().iter().map(|(_, call)| call.clone()).collect()
    }

    /// When the pending call for `request_id` arrived.
    pub fn pending_at(&self, request_id: RequestId) -> Option<Instant> {
        self.lock().iter().find_map(|(at, call)| match call {
            Recorded::Pending(notice) if notice.request_id == request_id => Some(*at),
            _ => None,
        })
    }

    /// Waits until a recorded call matches `test`, up to `timeout`; returns it.
    pub async fn wait_for(&self, timeout: Duration, test: impl Fn(&Recorded) -> bool) -> Option<Recorded> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let changed = self.changed.notified();
            if let Some(found) = self.lock().iter().map(|(_, call)| call).find(|call| test(call)) {
                return Some(found.clone());
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return None;
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Instant, Recorded)>> {
        // A panic while holding this lock can only come from a test assertion elsewhere.
        self.calls.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn record(&self, call: Recorded) {
        self.lock().push((Instant::now(), call));
        self.changed.notify_waiters();
    }
}

impl Notifier for RecordingNotifier {
    fn question_pending(&self, notice: &PendingNotice) {
        self.record(Recorded::Pending(notice.clone()));
    }

    fn question_resolved(&self, notice: &ResolvedNotice) {
        self.record(Recorded::Resolved(notice.clone()));
    }

    fn notice_posted(&self, notice: &Notice) {
        self.record(Recorded::NoticePosted(notice.clone()));
    }

    fn notice_cleared(&self, key: &str) {
        self.record(Recorded::NoticeCleared(key.to_owned()));
    }
}
