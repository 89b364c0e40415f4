//! Deciding, for one question, what a decision on it will write — before anything is written.
//! A single answer and each question of a batch are planned here alike: who may answer it (its
//! audience), what only the person may give (the approver rules), which answers fit it, and
//! whether it was settled already (the same decision again is a repeat; any other loses to the
//! winner). The plan is then settled by [`Beckon::settle`](super::handle::Beckon).
//!
//! Planning reads nothing and writes nothing: the question comes in found, and whether scripts
//! may approve comes in as a fact.

use beckon_api::BatchDecision;
use beckon_core::approval::ApprovalChoice;
use beckon_core::outcome::check_reason;
use beckon_core::{AnsweredVia, Answerer, Answers, Audience, GivenAnswers, Outcome, Problems, SessionOrigin};
use beckon_store::{QuestionRecord, Resolved, SessionRecord};

use crate::config::SCRIPTS_MAY_APPROVE_ENV;
use crate::error::{Error, Result};
use crate::executor::Preread;

/// What is done with a question.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Answers it, with answers as the front end received them (read against the question
    /// when it is planned).
    Answer(GivenAnswers),
    /// Declines it, with an optional reason: the agent goes on without an answer.
    Decline(Option<String>),
    /// Withdraws an external agent's question, with an optional reason (the agent no longer
    /// needs it, such as when the person answered in the terminal): it resolves as cancelled
    /// and the session goes on waiting for nothing. This is the agent's act, not the person's,
    /// so who withdrew is not recorded.
    Withdraw(Option<String>),
}

/// A question with its session and, while it waits in a session Beckon runs, what that
/// session's task will need.
pub(super) struct Found {
    pub(super) question: QuestionRecord,
    pub(super) session: SessionRecord,
    /// Whose the question is on a team server; everyone's when `None`.
    pub(super) audience: Option<Audience>,
    pub(super) known: Option<Preread>,
}

/// A decision as it comes in: one question's own, or a batch's, read for each of its questions.
pub(super) enum Given<'a> {
    One(Decision),
    Batch(&'a BatchDecision),
}

/// What settling one question will do.
pub(super) enum Plan {
    /// The question was settled already, as this decision would settle it: a repeat.
    Repeat(Resolved),
    /// An external agent's question, resolved in the store for that agent to read.
    Resolve { question: Box<QuestionRecord>, outcome: Outcome, answerer: Option<Answerer> },
    /// A question of a session Beckon runs, delivered to that session's task.
    Deliver { found: Box<Found>, outcome: Outcome, answerer: Answerer },
}

/// Plans `given` on `found` by `answerer`: what settling it will write, or why it is refused.
pub(super) fn plan(found: Found, answerer: Answerer, given: Given<'_>, scripts_may_approve: bool) -> Result<Plan> {
    let withdrawn = matches!(given, Given::One(Decision::Withdraw(_)));
    // Whoever may not answer it learns nothing of it, not even whether their answer would fit
    // it or who won: the audience is checked before anything else is read.
    if !withdrawn {
        check_audience(&found, &answerer)?;
    }
    let outcome = match given {
        Given::One(decision) => outcome(decision, &found.question)?,
        // A batch refuses what only the person may give before it looks at who won.
        Given::Batch(decision) => {
            let outcome = batch_outcome(&found.question, decision)?;
            check_approver(&found.question, &outcome, answerer.via, scripts_may_approve)?;
            outcome
        }
    };
    if let Some(winner) = found.question.resolution() {
        return Resolved::again(winner, &outcome).map(Plan::Repeat).map_err(Error::AlreadyResolved);
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
        return Ok(Plan::Resolve { question: Box::new(found.question), outcome, answerer: withdrawer });
    }
    check_approver(&found.question, &outcome, answerer.via, scripts_may_approve)?;
    match &outcome {
        Outcome::Answered { answers } => answers.validate(&found.question.request).map_err(Error::InvalidAnswer)?,
        Outcome::Declined { reason } => check_reason(reason.as_deref()).map_err(Error::InvalidInput)?,
        Outcome::Expired { .. } | Outcome::Cancelled { .. } => {}
    }
    Ok(match found.session.origin {
        SessionOrigin::External => {
            Plan::Resolve { question: Box::new(found.question), outcome, answerer: Some(answerer) }
        }
        SessionOrigin::Chat | SessionOrigin::Webhook | SessionOrigin::Subagent => {
            Plan::Deliver { found: Box::new(found), outcome, answerer }
        }
    })
}

