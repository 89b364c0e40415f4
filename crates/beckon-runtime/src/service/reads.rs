//! What front ends show: the inbox, questions, sessions, figures, and events as they happen.

use std::time::Duration;

use beckon_api::{SessionView, WindowSnapshot};
use beckon_core::{Audience, RequestId, SessionId, SignedInPerson};
use beckon_store::{
    InboxEntry, Metrics, PendingQuestion, QuestionRecord, QuestionStatus, SessionFilter, SessionPage, SessionRecord,
    Workload,
};
use tokio::sync::broadcast;

use super::handle::Beckon;
use crate::error::{Error, Result};
use crate::events::{Subscription, TextDelta};

/// What the store has committed since this runtime started: for benchmarks and tests that
/// check how many syncs to disk a piece of work costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreCounts {
    /// Write transactions committed (each a sync to disk).
    pub commits: u64,
    /// Questions those transactions resolved.
    pub resolutions: u64,
}

impl Beckon {
    /// How many transactions the store committed, and how many questions they resolved.
    pub async fn store_counts(&self) -> Result<StoreCounts> {
        self.rt
            .records
            .call(|store| Ok(StoreCounts { commits: store.commits(), resolutions: store.resolutions() }))
            .await
    }

    /// What a window draws at start. The seq is read first: anything committed after it
    /// arrives as an event, and a window applies an event it already reflects harmlessly.
    pub async fn window_snapshot(&self) -> Result<WindowSnapshot> {
        let last_seq = self.last_seq().await?;
        let pending = self.inbox().await?;
        let sessions =
            self.sessions(SessionFilter { top_level_only: true, limit: 100, ..SessionFilter::default() }).await?;
        let metrics = self.metrics().await?;
        Ok(WindowSnapshot { last_seq, pending, sessions, metrics })
    }

    /// Every pending question, oldest first (the inbox).
    pub async fn pending(&self) -> Result<Vec<PendingQuestion>> {
        self.rt.records.call(|store| store.read().pending_questions()).await
    }

    /// Every pending question's line in the inbox's list, oldest first (the request itself is
    /// fetched with [`Beckon::question`] when the person opens it).
    pub async fn inbox(&self) -> Result<Vec<InboxEntry>> {
        self.rt.records.call(|store| store.read().inbox()).await
    }

    /// A question.
    pub async fn question(&self, id: RequestId) -> Result<QuestionRecord> {
        self.rt.records.call(move |store| store.read().question(id)).await?.ok_or(Error::QuestionNotFound(id))
    }

    /// Questions by status (all when `None`), newest first, at most `limit`.
    pub async fn questions(&self, status: Option<QuestionStatus>, limit: usize) -> Result<Vec<QuestionRecord>> {
        self.rt.records.call(move |store| store.read().questions(status, None, limit)).await
    }

    /// Waits until question `id` is resolved or `timeout` passes; returns it as it then stands.
    /// An unknown or settled question is answered from the store without waiting; a wait ends
    /// without a trace however it ends, even when the caller drops this future mid-wait.
    pub async fn wait_for_resolution(&self, id: RequestId, timeout: Duration) -> Result<QuestionRecord> {
        let question = self.question(id).await?;
        if question.status != QuestionStatus::Pending {
            return Ok(question);
        }
        let mut waiter = self.rt.records.wait_for(id);
        // Again, now that a resolution from here on wakes the waiter.
        let question = self.question(id).await?;
        if question.status != QuestionStatus::Pending {
            return Ok(question);
        }
        let _ = tokio::time::timeout(timeout, waiter.resolved()).await;
        drop(waiter);
        self.question(id).await
    }

    /// How many waits for a resolution are registered now.
    #[cfg(test)]
    pub(crate) fn waiters_registered(&self) -> usize {
        self.rt.records.waits()
    }

    pub(super) async fn session_record(&self, id: SessionId) -> Result<SessionRecord> {
        self.rt.records.call(move |store| store.read().session(id)).await?.ok_or(Error::SessionNotFound(id))
    }

    /// A session with its timeline and questions.
    pub async fn session(&self, id: SessionId) -> Result<SessionView> {
        let view = self
            .rt
            .records
            .call(move |store| {
                let Some(session) = store.read().session(id)? else { return Ok(None) };
                Ok(Some(SessionView {
                    session,
                    timeline: store.read().timeline(id)?,
                    pending: store.read().pending_question_of(id)?,
                    questions: store.read().questions_of(id)?,
                }))
            })
            .await?;
        view.ok_or(Error::SessionNotFound(id))
    }

    /// A page of sessions, newest first.
    pub async fn sessions(&self, filter: SessionFilter) -> Result<SessionPage> {
        self.rt.records.call(move |store| store.read().sessions(&filter)).await
    }

    /// Answering figures: what waits, how long, how questions end.
    pub async fn metrics(&self) -> Result<Metrics> {
        let now = self.rt.clock.now_ms();
        self.rt.records.call(move |store| store.read().metrics(now, None)).await
    }

    /// The figures of what `person` sees on a team server: everyone's questions and those
    /// addressed to them or one of their groups.
    pub async fn metrics_seen_by(&self, person: &SignedInPerson) -> Result<Metrics> {
        let now = self.rt.clock.now_ms();
        let audiences: Vec<String> = std::iter::once(Audience::Person(person.subject.clone()))
            .chain(person.groups.iter().map(|group| Audience::Group(group.clone())))
            .map(|audience| audience.to_string())
            .collect();
        self.rt.records.call(move |store| store.read().metrics_seen_by(now, None, &audiences)).await
    }

    /// What the server has on its hands now (questions and sessions waiting, callbacks and
    /// channel posts not yet sent, people signed in), for its operators' metrics: counts only.
    pub async fn workload(&self) -> Result<Workload> {
        let now = self.rt.clock.now_ms();
        self.rt.records.call(move |store| store.read().workload(now)).await
    }

    /// Whether this replica is ready to serve: its database answers and holds the schema this
    /// build knows.
    pub async fn ready(&self) -> bool {
        self.rt.records.call(|store| store.read().schema_current()).await.unwrap_or(false)
    }

    /// The newest event's seq: a snapshot taken now is complete up to it.
    pub async fn last_seq(&self) -> Result<i64> {
        self.rt.records.call(|store| store.read().last_seq()).await
    }

    /// How many write transactions the store has committed since this runtime started, each
    /// one synced to disk: what a workload costs in durable commits.
    pub async fn commits(&self) -> Result<u64> {
        self.rt.records.call(|store| Ok(store.commits())).await
    }

    /// How many jobs (reads and writes) the store has been given since this runtime started:
    /// what a workload costs in trips to the store.
    pub fn store_jobs(&self) -> u64 {
        self.rt.records.jobs()
    }

    /// Every event after `after_seq`, then live ones, none missed or doubled.
    pub async fn subscribe(&self, after_seq: i64) -> Result<Subscription> {
        Subscription::start(self.rt.records.db().clone(), self.rt.records.live_events(), after_seq).await
    }

    /// The assistant's text as it streams (live display only).
    pub fn text_deltas(&self) -> broadcast::Receiver<TextDelta> {
        self.rt.records.text_deltas()
    }
}
