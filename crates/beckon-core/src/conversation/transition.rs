//! The transition function: `(state, event) -> (state, effects)`, pure.

use std::collections::HashSet;

use crate::conversation::effect::{Effect, Notice, Timer};
use crate::conversation::event::{Event, ExpiryPolicy};
use crate::conversation::message::{ASK_USER_QUESTION, Message, Origin, ToolCall, ToolResult};
use crate::conversation::state::State;
use crate::ids::RequestId;
use crate::limits::{LLM_BACKOFF_BASE_MS, LLM_BACKOFF_MAX_MS, MAX_LLM_ATTEMPTS, USER_MESSAGE_MAX_BYTES};
use crate::outcome::{Outcome, render_tool_result};
use crate::problem::Problems;
use crate::question::QuestionRequest;
use crate::text::{self, Lines};

/// Why an event was refused. The state is unchanged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TransitionError {
    /// The event makes no sense in this state.
    #[error("a session in state {state} cannot take {event}")]
    InvalidEvent {
        /// The state's name.
        state: &'static str,
        /// The event's name.
        event: &'static str,
    },
    /// The answer names a question this session is not waiting for.
    #[error("question {got} is not the one this session waits for ({expected})")]
    StaleAnswer {
        /// The question awaited.
        expected: RequestId,
        /// The question named.
        got: RequestId,
    },
    /// A tool result (or question) arrived for a call that is not running.
    #[error("a result for tool call {got} arrived while {expected} is running")]
    UnexpectedToolResult {
        /// The running call.
        expected: String,
        /// The call named.
        got: String,
    },
    /// A retry timer fired for another attempt than the one awaited.
    #[error("a retry timer for attempt {got} fired while attempt {expected} waits")]
    StaleTimer {
        /// The attempt awaited.
        expected: u32,
        /// The attempt named.
        got: u32,
    },
    /// The answer does not fit the question.
    #[error("the answer does not fit the question:\n{0}")]
    InvalidAnswer(Problems),
    /// A message or reason broke the text rules.
    #[error("{0}")]
    InvalidText(Problems),
}

/// What a transition returns.
type Transition = Result<(State, Vec<Effect>), TransitionError>;

