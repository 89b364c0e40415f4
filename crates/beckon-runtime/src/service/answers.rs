//! The one way a question is resolved from outside its session: a person answers or declines
//! it (from the window, a notification, the tray, a link, a channel, or a script), or the
//! external agent that asked withdraws it. Whoever acts and whatever they do arrive as typed
//! input to [`Beckon::resolve`]; the rules (who may allow, what a repeat is, which answers fit)
//! are applied once for every front end, by [`plan`](super::plan), and what they decide is
//! written here.

use beckon_api::AnswerReceipt;
use beckon_core::conversation::{Event, SessionStatus};
use beckon_core::outcome::check_reason;
use beckon_core::{Answerer, Outcome, Problems, RequestId, SessionOrigin};
use beckon_store::{Resolved, ResolvedQuestion};

use super::handle::Beckon;
use super::plan::{Decision, Found, Given, Plan, plan};
use crate::error::{Error, Result};
use crate::executor::{self, Facts, Preread, Taken};
use crate::external;

/// The receipt of a resolution: a repeat says so.
pub(crate) fn receipt(resolved: Resolved) -> AnswerReceipt {
    match resolved {
        Resolved::Now(question) => AnswerReceipt { question, repeat: false },
        Resolved::Repeat(question) => AnswerReceipt { question, repeat: true },
    }
}

impl Beckon {
    /// Resolves question `request` as `by` decided. A repeat of the resolution that already
    /// won is an idempotent success; any other decision on a settled question is
    /// [`Error::AlreadyResolved`] with the winner.
    pub async fn resolve(
        &self,
        request: RequestId,
        by: impl Into<Answerer>,
        decision: Decision,
    ) -> Result<AnswerReceipt> {
        let answerer = by.into();
        if let Decision::Withdraw(reason) = &decision {
            check_reason(reason.as_deref()).map_err(Error::InvalidInput)?;
        }
        let found = self.question_and_session(request).await?;
        self.settle(plan(found, answerer, Given::One(decision), self.rt.approvals.scripts_may_approve())?).await
    }

    /// Writes what `plan` says — the one place the two kinds of session part: an external
    /// agent's question is resolved in the store for that agent to read; a question of a
    /// session Beckon runs is delivered to its task, which resumes it.
    pub(super) async fn settle(&self, plan: Plan) -> Result<AnswerReceipt> {
        match plan {
            Plan::Repeat(resolved) => Ok(receipt(resolved)),
            Plan::Resolve { question, outcome, answerer } => {
                let status = SessionStatus::Completed;
                let resolved = external::resolve(&self.rt, &question, outcome, answerer.as_ref(), status).await?;
                Ok(receipt(resolved))
            }
            Plan::Deliver { found, outcome, answerer } => self.deliver(found, outcome, answerer).await,
        }
    }

    /// Delivers a checked outcome of a pending question to the task of the session Beckon
    /// runs that asked it; when the task does not take it, the store says who won, if anyone
    /// did.
    async fn deliver(&self, found: Box<Found>, outcome: Outcome, answerer: Answerer) -> Result<AnswerReceipt> {
        let Found { question, session, known, .. } = *found;
        let id = question.id;
        let event = match outcome.clone() {
            Outcome::Answered { answers } => Event::UserAnswered { request_id: id, answers },
            Outcome::Declined { reason } => Event::UserDeclined { request_id: id, reason },
            Outcome::Expired { .. } | Outcome::Cancelled { .. } => {
                return Err(Error::InvalidInput(Problems::one("outcome", "a person can only answer or decline")));
            }
        };
        let delivered = executor::deliver_knowing(&self.rt.executor, session.id, event, Some(answerer), known).await;
        if let Ok(Taken { resolved: Some(resolved) }) = delivered {
            return Ok(AnswerReceipt { question: resolved, repeat: false });
        }
        // Not taken: the store says who won, if anyone did.
        let now = self.inbox().question(id).await?;
        match (delivered, now.resolution()) {
            (Err(Error::InvalidAnswer(problems)), _) => Err(Error::InvalidAnswer(problems)),
            (_, Some(winner)) => again(winner, &outcome),
            (Err(err), None) => Err(err),
            (Ok(_), None) => Err(Error::WrongState {
                session: session.id,
                status: session.status,
                detail: "the answer was taken but the question is still pending".into(),
            }),
        }
    }

    /// A question with its session, and, while it waits in a session Beckon runs, that
    /// session's facts for the task its answer wakes: all in one read.
    async fn question_and_session(&self, id: RequestId) -> Result<Found> {
        let mut found = self.questions_and_sessions(vec![id]).await?;
        found.pop().map_or(Err(Error::QuestionNotFound(id)), |(_, found)| found)
    }

    /// Questions with their sessions (and facts, as [`question_and_session`] reads them), all
    /// in one read: each id with what was found, in order.
    ///
    /// [`question_and_session`]: Self::question_and_session
    pub(super) async fn questions_and_sessions(&self, ids: Vec<RequestId>) -> Result<Vec<(RequestId, Result<Found>)>> {
        let revisions = self.rt.executor.tasks.revisions().clone();
        self.rt
            .records
            .call(move |store| {
                let mut out = Vec::with_capacity(ids.len());
                for id in ids {
                    let Some((question, session, audience)) = store.read().question_with_session(id)? else {
                        out.push((id, Err(Error::QuestionNotFound(id))));
                        continue;
                    };
                    let known = if session.origin != SessionOrigin::External && question.resolution().is_none() {
                        let revision = revisions.of(session.id);
                        Some(Preread { facts: Facts::of(store, session.clone())?, revision })
                    } else {
                        None
                    };
                    out.push((id, Ok(Found { question, session, audience, known })));
                }
                Ok(out)
            })
            .await
    }
}

/// A decision on a question already settled: a repeat of the winner, or a conflict with it.
fn again(winner: ResolvedQuestion, outcome: &Outcome) -> Result<AnswerReceipt> {
    Resolved::again(winner, outcome).map(receipt).map_err(Error::AlreadyResolved)
}
