//! Every transition, valid and invalid, one by one.

use serde_json::json;
use uuid::Uuid;

use super::*;
use crate::answer::{Answer, Answers};
use crate::ids::RequestId;
use crate::limits::{LLM_BACKOFF_BASE_MS, MAX_LLM_ATTEMPTS};
use crate::outcome::Outcome;
use crate::question::QuestionRequest;

fn rid(n: u128) -> RequestId {
    RequestId::from_uuid(Uuid::from_u128(n))
}

fn call(id: &str, name: &str) -> ToolCall {
    ToolCall { id: id.into(), name: name.into(), input: json!({}) }
}

fn ask_call(id: &str) -> ToolCall {
    call(id, ASK_USER_QUESTION)
}

fn request() -> QuestionRequest {
    QuestionRequest::parse(&json!({"questions": [
        {"question": "Which style?", "header": "Style", "options": [{"label": "Haiku"}, {"label": "Sonnet"}]}
    ]}))
    .unwrap()
}

fn haiku() -> Answers {
    Answers::new(vec![Answer::select(["Haiku"])], &request()).unwrap()
}

fn awaiting(remaining: Vec<ToolCall>) -> State {
    State::AwaitingUserResponse {
        request_id: rid(1),
        tool_use_id: "t1".into(),
        questions: request(),
        remaining,
        persisted: vec!["t0".into()],
    }
}

fn executing() -> State {
    State::ToolExecuting { current: call("t0", "read_file"), remaining: vec![ask_call("t1")], persisted: vec![] }
}

fn pending_event(tool_use_id: &str) -> Event {
    Event::AskUserQuestionPending {
        request_id: rid(1),
        tool_use_id: tool_use_id.into(),
        request: request(),
        origin: Origin::agent("poet"),
        asked_at_ms: 1_000,
        expires_at_ms: Some(61_000),
    }
}

fn ok(state: &State, event: Event) -> (State, Vec<Effect>) {
    let (next, effects) = transition(state, event).unwrap();
    assert_eq!(effects.iter().filter(|e| matches!(e, Effect::PersistState)).count(), 1, "{effects:?}");
    next.check_invariants().unwrap();
    (next, effects)
}