/// The outcome one question's own decision gives it, its answers read against it.
fn outcome(decision: Decision, question: &QuestionRecord) -> Result<Outcome> {
    Ok(match decision {
        Decision::Answer(given) => {
            Outcome::Answered { answers: given.read(&question.request).map_err(Error::InvalidAnswer)? }
        }
        Decision::Decline(reason) => Outcome::Declined { reason },
        Decision::Withdraw(reason) => Outcome::Cancelled { reason },
    })
}

/// The outcome a batch's `decision` gives `question`, or why it does not fit it.
fn batch_outcome(question: &QuestionRecord, decision: &BatchDecision) -> Result<Outcome> {
    let request = &question.request;
    let wrong_kind =
        |detail: &str| Error::InvalidInput(Problems::one("decision", format!("question {} {detail}", question.id)));
    let answer = match (decision, request.approval()) {
        // Declining leaves an approval to the agent's own prompt, as "Leave to the terminal"
        // does; denying a question that asks no permission declines it with the message.
        (BatchDecision::Decline { reason }, _) => return Ok(Outcome::Declined { reason: reason.clone() }),
        (BatchDecision::Deny { message }, None) => return Ok(Outcome::Declined { reason: message.clone() }),
        (BatchDecision::AllowOnce, None) => {
            return Err(wrong_kind("is not a tool call waiting for permission; only approvals are allowed"));
        }
        (BatchDecision::Deny { message }, Some(_)) => {
            let deny = ApprovalChoice::Deny.answer();
            match message.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
                Some(message) => deny.with_comment(message),
                None => deny,
            }
        }
        (BatchDecision::AllowOnce, Some(_)) => ApprovalChoice::Allow.answer(),
    };
    let answers = Answers::new(vec![answer], request).map_err(Error::InvalidAnswer)?;
    Ok(Outcome::Answered { answers })
}

/// Refuses an answer or a decline of a question addressed to a person or group from anyone
/// outside it: only someone signed in on the team server as that person, or in that group, may
/// settle it, whatever the front end. To anyone else it is as if there were no such question.
fn check_audience(found: &Found, answerer: &Answerer) -> Result<()> {
    let Some(audience) = &found.audience else { return Ok(()) };
    match &answerer.signed_in {
        Some(person) if audience.includes(&person.subject, &person.groups) => Ok(()),
        _ => Err(Error::QuestionNotFound(found.question.id)),
    }
}

/// Refuses a script's (HTTP, MCP, CLI) answer that only the person may give — allowing an
/// approval, or answering a question an agent's own interface asked the person — unless
/// scripts may approve: the agent that asked can reach those routes too, and must not
/// answer for the person. Denying and declining stay open to everyone.
fn check_approver(
    question: &QuestionRecord,
    outcome: &Outcome,
    via: AnsweredVia,
    scripts_may_approve: bool,
) -> Result<()> {
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
    if !by_script || !question.request.needs_the_person(answers) || scripts_may_approve {
        return Ok(());
    }
    let (what, open) = match question.request.approval() {
        Some(_) => ("asks permission for a tool call; only a person can allow it", ApprovalChoice::Deny.label()),
        None => ("was asked of the person by the agent's own interface; only they can answer it", "Declining"),
    };
    Err(Error::PersonOnly(format!(
        "question {} {what}, in Beckon's window, a notification or the tray (the agent that asked can reach this {} too, so it must not answer for the person). {open} stays open here. To let scripts approve, turn on \"Scripts may approve tool calls\" in Settings or start Beckon with {SCRIPTS_MAY_APPROVE_ENV}=1",
        question.id,
        via.as_str(),
    )))
}
