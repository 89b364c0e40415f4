//! The one way a question is resolved from outside its session: a person answers or declines
//! it (from the window, a notification, the tray, a link, a channel, or a script), or the
//! external agent that asked withdraws it. Whoever acts and whatever they do arrive as typed
//! input to [`Beckon::resolve`]; the rules (who may allow, what a repeat is, which answers fit)
//! are applied here once for every front end.

use beckon_api::AnswerReceipt;
use beckon_core::conversation::{Event, SessionStatus};
use beckon_core::outcome::check_reason;
use beckon_core::{AnsweredVia, Answerer, Answers, Audience, Outcome, Problems, RequestId, SessionOrigin};
use beckon_store::{QuestionRecord, Resolved, ResolvedQuestion, SessionRecord};
use serde_json::Value;

use super::handle::Beckon;
use crate::config::SCRIPTS_MAY_APPROVE_ENV;
use crate::error::{Error, Result};
use crate::executor::{self, Facts, Preread, Taken};
use crate::external;

/// What is done with a question.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Answers it with answers already in their typed form.
    Answer(Answers),
    /// Answers it with answers given as JSON (an array, one entry per question; a plain string
    /// entry is read as a label or "Other" text); problems are reported by path.
    AnswerJson(Value),
    /// Answers it with one text per question (the CLI's and notification buttons' form):
    /// labels select options, other text becomes the "Other" answer.
    AnswerTexts(Vec<String>),
    /// Declines it, with an optional reason: the agent goes on without an answer.
    Decline(Option<String>),
    /// Withdraws an external agent's question, with an optional reason (the agent no longer
    /// needs it, such as when the person answered in the terminal): it resolves as cancelled
    /// and the session goes on waiting for nothing. This is the agent's act, not the person's,
    /// so who withdrew is not recorded.
    Withdraw(Option<String>),
}

/// The receipt of a resolution: a repeat says so.
pub(crate) fn receipt(resolved: Resolved) -> AnswerReceipt {
    match resolved {
        Resolved::Now(question) => AnswerReceipt { question, repeat: false },
        Resolved::Repeat(question) => AnswerReceipt { question, repeat: true },
    }
}