fn tool_results(effects: &[Effect]) -> Vec<ToolResult> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::PersistToolResults { results } => Some(results.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn idle_plus_user_message_asks_the_model() {
    let (next, effects) = ok(&State::Idle, Event::UserMessage { text: "Write a poem".into() });
    assert_eq!(next, State::LlmRequesting { attempt: 1 });
    assert_eq!(
        effects,
        vec![
            Effect::PersistMessages { messages: vec![Message::User { text: "Write a poem".into() }] },
            Effect::PersistState,
            Effect::RequestLlm { attempt: 1 },
        ]
    );
}

#[test]
fn completed_and_failed_sessions_take_a_follow_up_message() {
    for state in [State::Completed, State::Failed { reason: "x".into() }] {
        let (next, _) = ok(&state, Event::UserMessage { text: "again".into() });
        assert_eq!(next, State::LlmRequesting { attempt: 1 });
    }
}

#[test]
fn blank_or_oversize_messages_are_refused() {
    assert!(matches!(
        transition(&State::Idle, Event::UserMessage { text: " ".into() }),
        Err(TransitionError::InvalidText(_))
    ));
    let huge = "x".repeat(crate::limits::USER_MESSAGE_MAX_BYTES + 1);
    assert!(matches!(
        transition(&State::Idle, Event::UserMessage { text: huge }),
        Err(TransitionError::InvalidText(_))
    ));
}

#[test]
fn a_reply_without_tool_calls_completes_the_turn() {
    let (next, effects) =
        ok(&State::LlmRequesting { attempt: 2 }, Event::LlmResponse { text: "Done.".into(), tool_calls: vec![] });
    assert_eq!(next, State::Completed);
    assert_eq!(
        effects,
        vec![
            Effect::PersistMessages { messages: vec![Message::Assistant { text: "Done.".into() }] },
            Effect::PersistState,
            Effect::Notify { notice: Notice::TurnCompleted },
        ]
    );
}

#[test]
fn a_reply_with_tool_calls_runs_the_first_and_records_them_all() {
    let calls = vec![call("t0", "read_file"), ask_call("t1"), call("t2", "write_file")];
    let (next, effects) =
        ok(&State::LlmRequesting { attempt: 1 }, Event::LlmResponse { text: String::new(), tool_calls: calls.clone() });
    assert_eq!(
        next,
        State::ToolExecuting { current: calls[0].clone(), remaining: calls[1..].to_vec(), persisted: vec![] }
    );
    assert_eq!(
        effects,
        vec![
            Effect::PersistMessages { messages: calls.iter().cloned().map(|call| Message::ToolUse { call }).collect() },
            Effect::PersistState,
            Effect::ExecuteTool { call: calls[0].clone() },
        ]
    );
}

#[test]
fn a_reply_with_duplicate_tool_ids_fails_the_session_without_recording_them() {
    let (next, effects) = ok(
        &State::LlmRequesting { attempt: 1 },
        Event::LlmResponse { text: "x".into(), tool_calls: vec![call("t0", "a"), call("t0", "b")] },
    );
    assert!(matches!(&next, State::Failed { reason } if reason.contains("t0 is used twice")), "{next:?}");
    assert!(!effects.iter().any(|e| matches!(e, Effect::PersistMessages { .. })));
}

#[test]
fn retryable_llm_errors_back_off_then_retry() {
    let (next, effects) = ok(
        &State::LlmRequesting { attempt: 1 },
        Event::LlmError { message: "529 overloaded".into(), retryable: true, retry_after_ms: None, at_ms: 10_000 },
    );
    let at_ms = 10_000 + LLM_BACKOFF_BASE_MS as i64;
    assert_eq!(next, State::LlmBackoff { attempt: 2, retry_at_ms: at_ms, last_error: "529 overloaded".into() });
    assert_eq!(
        effects,
        vec![Effect::PersistState, Effect::ScheduleTimer { timer: Timer::LlmRetry { attempt: 2 }, at_ms }]
    );
    let (next, effects) = ok(&next, Event::RetryTimerFired { attempt: 2 });
    assert_eq!(next, State::LlmRequesting { attempt: 2 });
    assert_eq!(effects, vec![Effect::PersistState, Effect::RequestLlm { attempt: 2 }]);
}

#[test]
fn retry_after_is_honoured_and_backoff_doubles() {
    let (next, _) = ok(
        &State::LlmRequesting { attempt: 1 },
        Event::LlmError { message: "429".into(), retryable: true, retry_after_ms: Some(7_000), at_ms: 0 },
    );
    assert!(matches!(next, State::LlmBackoff { retry_at_ms: 7_000, .. }));
    let (next, _) = ok(
        &State::LlmRequesting { attempt: 3 },
        Event::LlmError { message: "500".into(), retryable: true, retry_after_ms: None, at_ms: 0 },
    );
    assert!(
        matches!(next, State::LlmBackoff { attempt: 4, retry_at_ms, .. } if retry_at_ms == 4 * LLM_BACKOFF_BASE_MS as i64)
    );
}

#[test]
fn the_last_attempt_and_permanent_errors_fail_the_session() {
    let (next, effects) = ok(
        &State::LlmRequesting { attempt: MAX_LLM_ATTEMPTS },
        Event::LlmError { message: "500".into(), retryable: true, retry_after_ms: None, at_ms: 0 },
    );
    assert!(matches!(&next, State::Failed { reason } if reason.contains("after 5 attempts")), "{next:?}");
    assert!(matches!(effects.last(), Some(Effect::Notify { notice: Notice::Failed { .. } })));
    let (next, _) = ok(
        &State::LlmRequesting { attempt: 1 },
        Event::LlmError { message: "401: invalid x-api-key".into(), retryable: false, retry_after_ms: None, at_ms: 0 },
    );
    assert_eq!(next, State::Failed { reason: "401: invalid x-api-key".into() });
}

#[test]
fn a_stale_retry_timer_is_refused() {
    let state = State::LlmBackoff { attempt: 3, retry_at_ms: 0, last_error: String::new() };
    assert_eq!(
        transition(&state, Event::RetryTimerFired { attempt: 2 }),
        Err(TransitionError::StaleTimer { expected: 3, got: 2 })
    );
}

#[test]
fn a_tool_result_runs_the_next_call() {
    let (next, effects) = ok(&executing(), Event::ToolComplete { result: ToolResult::ok("t0", "file text") });
    assert_eq!(next, State::ToolExecuting { current: ask_call("t1"), remaining: vec![], persisted: vec!["t0".into()] });
    assert_eq!(
        effects,
        vec![
            Effect::PersistToolResults { results: vec![ToolResult::ok("t0", "file text")] },
            Effect::PersistState,
            Effect::ExecuteTool { call: ask_call("t1") },
        ]
    );
}

#[test]
fn the_last_tool_result_asks_the_model_again() {
    let state = State::ToolExecuting { current: call("t0", "read_file"), remaining: vec![], persisted: vec![] };
    let (next, effects) = ok(&state, Event::ToolComplete { result: ToolResult::error("t0", "no such file") });
    assert_eq!(next, State::LlmRequesting { attempt: 1 });
    assert_eq!(effects.last(), Some(&Effect::RequestLlm { attempt: 1 }));
}

#[test]
fn a_result_for_another_call_is_refused() {
    assert_eq!(
        transition(&executing(), Event::ToolComplete { result: ToolResult::ok("t9", "x") }),
        Err(TransitionError::UnexpectedToolResult { expected: "t0".into(), got: "t9".into() })
    );
}

#[test]
fn asking_stops_the_session_and_arms_the_deadline() {
    let state = State::ToolExecuting {
        current: ask_call("t1"),
        remaining: vec![call("t2", "write_file")],
        persisted: vec!["t0".into()],
    };
    let (next, effects) = ok(&state, pending_event("t1"));
    assert_eq!(next, awaiting(vec![call("t2", "write_file")]));
    assert_eq!(next.status(), SessionStatus::WaitingForInput);
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::RequestLlm { .. } | Effect::ExecuteTool { .. })),
        "a waiting session runs nothing"
    );
    assert!(
        matches!(&effects[1], Effect::Notify { notice: Notice::QuestionPending { request_id, origin, .. } } if *request_id == rid(1) && origin.asker() == "poet")
    );
    assert_eq!(
        effects[2],
        Effect::ScheduleTimer { timer: Timer::QuestionExpiry { request_id: rid(1) }, at_ms: 61_000 }
    );
}