/// Decides what happens when `event` reaches a session in `state`.
///
/// Pure: no clock, no ids made, no I/O. Every `Ok` carries exactly one
/// [`Effect::PersistState`]. An `Err` leaves the state as it was.
pub fn transition(state: &State, event: Event) -> Transition {
    match state {
        State::Idle => match event {
            Event::UserMessage { text } => start_turn(text),
            Event::UserCancel { reason } => cancel(state, reason),
            other @ (Event::LlmResponse { .. }
            | Event::LlmError { .. }
            | Event::RetryTimerFired { .. }
            | Event::ToolComplete { .. }
            | Event::AskUserQuestionPending { .. }
            | Event::UserAnswered { .. }
            | Event::UserDeclined { .. }
            | Event::QuestionExpired { .. }) => Err(invalid(state, &other)),
        },
        State::Completed | State::Failed { .. } => match event {
            Event::UserMessage { text } => start_turn(text),
            other @ (Event::UserCancel { .. }
            | Event::LlmResponse { .. }
            | Event::LlmError { .. }
            | Event::RetryTimerFired { .. }
            | Event::ToolComplete { .. }
            | Event::AskUserQuestionPending { .. }
            | Event::UserAnswered { .. }
            | Event::UserDeclined { .. }
            | Event::QuestionExpired { .. }) => Err(invalid(state, &other)),
        },
        State::LlmRequesting { attempt } => match event {
            Event::LlmResponse { text, tool_calls } => Ok(model_replied(text, tool_calls)),
            Event::LlmError { message, retryable, retry_after_ms, at_ms } => {
                Ok(llm_failed(*attempt, message, retryable, retry_after_ms, at_ms))
            }
            Event::UserCancel { reason } => cancel(state, reason),
            other @ (Event::UserMessage { .. }
            | Event::RetryTimerFired { .. }
            | Event::ToolComplete { .. }
            | Event::AskUserQuestionPending { .. }
            | Event::UserAnswered { .. }
            | Event::UserDeclined { .. }
            | Event::QuestionExpired { .. }) => Err(invalid(state, &other)),
        },
        State::LlmBackoff { attempt, .. } => match event {
            Event::RetryTimerFired { attempt: fired } if fired == *attempt => Ok((
                State::LlmRequesting { attempt: *attempt },
                vec![Effect::PersistState, Effect::RequestLlm { attempt: *attempt }],
            )),
            Event::RetryTimerFired { attempt: fired } => {
                Err(TransitionError::StaleTimer { expected: *attempt, got: fired })
            }
            Event::UserCancel { reason } => cancel(state, reason),
            other @ (Event::UserMessage { .. }
            | Event::LlmResponse { .. }
            | Event::LlmError { .. }
            | Event::ToolComplete { .. }
            | Event::AskUserQuestionPending { .. }
            | Event::UserAnswered { .. }
            | Event::UserDeclined { .. }
            | Event::QuestionExpired { .. }) => Err(invalid(state, &other)),
        },
        State::ToolExecuting { current, remaining, persisted } => match event {
            Event::ToolComplete { result } => {
                if result.tool_use_id != current.id {
                    return Err(unexpected(&current.id, &result.tool_use_id));
                }
                Ok(advance(persisted.clone(), remaining, result, Vec::new()))
            }
            Event::AskUserQuestionPending { request_id, tool_use_id, request, origin, asked_at_ms, expires_at_ms } => {
                if tool_use_id != current.id {
                    return Err(unexpected(&current.id, &tool_use_id));
                }
                if current.name != ASK_USER_QUESTION {
                    return Err(TransitionError::InvalidEvent {
                        state: state.name(),
                        event: "ask_user_question_pending for a call to another tool",
                    });
                }
                Ok(ask(request_id, tool_use_id, request, origin, asked_at_ms, expires_at_ms, remaining, persisted))
            }
            Event::UserCancel { reason } => cancel(state, reason),
            other @ (Event::UserMessage { .. }
            | Event::LlmResponse { .. }
            | Event::LlmError { .. }
            | Event::RetryTimerFired { .. }
            | Event::UserAnswered { .. }
            | Event::UserDeclined { .. }
            | Event::QuestionExpired { .. }) => Err(invalid(state, &other)),
        },
        State::AwaitingUserResponse { request_id, tool_use_id, questions, remaining, persisted } => {
            let awaited = Awaited { request_id: *request_id, tool_use_id, questions, remaining, persisted };
            match event {
                Event::UserAnswered { request_id, answers } => {
                    awaited.check_id(request_id)?;
                    answers.validate(questions).map_err(TransitionError::InvalidAnswer)?;
                    Ok(awaited.resume(Outcome::Answered { answers }))
                }
                Event::UserDeclined { request_id, reason } => {
                    awaited.check_id(request_id)?;
                    check_reason(reason.as_deref())?;
                    Ok(awaited.resume(Outcome::Declined { reason }))
                }
                Event::QuestionExpired { request_id, policy } => {
                    awaited.check_id(request_id)?;
                    if let ExpiryPolicy::UseDefault { answers } = &policy {
                        answers.validate(questions).map_err(TransitionError::InvalidAnswer)?;
                    }
                    let expired = policy.expired();
                    if expired.fails { Ok(awaited.fail_expired()) } else { Ok(awaited.resume(expired.outcome)) }
                }
                Event::UserCancel { reason } => cancel(state, reason),
                other @ (Event::UserMessage { .. }
                | Event::LlmResponse { .. }
                | Event::LlmError { .. }
                | Event::RetryTimerFired { .. }
                | Event::ToolComplete { .. }
                | Event::AskUserQuestionPending { .. }) => Err(invalid(state, &other)),
            }
        }
        State::Cancelled => Err(invalid(state, &event)),
    }
}

fn invalid(state: &State, event: &Event) -> TransitionError {
    TransitionError::InvalidEvent { state: state.name(), event: event.name() }
}

fn unexpected(expected: &str, got: &str) -> TransitionError {
    TransitionError::UnexpectedToolResult { expected: expected.to_owned(), got: got.to_owned() }
}

fn check_reason(reason: Option<&str>) -> Result<(), TransitionError> {
    crate::outcome::check_reason(reason).map_err(TransitionError::InvalidText)
}

fn start_turn(text: String) -> Transition {
    let mut problems = Problems::new();
    text::check("message", &text, Lines::Multi, USER_MESSAGE_MAX_BYTES, &mut problems);
    if !problems.is_empty() {
        return Err(TransitionError::InvalidText(problems));
    }
    Ok((
        State::LlmRequesting { attempt: 1 },
        vec![
            Effect::PersistMessages { messages: vec![Message::User { text }] },
            Effect::PersistState,
            Effect::RequestLlm { attempt: 1 },
        ],
    ))
}

