//! Committing a transition: the new state and every row its effects imply, in one
//! transaction, before anything leaves the process.

use beckon_core::conversation::{Effect, ExpiryPolicy, Notice, State};
use beckon_core::{Answerer, QuestionRequest};
use beckon_store::{EventPayload, NewQuestion, NoDetails, Resolution, Resolved};

use super::context::SessionContext;
use super::input::Taken;
use super::shared::Executor;
use crate::callbacks;
use crate::error::Result;

/// What a question's expiry does, fixed when it is asked, from the asking agent's policy.
pub(crate) fn expiry_policy(ctx: &SessionContext, request: &QuestionRequest) -> ExpiryPolicy {
    let policy = &ctx.agent.definition.question_policy;
    ExpiryPolicy::for_question(policy.on_timeout, policy.default_answer.as_deref(), request).unwrap_or_else(|problem| {
        tracing::warn!(agent = %ctx.agent.definition.name, "default_answer {}; the question will be declined on expiry", problem.message());
        ExpiryPolicy::Decline
    })
}

/// Commits `next` and the rows `effects` imply.
pub(crate) async fn commit(
    ex: &Executor,
    ctx: &SessionContext,
    next: &State,
    effects: &[Effect],
    answerer: Option<&Answerer>,
) -> Result<Taken> {
    let now = ex.clock.now_ms();
    let session = ctx.id;
    let agent = ctx.agent.definition.name.clone();
    let callback_url = ctx.agent.definition.callback_url.clone();
    let mut writes: Vec<Write> = Vec::new();
    for effect in effects {
        match effect {
            Effect::PersistMessages { messages } => writes.push(Write::Messages(messages.clone())),
            Effect::PersistToolResults { results } => writes.push(Write::Results(results.clone())),
            Effect::Notify {
                notice: Notice::QuestionPending { request_id, tool_use_id, request, origin, asked_at_ms, expires_at_ms },
            } => {
                let question = NewQuestion {
                    id: *request_id,
                    session_id: session,
                    tool_use_id: tool_use_id.clone(),
                    agent: agent.clone(),
                    origin: origin.clone(),
                    request: request.clone(),
                    callback_url: callback_url.clone(),
                    expires_at_ms: *expires_at_ms,
                    expiry_policy: expires_at_ms.map(|_| expiry_policy(ctx, request)),
                    at_ms: *asked_at_ms,
                    callbacks: Vec::new(),
                };
                let callbacks =
                    callbacks::for_pending(ex.public_url.get().as_deref(), callback_url.as_deref(), &question);
                writes.push(Write::Ask(Box::new(NewQuestion { callbacks, ..question })));
            }
            Effect::Notify { notice: Notice::QuestionResolved { request_id, outcome } } => {
                let callbacks = callbacks::for_resolved(callback_url.as_deref(), *request_id, session, &agent, outcome);
                writes.push(Write::Resolve(Box::new(Resolution {
                    request_id: *request_id,
                    outcome: outcome.clone(),
                    via: answerer.map(|a| a.via),
                    by: answerer.and_then(|a| a.by.clone()),
                    at_ms: now,
                    session_status: None,
                    callbacks,
                })));
            }
            Effect::Notify { notice: Notice::Resumed { request_id } } => writes.push(Write::Resumed(*request_id)),
            Effect::PersistState
            | Effect::RequestLlm { .. }
            | Effect::ExecuteTool { .. }
            | Effect::ScheduleTimer { .. }
            | Effect::Notify { .. } => {}
        }
    }
    let state = next.clone();
    let revisions = ex.tasks.revisions().clone();
    ex.db
        .write(move |tx| {
            let mut taken = Taken::default();
            for write in &writes {
                match write {
                    Write::Messages(messages) => tx.append_messages(session, messages, now)?,
                    Write::Results(results) => tx.append_tool_results(session, results, now)?,
                    Write::Ask(question) => tx.ask(question)?,
                    Write::Resolve(resolution) => match tx.resolve(resolution)? {
                        Resolved::Now(resolved) => taken.resolved = Some(resolved),
                        // The state said it was waiting; someone resolved it meanwhile.
                        Resolved::Repeat(settled) => {
                            return Err(beckon_store::Error::AlreadyResolved(Box::new(settled)));
                        }
                    },
                    Write::Resumed(request_id) => {
                        tx.append_event(
                            &EventPayload::SessionResumed(NoDetails {}),
                            Some(session),
                            Some(*request_id),
                            now,
                        )?;
                    }
                }
            }
            tx.save_state(session, &state, now)?;
            revisions.bump(session);
            Ok(taken)
        })
        .await
}

enum Write {
    Messages(Vec<beckon_core::conversation::Message>),
    Results(Vec<beckon_core::conversation::ToolResult>),
    Ask(Box<NewQuestion>),
    Resolve(Box<Resolution>),
    Resumed(beckon_core::RequestId),
}
