//! Waiting for the person inside one tool call, with progress notifications, and the result the
//! client gets: the in-app rendering once resolved, or a "pending" result naming the request id
//! before the client's timeout.

use std::time::Duration;

use beckon_api::QuestionStatus;
use beckon_core::{Outcome, PermissionDecision, QuestionRequest, render_tool_result};
use rmcp::model::{CallToolResult, ContentBlock, ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use serde_json::{Value, json};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::backend::{Backend, BackendError, QuestionState};

/// How often a waiting call tells a client that asked for progress that it still waits.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// Where progress goes: the client's peer and the token its request carried.
#[derive(Debug, Clone)]
pub struct Progress {
    /// The client.
    pub peer: Peer<RoleServer>,
    /// The request's progress token.
    pub token: ProgressToken,
}

impl Progress {
    async fn tell(&self, waited: Duration) {
        let seconds = waited.as_secs();
        let param = ProgressNotificationParam::new(self.token.clone(), seconds as f64)
            .with_message(format!("Waiting for an answer ({seconds} s)…"));
        // A client that went away cannot be told; the wait ends on its own.
        if let Err(err) = self.peer.notify_progress(param).await {
            tracing::debug!(%err, "progress notification not sent");
        }
    }
}

/// Waits up to `wait` for the question to be resolved, telling `progress` every
/// [`PROGRESS_EVERY`]; stops early when the client cancels the call. The backend waits the whole
/// time in one call (a remote one re-attaching through lost connections within it), while
/// progress is told beside it.
pub async fn wait_for_person<B: Backend>(
    backend: &B,
    state: QuestionState,
    wait: Duration,
    progress: Option<&Progress>,
    cancelled: &CancellationToken,
) -> Result<QuestionState, BackendError> {
    if state.outcome.is_some() || wait.is_zero() {
        return Ok(state);
    }
    let started = Instant::now();
    let waited = backend.wait(state.id, wait);
    tokio::pin!(waited);
    let mut ticks = tokio::time::interval_at(started + PROGRESS_EVERY, PROGRESS_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            waited = &mut waited => return waited,
            () = cancelled.cancelled() => return Ok(state),
            _ = ticks.tick() => {
                if let Some(progress) = progress {
                    progress.tell(started.elapsed()).await;
                }
            }
        }
    }
}

/// The tool result for a question as it stands.
pub fn tool_result(state: &QuestionState) -> CallToolResult {
    match &state.outcome {
        Some(outcome) => resolved(&state.request, outcome),
        None => pending(state),
    }
}

/// The permission prompt tool's result: the person's decision, or a refusal saying why there
/// is none (declined, expired, withdrawn, or not answered in time).
pub fn decision_result(state: &QuestionState) -> CallToolResult {
    let decision = match (&state.outcome, state.request.approval()) {
        (Some(Outcome::Answered { answers }), Some(approval)) => match answers.items().first() {
            Some(answer) => approval.decision(answer),
            None => PermissionDecision::Deny { message: "The person gave no decision.".into() },
        },
        (Some(Outcome::Declined { .. }), _) => {
            PermissionDecision::Deny { message: "The person chose not to decide on this tool call in Beckon.".into() }
        }
        (Some(Outcome::Expired { .. }), _) => PermissionDecision::Deny { message: "Nobody decided on this tool call in time.".into() },
        (Some(Outcome::Cancelled { reason }), _) => PermissionDecision::Deny {
            message: format!("The request was withdrawn ({}).", reason.as_deref().unwrap_or("no reason given")),
        },
        (Some(Outcome::Answered { .. }), None) | (None, _) => PermissionDecision::Deny {
            message: "The person did not answer in Beckon in time; the call was not run. Ask again later if it is still needed."
                .into(),
        },
    };
    // One text block and nothing else: Claude Code refuses a permission prompt result with
    // structured content beside it.
    CallToolResult::success(vec![ContentBlock::text(decision.to_value().to_string())])
}

