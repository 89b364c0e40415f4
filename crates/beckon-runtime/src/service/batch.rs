//! Deciding many questions at once from the inbox: deny (or allow once) a set of approvals, or
//! decline a set of questions. Each question is planned as a single decision is, and one that
//! cannot be decided is reported without holding up the rest. Never "Allow always" in bulk: a
//! remembered permission is chosen one call at a time.
//!
//! External agents' questions are resolved in one transaction — one sync to disk for the whole
//! batch — each in its own savepoint; questions of sessions Beckon runs go to their sessions'
//! tasks one by one, as [`Beckon::resolve`] does.

use beckon_api::{BatchDecision, BatchFailure, BatchReceipt};
use beckon_core::conversation::SessionStatus;
use beckon_core::outcome::check_reason;
use beckon_core::{Answerer, Outcome, Problems, RequestId};
use beckon_store::{QuestionRecord, Resolution, Resolved};

use super::handle::Beckon;
use super::plan::{Given, Plan, plan};
use crate::api::ErrorBody;
use crate::callbacks;
use crate::error::{Error, Result};

/// Most questions one batch decides.
pub const BATCH_MAX: usize = 1000;

/// Lists question `request_id` in `receipt` as not decided, for `err`.
fn fail(receipt: &mut BatchReceipt, request_id: RequestId, err: &Error) {
    receipt.failed.push(BatchFailure { request_id, error: ErrorBody::from(err) });
}

/// Lists question `request_id` in `receipt` as `outcome` left it.
fn settled(receipt: &mut BatchReceipt, request_id: RequestId, outcome: Result<Resolved>) {
    match outcome {
        Ok(resolved) => receipt.resolved.push(resolved.question().clone()),
        Err(err) => fail(receipt, request_id, &err),
    }
}

impl Beckon {
    /// Decides every question of `ids` as `decision` says, on behalf of `by`. Each question is
    /// planned as a single decision is (an approval allowed only by a person, a reason
    /// within bounds); one that is unknown, of the wrong kind or already decided otherwise is
    /// listed in [`BatchReceipt::failed`] and the others go on. An id given twice counts once.
    pub async fn resolve_batch(
        &self,
        ids: Vec<RequestId>,
        by: impl Into<Answerer>,
        decision: BatchDecision,
    ) -> Result<BatchReceipt> {
        let answerer = by.into();
        if ids.len() > BATCH_MAX {
            return Err(Error::InvalidInput(Problems::one(
                "ids",
                format!("holds {} questions; a batch decides at most {BATCH_MAX}", ids.len()),
            )));
        }
        match &decision {
            BatchDecision::Deny { message } => check_reason(message.as_deref()),
            BatchDecision::Decline { reason } => check_reason(reason.as_deref()),
            BatchDecision::AllowOnce => Ok(()),
        }
        .map_err(Error::InvalidInput)?;
        let mut unique = ids;
        let mut seen = std::collections::HashSet::new();
        unique.retain(|id| seen.insert(*id));

        let mut receipt = BatchReceipt::default();
        let mut external: Vec<(QuestionRecord, Outcome)> = Vec::new();
        let mut in_app: Vec<(RequestId, Plan)> = Vec::new();
        let scripts_may_approve = self.rt.approvals.scripts_may_approve();
        for (id, found) in self.questions_and_sessions(unique).await? {
            let planned =
                found.and_then(|found| plan(found, answerer.clone(), Given::Batch(&decision), scripts_may_approve));
            match planned {
                Ok(Plan::Repeat(resolved)) => settled(&mut receipt, id, Ok(resolved)),
                Ok(Plan::Resolve { question, outcome, .. }) => external.push((*question, outcome)),
                Ok(deliver @ Plan::Deliver { .. }) => in_app.push((id, deliver)),
                Err(err) => fail(&mut receipt, id, &err),
            }
        }
        // External agents' questions are written together, then the others go to their tasks.
        self.resolve_external(external, &answerer, &mut receipt).await?;
        for (id, deliver) in in_app {
            match self.settle(deliver).await {
                Ok(answered) => receipt.resolved.push(answered.question),
                Err(err) => fail(&mut receipt, id, &err),
            }
        }
        Ok(receipt)
    }

    /// Resolves external agents' questions in one transaction, each in its own savepoint.
    async fn resolve_external(
        &self,
        questions: Vec<(QuestionRecord, Outcome)>,
        answerer: &Answerer,
        receipt: &mut BatchReceipt,
    ) -> Result<()> {
        if questions.is_empty() {
            return Ok(());
        }
        let at_ms = self.rt.clock.now_ms();
        let resolutions: Vec<Resolution> = questions
            .into_iter()
            .map(|(question, outcome)| Resolution {
                request_id: question.id,
                callbacks: callbacks::for_resolved(
                    question.callback_url.as_deref(),
                    question.id,
                    question.session_id,
                    &question.agent,
                    &outcome,
                ),
                outcome,
                via: Some(answerer.via),
                by: answerer.by.clone(),
                at_ms,
                session_status: Some(SessionStatus::Completed),
            })
            .collect();
        let ids: Vec<RequestId> = resolutions.iter().map(|r| r.request_id).collect();
        let outcomes = self.rt.records.write(move |tx| Ok(tx.resolve_each(&resolutions))).await?;
        for (id, outcome) in ids.into_iter().zip(outcomes) {
            settled(receipt, id, outcome.map_err(Error::from));
        }
        Ok(())
    }
}