/// A question with its session and, while it waits in a session Beckon runs, what that
/// session's task will need.
pub(super) struct Found {
    pub(super) question: QuestionRecord,
    pub(super) session: SessionRecord,
    /// Whose the question is on a team server; everyone's when `None`.
    pub(super) audience: Option<Audience>,
    known: Option<Preread>,
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
        // Whoever may not answer it learns nothing of it, not even whether their answer would
        // fit it or who won: the audience is checked before anything else is read.
        if !matches!(decision, Decision::Withdraw(_)) {
            check_audience(&found, &answerer)?;
        }
        let (outcome, withdrawn) = match decision {
            Decision::Answer(answers) => (Outcome::Answered { answers }, false),
            Decision::AnswerJson(given) => {
                let answers = Answers::parse(&given, &found.question.request).map_err(Error::InvalidAnswer)?;
                (Outcome::Answered { answers }, false)
            }
            Decision::AnswerTexts(texts) => {
                let answers = Answers::from_texts(&found.question.request, &texts).map_err(Error::InvalidAnswer)?;
                (Outcome::Answered { answers }, false)
            }
            Decision::Decline(reason) => (Outcome::Declined { reason }, false),
            Decision::Withdraw(reason) => (Outcome::Cancelled { reason }, true),
        };
        if let Some(winner) = found.question.resolution() {
            return again(winner, &outcome);
        }
        if withdrawn {
            if found.session.origin != SessionOrigin::External {
                return Err(Error::WrongState {
                    session: found.session.id,
                    status: found.session.status,
                    detail: "only an external agent's question can be withdrawn; cancel the session instead".into(),
                });
            }
            // Who withdrew is recorded where the withdrawing front end names them.
            let withdrawer = answerer.by.is_some().then_some(answerer);
            return self.settle(found, outcome, withdrawer).await;
        }
        self.check_approver(&found.question, &outcome, answerer.via)?;
        match &outcome {
            Outcome::Answered { answers } => answers.validate(&found.question.request).map_err(Error::InvalidAnswer)?,
            Outcome::Declined { reason } => check_reason(reason.as_deref()).map_err(Error::InvalidInput)?,
            Outcome::Expired { .. } | Outcome::Cancelled { .. } => {}
        }
        self.settle(found, outcome, Some(answerer)).await
    }

    /// Refuses a script's (HTTP, MCP, CLI) answer that only the person may give — allowing an
    /// approval, or answering a question an agent's own interface asked the person — unless
    /// scripts may approve: the agent that asked can reach those routes too, and must not
    /// answer for the person. Denying and declining stay open to everyone.
    pub(super) fn check_approver(&self, question: &QuestionRecord, outcome: &Outcome, via: AnsweredVia) -> Result<()> {
        let Outcome::Answered { answers } = outcome else { return Ok(()) };
        // Every front end is named, so a new one must be placed on one side or the other.
        let by_script = match via {
            AnsweredVia::Http | AnsweredVia::Mcp | AnsweredVia::Cli => true,
            AnsweredVia::Window
            | AnsweredVia::Notification
            | AnsweredVia::Tray
            | AnsweredVia::DeepLink
            | AnsweredVia::Slack
            | AnsweredVia::Telegram
            // A rule the person made allows on their behalf; it is not a script.
            | AnsweredVia::Rule => false,
        };
        if !by_script || !question.request.needs_the_person(answers) || self.scripts_may_approve() {
            return Ok(());
        }
        let (what, open) = match question.request.approval() {
            Some(_) => ("asks permission for a tool call; only a person can allow it", "Deny"),
            None => ("was asked of the person by the agent's own interface; only they can answer it", "Declining"),
        };
        Err(Error::PersonOnly(format!(
            "question {} {what}, in Beckon's window, a notification or the tray (the agent that asked can reach this {} too, so it must not answer for the person). {open} stays open here. To let scripts approve, turn on \"Scripts may approve tool calls\" in Settings or start Beckon with {SCRIPTS_MAY_APPROVE_ENV}=1",
            question.id,
            via.as_str(),
        )))
    }

    /// Settles a pending question with a checked outcome — the one place the two kinds of
    /// session part: an external agent's question is resolved in the store for that agent to
    /// read; a question of a session Beckon runs is delivered to its task, which resumes it.
    pub(super) async fn settle(
        &self,
        found: Found,
        outcome: Outcome,
        answerer: Option<Answerer>,
    ) -> Result<AnswerReceipt> {
        let Found { question, session, known, .. } = found;
        if session.origin == SessionOrigin::External {
            let resolved =
                external::resolve(&self.rt, &question, outcome, answerer.as_ref(), SessionStatus::Completed).await?;
            return Ok(receipt(resolved));
        }
        let id = question.id;
        let event = match outcome.clone() {
            Outcome::Answered { answers } => Event::UserAnswered { request_id: id, answers },
            Outcome::Declined { reason } => Event::UserDeclined { request_id: id, reason },
            Outcome::Expired { .. } | Outcome::Cancelled { .. } => {
                return Err(Error::InvalidInput(Problems::one("outcome", "a person can only answer or decline")));
            }
        };
        let delivered = executor::deliver_knowing(&self.rt.executor, session.id, event, answerer, known).await;
        if let Ok(Taken { resolved: Some(resolved) }) = delivered {
            return Ok(AnswerReceipt { question: resolved, repeat: false });
        }
        // Not taken: the store says who won, if anyone did.
        let now = self.question(id).await?;
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
            .db
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

/// Refuses an answer or a decline of a question addressed to a person or group from anyone
/// outside it: only someone signed in on the team server as that person, or in that group, may
/// settle it, whatever the front end. To anyone else it is as if there were no such question.
pub(super) fn check_audience(found: &Found, answerer: &Answerer) -> Result<()> {
    let Some(audience) = &found.audience else { return Ok(()) };
    match &answerer.signed_in {
        Some(person) if audience.includes(&person.subject, &person.groups) => Ok(()),
        _ => Err(Error::QuestionNotFound(found.question.id)),
    }
}