/// The same result Beckon's own agents get: `{"outcome": "answered", "answers": …}` and so on.
fn resolved(request: &QuestionRequest, outcome: &Outcome) -> CallToolResult {
    let rendered = render_tool_result(request, outcome);
    let mut result = if rendered.is_error {
        CallToolResult::error(vec![ContentBlock::text(rendered.content.clone())])
    } else {
        CallToolResult::success(vec![ContentBlock::text(rendered.content.clone())])
    };
    result.structured_content = serde_json::from_str::<Value>(&rendered.content).ok();
    result
}

/// Not answered yet: not an error, and it says how to keep waiting.
fn pending(state: &QuestionState) -> CallToolResult {
    let id = state.id.to_string();
    let value = json!({
        "outcome": QuestionStatus::Pending,
        "request_id": id,
        "message": format!(
            "The person has not answered yet; the question is still waiting in their Beckon inbox. Do not \
             proceed without their answer and do not ask the question again: call get_answer with request_id \
             \"{id}\" now to keep waiting for it."
        ),
    });
    let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
    result.structured_content = Some(value);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use beckon_core::{Answer, Answers, RequestId};

    fn state(outcome: Option<Outcome>) -> QuestionState {
        let request = QuestionRequest::parse(
            &json!({"questions": [{"question": "Go?", "options": [{"label": "Yes"}, {"label": "No"}]}]}),
        )
        .unwrap();
        let id = RequestId::parse("0190f1d2-0000-7000-8000-00000000beef").unwrap();
        QuestionState { id, request, outcome }
    }

    fn text(result: &CallToolResult) -> Value {
        serde_json::from_str(&result.content[0].as_text().unwrap().text).unwrap()
    }

    #[test]
    fn resolved_questions_render_as_in_the_app() {
        let base = state(None);
        let answers = Answers::new(vec![Answer::select(["Yes"])], &base.request).unwrap();
        let answered = tool_result(&state(Some(Outcome::Answered { answers })));
        assert_eq!(answered.is_error, Some(false));
        assert_eq!(text(&answered)["answers"], json!({"Go?": "Yes"}));
        assert_eq!(text(&answered)["questions"], base.request.to_value()["questions"]);
        assert_eq!(answered.structured_content, Some(text(&answered)));
        let cancelled = tool_result(&state(Some(Outcome::Cancelled { reason: None })));
        assert_eq!(cancelled.is_error, Some(true));
        assert_eq!(tool_result(&state(Some(Outcome::Declined { reason: None }))).is_error, Some(false));
    }

    #[test]
    fn a_pending_question_says_how_to_keep_waiting() {
        let result = tool_result(&state(None));
        assert_eq!(result.is_error, Some(false));
        let value = text(&result);
        assert_eq!(value["outcome"], "pending");
        assert_eq!(value["request_id"], "0190f1d2-0000-7000-8000-00000000beef");
        let message = value["message"].as_str().unwrap();
        assert!(message.contains("call get_answer") && message.contains("Do not proceed"), "{value}");
    }

    #[test]
    fn a_permission_prompt_gets_the_decision_or_a_denial_saying_why() {
        let approval =
            beckon_core::Approval::parse(&json!({"tool_name": "Bash", "input": {"command": "ls"}}), "").unwrap();
        let request = QuestionRequest::for_approval(approval);
        let id = RequestId::parse("0190f1d2-0000-7000-8000-00000000beef").unwrap();
        let with = |outcome| QuestionState { id, request: request.clone(), outcome };
        let answers = Answers::new(vec![Answer::select(["Allow"])], &request).unwrap();
        let allowed = decision_result(&with(Some(Outcome::Answered { answers })));
        assert_eq!(text(&allowed), json!({"behavior": "allow", "updatedInput": {"command": "ls"}}));
        let answers = Answers::new(vec![Answer::select(["Deny"]).with_comment("not now")], &request).unwrap();
        assert_eq!(
            text(&decision_result(&with(Some(Outcome::Answered { answers })))),
            json!({"behavior": "deny", "message": "not now"})
        );
        for outcome in [None, Some(Outcome::Declined { reason: None }), Some(Outcome::Cancelled { reason: None })] {
            assert_eq!(text(&decision_result(&with(outcome)))["behavior"], "deny");
        }
    }
}