fn model_replied(text: String, tool_calls: Vec<ToolCall>) -> (State, Vec<Effect>) {
    if let Err(reason) = check_tool_calls(&tool_calls) {
        let reason = format!("The model returned an unusable reply: {reason}.");
        return (
            State::Failed { reason: reason.clone() },
            vec![Effect::PersistState, notify(Notice::Failed { reason })],
        );
    }
    let mut messages = Vec::with_capacity(tool_calls.len() + 1);
    if !text.is_empty() {
        messages.push(Message::Assistant { text });
    }
    messages.extend(tool_calls.iter().cloned().map(|call| Message::ToolUse { call }));
    let mut effects = Vec::with_capacity(3);
    if !messages.is_empty() {
        effects.push(Effect::PersistMessages { messages });
    }
    let mut calls = tool_calls.into_iter();
    match calls.next() {
        None => {
            effects.extend([Effect::PersistState, notify(Notice::TurnCompleted)]);
            (State::Completed, effects)
        }
        Some(first) => {
            effects.extend([Effect::PersistState, Effect::ExecuteTool { call: first.clone() }]);
            (State::ToolExecuting { current: first, remaining: calls.collect(), persisted: Vec::new() }, effects)
        }
    }
}

fn check_tool_calls(calls: &[ToolCall]) -> Result<(), String> {
    let mut seen = HashSet::new();
    for call in calls {
        if call.id.trim().is_empty() {
            return Err(format!("a call to {:?} has no id", call.name));
        }
        if call.name.trim().is_empty() {
            return Err(format!("tool call {} names no tool", call.id));
        }
        if !seen.insert(call.id.as_str()) {
            return Err(format!("the tool call id {} is used twice", call.id));
        }
    }
    Ok(())
}

fn llm_failed(
    attempt: u32,
    message: String,
    retryable: bool,
    retry_after_ms: Option<u64>,
    at_ms: i64,
) -> (State, Vec<Effect>) {
    let message: String = message.chars().take(2000).collect();
    if retryable && attempt < MAX_LLM_ATTEMPTS {
        let backoff = LLM_BACKOFF_BASE_MS.saturating_mul(1u64 << (attempt - 1).min(16));
        let delay = retry_after_ms.unwrap_or(backoff).min(LLM_BACKOFF_MAX_MS);
        let next = attempt + 1;
        let retry_at_ms = at_ms.saturating_add(i64::try_from(delay).unwrap_or(i64::MAX));
        return (
            State::LlmBackoff { attempt: next, retry_at_ms, last_error: message },
            vec![
                Effect::PersistState,
                Effect::ScheduleTimer { timer: Timer::LlmRetry { attempt: next }, at_ms: retry_at_ms },
            ],
        );
    }
    let reason =
        if retryable { format!("The model could not be reached after {attempt} attempts: {message}") } else { message };
    (State::Failed { reason: reason.clone() }, vec![Effect::PersistState, notify(Notice::Failed { reason })])
}

/// Records `result` for the running call, then runs the next call of the turn or, when the
/// turn's calls are all done, asks the model again.
fn advance(
    mut persisted: Vec<String>,
    remaining: &[ToolCall],
    result: ToolResult,
    mut effects: Vec<Effect>,
) -> (State, Vec<Effect>) {
    persisted.push(result.tool_use_id.clone());
    effects.push(Effect::PersistToolResults { results: vec![result] });
    match remaining.split_first() {
        Some((next, rest)) => {
            effects.extend([Effect::PersistState, Effect::ExecuteTool { call: next.clone() }]);
            (State::ToolExecuting { current: next.clone(), remaining: rest.to_vec(), persisted }, effects)
        }
        None => {
            effects.extend([Effect::PersistState, Effect::RequestLlm { attempt: 1 }]);
            (State::LlmRequesting { attempt: 1 }, effects)
        }
    }
}