#[test]
fn only_an_ask_user_question_call_can_become_a_question() {
    assert!(matches!(transition(&executing(), pending_event("t0")), Err(TransitionError::InvalidEvent { .. })));
    let state = State::ToolExecuting { current: ask_call("t1"), remaining: vec![], persisted: vec![] };
    assert!(matches!(transition(&state, pending_event("t2")), Err(TransitionError::UnexpectedToolResult { .. })));
}

#[test]
fn an_answer_becomes_the_result_of_that_exact_call_and_the_turn_goes_on() {
    let (next, effects) =
        ok(&awaiting(vec![call("t2", "write_file")]), Event::UserAnswered { request_id: rid(1), answers: haiku() });
    assert_eq!(
        next,
        State::ToolExecuting {
            current: call("t2", "write_file"),
            remaining: vec![],
            persisted: vec!["t0".into(), "t1".into()]
        }
    );
    let results = tool_results(&effects);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].tool_use_id, "t1");
    assert!(!results[0].is_error);
    let content: serde_json::Value = serde_json::from_str(&results[0].content).unwrap();
    assert_eq!(content["outcome"], json!("answered"));
    assert_eq!(content["answers"], json!({"Which style?": "Haiku"}));
    assert_eq!(content["questions"][0]["question"], json!("Which style?"));
    assert!(matches!(
        &effects[0],
        Effect::Notify { notice: Notice::QuestionResolved { outcome: Outcome::Answered { .. }, .. } }
    ));
    assert!(effects.contains(&Effect::Notify { notice: Notice::Resumed { request_id: rid(1) } }));
    assert_eq!(effects.last(), Some(&Effect::ExecuteTool { call: call("t2", "write_file") }));
}

