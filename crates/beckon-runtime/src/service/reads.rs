//! What front ends show: the inbox, questions, sessions and the answering figures.

use std::time::Duration;

use beckon_api::{SessionView, WindowSnapshot};
use beckon_core::{Audience, RequestId, SessionId, SignedInPerson};
use beckon_store::{
    InboxEntry, Metrics, PendingQuestion, QuestionRecord, QuestionStatus, SessionFilter, SessionPage, SessionRecord,
};

use super::handle::Beckon;
use super::live_events::Events;
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::runtime::Records;

/// What front ends read: the inbox, questions, sessions and the answering figures.
#[derive(Debug, Clone, Copy)]
pub struct Inbox<'a> {
    records: &'a Records,
    clock: &'a dyn Clock,
}

impl Beckon {
    /// What front ends read.
    pub fn inbox(&self) -> Inbox<'_> {
        Inbox { records: &self.rt.records, clock: &*self.rt.clock }
    }

    pub(super) async fn session_record(&self, id: SessionId) -> Result<SessionRecord> {
        self.inbox().session_record(id).await
    }

    /// How many waits for a resolution are registered now.
    #[cfg(test)]
    pub(crate) fn waiters_registered(&self) -> usize {
        self.rt.records.waits()
    }
}

impl Inbox<'_> {
    /// What a window draws at start. The seq is read first: anything committed after it
    /// arrives as an event, and a window applies an event it already reflects harmlessly.
    pub async fn snapshot(self) -> Result<WindowSnapshot> {
        let last_seq = Events { records: self.records }.last_seq().await?;
        let pending = self.entries().await?;
        let sessions =
            self.sessions(SessionFilter { top_level_only: true, limit: 100, ..SessionFilter::default() }).await?;
        let metrics = self.metrics().await?;
        Ok(WindowSnapshot { last_seq, pending, sessions, metrics })
    }

    /// Every pending question, oldest first (the inbox).
    pub async fn pending(self) -> Result<Vec<PendingQuestion>> {
        self.records.call(|store| store.read().pending_questions()).await
    }

    /// Every pending question's line in the inbox's list, oldest first (the request itself is
    /// fetched with [`Inbox::question`] when the person opens it).
    pub async fn entries(self) -> Result<Vec<InboxEntry>> {
        self.records.call(|store| store.read().inbox()).await
    }

    /// A question.
    pub async fn question(self, id: RequestId) -> Result<QuestionRecord> {
        self.records.call(move |store| store.read().question(id)).await?.ok_or(Error::QuestionNotFound(id))
    }

    /// Questions by status (all when `None`), newest first, at most `limit`.
    pub async fn questions(self, status: Option<QuestionStatus>, limit: usize) -> Result<Vec<QuestionRecord>> {
        self.records.call(move |store| store.read().questions(status, None, limit)).await
    }

    /// Waits until question `id` is resolved or `timeout` passes; returns it as it then stands.
    /// An unknown or settled question is answered from the store without waiting; a wait ends
    /// without a trace however it ends, even when the caller drops this future mid-wait.
    pub async fn wait_for_resolution(self, id: RequestId, timeout: Duration) -> Result<QuestionRecord> {
        let question = self.question(id).await?;
        if question.status != QuestionStatus::Pending {
            return Ok(question);
        }
        let mut waiter = self.records.wait_for(id);
        // Again, now that a resolution from here on wakes the waiter.
        let question = self.question(id).await?;
        if question.status != QuestionStatus::Pending {
            return Ok(question);
        }
        let _ = tokio::time::timeout(timeout, waiter.resolved()).await;
        drop(waiter);
        self.question(id).await
    }

    async fn session_record(self, id: SessionId) -> Result<SessionRecord> {
        self.records.call(move |store| store.read().session(id)).await?.ok_or(Error::SessionNotFound(id))
    }

    /// A session with its timeline and questions.
    pub async fn session(self, id: SessionId) -> Result<SessionView> {
        let view = self
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
    pub async fn sessions(self, filter: SessionFilter) -> Result<SessionPage> {
        self.records.call(move |store| store.read().sessions(&filter)).await
    }

    /// Answering figures: what waits, how long, how questions end.
    pub async fn metrics(self) -> Result<Metrics> {
        let now = self.clock.now_ms();
        self.records.call(move |store| store.read().metrics(now, None)).await
    }

    /// The figures of what `person` sees on a team server: everyone's questions and those
    /// addressed to them or one of their groups.
    pub async fn metrics_seen_by(self, person: &SignedInPerson) -> Result<Metrics> {
        let now = self.clock.now_ms();
        let audiences: Vec<String> = std::iter::once(Audience::Person(person.subject.clone()))
            .chain(person.groups.iter().map(|group| Audience::Group(group.clone())))
            .map(|audience| audience.to_string())
            .collect();
        self.records.call(move |store| store.read().metrics_seen_by(now, None, &audiences)).await
    }
}
