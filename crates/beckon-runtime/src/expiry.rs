//! What happens when a question's deadline passes.

use std::sync::Arc;

use beckon_core::conversation::{Event, ExpiryPolicy, SessionStatus};
use beckon_core::{RequestId, SessionOrigin};
use beckon_store::QuestionStatus;

use crate::executor::deliver;
use crate::external;
use crate::runtime::Runtime;

/// Expires `id` if it is still pending and due: an agent Beckon runs resumes per its policy;
/// an external agent's question is resolved as expired (with its default answer when set).
pub(crate) async fn expire(rt: &Arc<Runtime>, id: RequestId) {
    let found = rt
        .records
        .call(move |store| {
            let Some(question) = store.read().question(id)? else { return Ok(None) };
            let session = store.read().session(question.session_id)?;
            Ok(Some((question, session)))
        })
        .await;
    let (question, session) = match found {
        Ok(Some((question, Some(session)))) => (question, session),
        Ok(_) => return,
        Err(err) => {
            tracing::warn!(%id, %err, "cannot expire question");
            return;
        }
    };
    if question.status != QuestionStatus::Pending {
        return;
    }
    if question.expires_at_ms.is_some_and(|at| at > rt.clock.now_ms()) {
        // Armed early (a restart or a clock change): try again when it is due.
        if let Some(at) = question.expires_at_ms {
            rt.work.deadlines.arm(id, at);
        }
        return;
    }
    let policy = question.expiry_policy.clone().unwrap_or(ExpiryPolicy::Decline);
    tracing::info!(%id, session = %session.id, ?policy, "question expired");
    let result = if session.origin == SessionOrigin::External {
        // No agent here to go on: the session ends as the policy says, with the same outcome.
        let expired = policy.expired();
        let status = if expired.fails { SessionStatus::Failed } else { SessionStatus::Completed };
        external::resolve(rt, &question, expired.outcome, None, status).await.map(|_| ())
    } else {
        deliver(&rt.executor, session.id, Event::QuestionExpired { request_id: id, policy }, None).await.map(drop)
    };
    if let Err(err) = result {
        tracing::debug!(%id, %err, "expiry not applied (resolved meanwhile?)");
    }
}