#[test]
fn an_answer_with_nothing_left_asks_the_model() {
    let (next, effects) = ok(&awaiting(vec![]), Event::UserAnswered { request_id: rid(1), answers: haiku() });
    assert_eq!(next, State::LlmRequesting { attempt: 1 });
    assert_eq!(effects.last(), Some(&Effect::RequestLlm { attempt: 1 }));
}

#[test]
fn a_stale_answer_is_refused() {
    assert_eq!(
        transition(&awaiting(vec![]), Event::UserAnswered { request_id: rid(2), answers: haiku() }),
        Err(TransitionError::StaleAnswer { expected: rid(1), got: rid(2) })
    );
    assert!(matches!(
        transition(&awaiting(vec![]), Event::UserDeclined { request_id: rid(2), reason: None }),
        Err(TransitionError::StaleAnswer { .. })
    ));
    assert!(matches!(
        transition(&awaiting(vec![]), Event::QuestionExpired { request_id: rid(2), policy: ExpiryPolicy::Decline }),
        Err(TransitionError::StaleAnswer { .. })
    ));
}

#[test]
fn an_invalid_answer_is_refused_with_paths() {
    let wrong = Answers::unchecked(vec![Answer::select(["Limerick"])]);
    let err = transition(&awaiting(vec![]), Event::UserAnswered { request_id: rid(1), answers: wrong }).unwrap_err();
    let TransitionError::InvalidAnswer(problems) = err else { panic!("{err:?}") };
    assert_eq!(problems.first_path(), Some("answers[0].selected[0]"));
}

#[test]
fn a_decline_resumes_with_a_declined_result() {
    let (next, effects) =
        ok(&awaiting(vec![]), Event::UserDeclined { request_id: rid(1), reason: Some("ask later".into()) });
    assert_eq!(next, State::LlmRequesting { attempt: 1 });
    let content: serde_json::Value = serde_json::from_str(&tool_results(&effects)[0].content).unwrap();
    assert_eq!(content["outcome"], "declined");
}

#[test]
fn expiry_follows_each_policy() {
    let (next, effects) =
        ok(&awaiting(vec![]), Event::QuestionExpired { request_id: rid(1), policy: ExpiryPolicy::Decline });
    assert_eq!(next, State::LlmRequesting { attempt: 1 });
    assert!(tool_results(&effects)[0].content.contains("\"expired\""));

    let (next, effects) = ok(
        &awaiting(vec![]),
        Event::QuestionExpired { request_id: rid(1), policy: ExpiryPolicy::UseDefault { answers: haiku() } },
    );
    assert_eq!(next, State::LlmRequesting { attempt: 1 });
    assert!(tool_results(&effects)[0].content.contains("Haiku"));

    let (next, effects) = ok(
        &awaiting(vec![call("t2", "write_file")]),
        Event::QuestionExpired { request_id: rid(1), policy: ExpiryPolicy::Fail },
    );
    assert!(matches!(&next, State::Failed { reason } if reason.contains("Style")), "{next:?}");
    let results = tool_results(&effects);
    assert_eq!(results.iter().map(|r| r.tool_use_id.as_str()).collect::<Vec<_>>(), ["t1", "t2"]);
    assert!(results.iter().all(|r| r.is_error));
    assert!(!effects.iter().any(|e| matches!(e, Effect::RequestLlm { .. })));
}

#[test]
fn an_invalid_default_answer_is_refused() {
    let wrong = Answers::unchecked(vec![Answer::select(["Ode"])]);
    assert!(matches!(
        transition(
            &awaiting(vec![]),
            Event::QuestionExpired { request_id: rid(1), policy: ExpiryPolicy::UseDefault { answers: wrong } }
        ),
        Err(TransitionError::InvalidAnswer(_))
    ));
}