#[allow(clippy::too_many_arguments)] // the event's fields, moved into the state
fn ask(
    request_id: RequestId,
    tool_use_id: String,
    request: QuestionRequest,
    origin: Origin,
    asked_at_ms: i64,
    expires_at_ms: Option<i64>,
    remaining: &[ToolCall],
    persisted: &[String],
) -> (State, Vec<Effect>) {
    let mut effects = vec![
        Effect::PersistState,
        notify(Notice::QuestionPending {
            request_id,
            tool_use_id: tool_use_id.clone(),
            request: request.clone(),
            origin,
            asked_at_ms,
            expires_at_ms,
        }),
    ];
    if let Some(at_ms) = expires_at_ms {
        effects.push(Effect::ScheduleTimer { timer: Timer::QuestionExpiry { request_id }, at_ms });
    }
    let state = State::AwaitingUserResponse {
        request_id,
        tool_use_id,
        questions: request,
        remaining: remaining.to_vec(),
        persisted: persisted.to_vec(),
    };
    (state, effects)
}

/// The fields of an awaiting state, borrowed.
struct Awaited<'a> {
    request_id: RequestId,
    tool_use_id: &'a str,
    questions: &'a QuestionRequest,
    remaining: &'a [ToolCall],
    persisted: &'a [String],
}

impl Awaited<'_> {
    fn check_id(&self, got: RequestId) -> Result<(), TransitionError> {
        if got == self.request_id {
            Ok(())
        } else {
            Err(TransitionError::StaleAnswer { expected: self.request_id, got })
        }
    }

    /// The outcome becomes the result of the exact `ask_user_question` call; the turn goes on.
    fn resume(&self, outcome: Outcome) -> (State, Vec<Effect>) {
        let rendered = render_tool_result(self.questions, &outcome);
        let result = ToolResult {
            tool_use_id: self.tool_use_id.to_owned(),
            content: rendered.content,
            is_error: rendered.is_error,
        };
        let effects = vec![notify(Notice::QuestionResolved { request_id: self.request_id, outcome })];
        let (state, mut effects) = advance(self.persisted.to_vec(), self.remaining, result, effects);
        let at = effects.len() - 1;
        effects.insert(at, notify(Notice::Resumed { request_id: self.request_id }));
        (state, effects)
    }

    /// The question expired and the agent's policy is to fail: every open call of the turn
    /// still gets its one result, then the session fails.
    fn fail_expired(&self) -> (State, Vec<Effect>) {
        let outcome = Outcome::Expired { default_answer: None };
        let rendered = render_tool_result(self.questions, &outcome);
        let reason = format!(
            "Nobody answered \"{}\" before its deadline, and this agent is set to fail when that happens.",
            self.questions.summary()
        );
        let mut results = vec![ToolResult::error(self.tool_use_id, rendered.content)];
        results.extend(not_run(self.remaining, "the session failed because a question expired"));
        (
            State::Failed { reason: reason.clone() },
            vec![
                notify(Notice::QuestionResolved { request_id: self.request_id, outcome }),
                Effect::PersistToolResults { results },
                Effect::PersistState,
                notify(Notice::Failed { reason }),
            ],
        )
    }
}

/// Error results for calls that will never run.
fn not_run(calls: &[ToolCall], why: &str) -> Vec<ToolResult> {
    calls.iter().map(|call| ToolResult::error(&call.id, format!("Not run: {why}."))).collect()
}

fn cancel(state: &State, reason: Option<String>) -> Transition {
    check_reason(reason.as_deref())?;
    let mut effects = Vec::new();
    match state {
        State::ToolExecuting { current, remaining, .. } => {
            let mut results = not_run(std::slice::from_ref(current), "the session was cancelled");
            results.extend(not_run(remaining, "the session was cancelled"));
            effects.push(Effect::PersistToolResults { results });
        }
        State::AwaitingUserResponse { request_id, tool_use_id, questions, remaining, .. } => {
            let outcome = Outcome::Cancelled { reason };
            let rendered = render_tool_result(questions, &outcome);
            let mut results = vec![ToolResult::error(tool_use_id, rendered.content)];
            results.extend(not_run(remaining, "the session was cancelled"));
            effects.push(notify(Notice::QuestionResolved { request_id: *request_id, outcome }));
            effects.push(Effect::PersistToolResults { results });
        }
        State::Idle | State::LlmRequesting { .. } | State::LlmBackoff { .. } => {}
        State::Completed | State::Failed { .. } | State::Cancelled => {
            return Err(TransitionError::InvalidEvent { state: state.name(), event: "user_cancel" });
        }
    }
    effects.extend([Effect::PersistState, notify(Notice::Cancelled)]);
    Ok((State::Cancelled, effects))
}

fn notify(notice: Notice) -> Effect {
    Effect::Notify { notice }
}