#[test]
fn cancel_while_waiting_resolves_the_question_and_closes_every_call() {
    let (next, effects) = ok(&awaiting(vec![call("t2", "write_file")]), Event::UserCancel { reason: None });
    assert_eq!(next, State::Cancelled);
    let results = tool_results(&effects);
    assert_eq!(results.iter().map(|r| r.tool_use_id.as_str()).collect::<Vec<_>>(), ["t1", "t2"]);
    assert!(results.iter().all(|r| r.is_error));
    assert!(matches!(
        &effects[0],
        Effect::Notify { notice: Notice::QuestionResolved { outcome: Outcome::Cancelled { .. }, .. } }
    ));
    assert_eq!(effects.last(), Some(&Effect::Notify { notice: Notice::Cancelled }));
}

#[test]
fn cancel_while_running_tools_closes_the_running_and_remaining_calls() {
    let (next, effects) = ok(&executing(), Event::UserCancel { reason: Some("wrong task".into()) });
    assert_eq!(next, State::Cancelled);
    assert_eq!(tool_results(&effects).iter().map(|r| r.tool_use_id.as_str()).collect::<Vec<_>>(), ["t0", "t1"]);
}

#[test]
fn cancel_while_idle_or_talking_to_the_model() {
    for state in [
        State::Idle,
        State::LlmRequesting { attempt: 1 },
        State::LlmBackoff { attempt: 2, retry_at_ms: 5, last_error: String::new() },
    ] {
        let (next, effects) = ok(&state, Event::UserCancel { reason: None });
        assert_eq!(next, State::Cancelled);
        assert_eq!(effects, vec![Effect::PersistState, Effect::Notify { notice: Notice::Cancelled }]);
    }
}

/// One sample of each event kind, with ids that match the sample states where ids matter.
fn every_event() -> Vec<Event> {
    vec![
        Event::UserMessage { text: "hi".into() },
        Event::LlmResponse { text: "x".into(), tool_calls: vec![] },
        Event::LlmError { message: "x".into(), retryable: true, retry_after_ms: None, at_ms: 0 },
        Event::RetryTimerFired { attempt: 2 },
        Event::ToolComplete { result: ToolResult::ok("t0", "x") },
        pending_event("t0"),
        Event::UserAnswered { request_id: rid(1), answers: haiku() },
        Event::UserDeclined { request_id: rid(1), reason: None },
        Event::QuestionExpired { request_id: rid(1), policy: ExpiryPolicy::Decline },
        Event::UserCancel { reason: None },
    ]
}

/// The transition table as implemented: which event each state takes.
#[test]
fn every_state_refuses_every_event_outside_the_table() {
    let table: Vec<(State, &[&str])> = vec![
        (State::Idle, &["user_message", "user_cancel"]),
        (State::LlmRequesting { attempt: 1 }, &["llm_response", "llm_error", "user_cancel"]),
        (
            State::LlmBackoff { attempt: 2, retry_at_ms: 0, last_error: String::new() },
            &["retry_timer_fired", "user_cancel"],
        ),
        (
            State::ToolExecuting { current: ask_call("t0"), remaining: vec![], persisted: vec![] },
            &["tool_complete", "ask_user_question_pending", "user_cancel"],
        ),
        (awaiting(vec![]), &["user_answered", "user_declined", "question_expired", "user_cancel"]),
        (State::Completed, &["user_message"]),
        (State::Failed { reason: "x".into() }, &["user_message"]),
        (State::Cancelled, &[]),
    ];
    for (state, accepted) in table {
        for event in every_event() {
            let name = event.name();
            let result = transition(&state, event);
            if accepted.contains(&name) {
                assert!(result.is_ok(), "{} should take {name}: {result:?}", state.name());
            } else {
                assert!(
                    matches!(result, Err(TransitionError::InvalidEvent { .. })),
                    "{} should refuse {name}: {result:?}",
                    state.name()
                );
            }
        }
    }
}

#[test]
fn states_round_trip_through_json() {
    for state in [State::Idle, executing(), awaiting(vec![call("t2", "w")]), State::Failed { reason: "r".into() }] {
        let json = serde_json::to_string(&state).unwrap();
        assert_eq!(serde_json::from_str::<State>(&json).unwrap(), state);
    }
}
