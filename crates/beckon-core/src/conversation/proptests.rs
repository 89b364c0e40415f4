//! Properties of the state machine, whatever happens in whatever order.

use std::collections::HashMap;

use proptest::prelude::*;
use serde_json::json;
use uuid::Uuid;

use super::*;
use crate::answer::Answers;
use crate::ids::RequestId;
use crate::question::QuestionRequest;
use crate::testing;

fn rid(n: u128) -> RequestId {
    RequestId::from_uuid(Uuid::from_u128(n))
}

fn small_request() -> QuestionRequest {
    QuestionRequest::parse(&json!({"questions": [{"question": "Go?", "options": [{"label": "Yes"}, {"label": "No"}]}]}))
        .expect("valid request")
}

/// Events drawn from small pools of ids, so that they sometimes match the state and often not.
fn any_event() -> impl Strategy<Value = Event> {
    let tool_id = prop::sample::select(vec!["t0", "t1", "t2", "t3"]).prop_map(String::from);
    let name = prop::sample::select(vec![ASK_USER_QUESTION, "read_file", "spawn_agent"]).prop_map(String::from);
    let call = (tool_id.clone(), name).prop_map(|(id, name)| ToolCall { id, name, input: json!({}) });
    let request_id = (0u128..3).prop_map(rid);
    let answers = prop::sample::select(vec!["Yes", "No", "Maybe"])
        .prop_map(|label| Answers::unchecked(vec![crate::Answer::select([label])]));
    prop_oneof![
        "[a-z ]{0,8}".prop_map(|text| Event::UserMessage { text }),
        ("[a-z]{0,5}", prop::collection::vec(call, 0..4))
            .prop_map(|(text, tool_calls)| Event::LlmResponse { text, tool_calls }),
        (any::<bool>(), proptest::option::of(0u64..120_000), 0i64..1_000_000).prop_map(
            |(retryable, retry_after_ms, at_ms)| Event::LlmError {
                message: "boom".into(),
                retryable,
                retry_after_ms,
                at_ms
            }
        ),
        (0u32..7).prop_map(|attempt| Event::RetryTimerFired { attempt }),
        (tool_id.clone(), any::<bool>()).prop_map(|(id, is_error)| Event::ToolComplete {
            result: ToolResult { tool_use_id: id, content: "r".into(), is_error }
        }),
        (request_id.clone(), tool_id, proptest::option::of(0i64..100)).prop_map(
            |(request_id, tool_use_id, expires_at_ms)| {
                Event::AskUserQuestionPending {
                    request_id,
                    tool_use_id,
                    request: small_request(),
                    origin: Origin::agent("a"),
                    asked_at_ms: 0,
                    expires_at_ms,
                }
            }
        ),
        (request_id.clone(), answers.clone())
            .prop_map(|(request_id, answers)| Event::UserAnswered { request_id, answers }),
        request_id.clone().prop_map(|request_id| Event::UserDeclined { request_id, reason: None }),
        (
            request_id,
            prop_oneof![
                Just(ExpiryPolicy::Fail),
                Just(ExpiryPolicy::Decline),
                answers.prop_map(|answers| ExpiryPolicy::UseDefault { answers })
            ]
        )
            .prop_map(|(request_id, policy)| Event::QuestionExpired { request_id, policy }),
        proptest::option::of("[a-z]{0,5}").prop_map(|reason| Event::UserCancel { reason }),
    ]
}

/// Checks one step against the machine's promises.
fn check_step(
    before: &State,
    event: &Event,
    result: &Result<(State, Vec<Effect>), TransitionError>,
) -> Result<(), TestCaseError> {
    let Ok((after, effects)) = result else { return Ok(()) };
    after.check_invariants().map_err(TestCaseError::fail)?;
    let persists = effects.iter().filter(|e| matches!(e, Effect::PersistState)).count();
    prop_assert_eq!(persists, 1, "every state change emits PersistState once: {:?}", effects);
    let requests_llm = effects.iter().any(|e| matches!(e, Effect::RequestLlm { .. }));
    if matches!(after, State::AwaitingUserResponse { .. }) {
        prop_assert!(!requests_llm, "no RequestLlm while a person is awaited: {:?}", effects);
        let runs_tool = effects.iter().any(|e| matches!(e, Effect::ExecuteTool { .. }));
        prop_assert!(!runs_tool, "no tool runs while a person is awaited");
    }
    if let State::AwaitingUserResponse { request_id, .. } = before
        && requests_llm
    {
        let resolves_it = match event {
            Event::UserAnswered { request_id: r, .. }
            | Event::UserDeclined { request_id: r, .. }
            | Event::QuestionExpired { request_id: r, .. } => r == request_id,
            _ => false,
        };
        prop_assert!(resolves_it, "only the awaited question's resolution may lead back to the model");
    }
    Ok(())
}

/// What the simulated world does next, consumed in order by [`drive`].
#[derive(Debug, Clone)]
enum Choice {
    /// The model replies with these tool calls (true = `ask_user_question`).
    Reply(Vec<bool>),
    /// The model request fails.
    LlmFails {
        retryable: bool,
    },
    /// The person answers the waiting question.
    Answer,
    Decline,
    Expire(u8),
    Cancel,
}

fn choice() -> impl Strategy<Value = Choice> {
    prop_oneof![
        4 => prop::collection::vec(any::<bool>(), 0..4).prop_map(Choice::Reply),
        1 => any::<bool>().prop_map(|retryable| Choice::LlmFails { retryable }),
        3 => Just(Choice::Answer),
        1 => Just(Choice::Decline),
        1 => (0u8..3).prop_map(Choice::Expire),
        1 => Just(Choice::Cancel),
    ]
}

/// Runs a whole session against a simulated world, following the effects the machine emits,
/// and returns the timeline's tool uses and tool results in the order they were persisted.
fn drive(
    request: &QuestionRequest,
    answers: &Answers,
    choices: &[Choice],
) -> Result<(Vec<String>, Vec<String>, State), TestCaseError> {
    let mut choices = choices.iter().cloned();
    let mut state = State::Idle;
    let mut uses = Vec::new();
    let mut results = Vec::new();
    let mut next_tool = 0u32;
    let mut next_request = 10u128;
    let mut queue = vec![Event::UserMessage { text: "start".into() }];
    let mut steps = 0;
    while let Some(event) = queue.pop() {
        steps += 1;
        prop_assert!(steps < 10_000, "the session never settles");
        let result = transition(&state, event.clone());
        check_step(&state, &event, &result)?;
        let (after, effects) = result.map_err(|e| TestCaseError::fail(format!("driver sent an invalid event: {e}")))?;
        for effect in &effects {
            match effect {
                Effect::PersistMessages { messages } => {
                    uses.extend(messages.iter().filter_map(|m| match m {
                        Message::ToolUse { call } => Some(call.id.clone()),
                        _ => None,
                    }));
                }
                Effect::PersistToolResults { results: persisted } => {
                    results.extend(persisted.iter().map(|r| r.tool_use_id.clone()));
                }
                Effect::RequestLlm { .. } => queue.push(match choices.next() {
                    Some(Choice::Reply(calls)) => Event::LlmResponse {
                        text: "ok".into(),
                        tool_calls: calls
                            .into_iter()
                            .map(|ask| {
                                next_tool += 1;
                                let name = if ask { ASK_USER_QUESTION } else { "read_file" };
                                ToolCall { id: format!("toolu_{next_tool}"), name: name.into(), input: json!({}) }
                            })
                            .collect(),
                    },
                    Some(Choice::LlmFails { retryable }) => {
                        Event::LlmError { message: "x".into(), retryable, retry_after_ms: None, at_ms: 0 }
                    }
                    _ => Event::LlmResponse { text: "done".into(), tool_calls: vec![] },
                }),
                Effect::ScheduleTimer { timer: Timer::LlmRetry { attempt }, .. } => {
                    queue.push(Event::RetryTimerFired { attempt: *attempt });
                }
                Effect::ScheduleTimer { timer: Timer::QuestionExpiry { .. }, .. } => {}
                Effect::ExecuteTool { call } if call.name == ASK_USER_QUESTION => {
                    next_request += 1;
                    queue.push(Event::AskUserQuestionPending {
                        request_id: rid(next_request),
                        tool_use_id: call.id.clone(),
                        request: request.clone(),
                        origin: Origin::agent("a").child("b"),
                        asked_at_ms: 0,
                        expires_at_ms: None,
                    });
                }
                Effect::ExecuteTool { call } => {
                    queue.push(Event::ToolComplete { result: ToolResult::ok(&call.id, "r") })
                }
                Effect::PersistState | Effect::Notify { .. } => {}
            }
        }
        if let State::AwaitingUserResponse { request_id, .. } = &after {
            let request_id = *request_id;
            queue.push(match choices.next() {
                Some(Choice::Decline) => Event::UserDeclined { request_id, reason: None },
                Some(Choice::Expire(policy)) => Event::QuestionExpired {
                    request_id,
                    policy: match policy {
                        0 => ExpiryPolicy::Fail,
                        1 => ExpiryPolicy::Decline,
                        _ => ExpiryPolicy::UseDefault { answers: answers.clone() },
                    },
                },
                Some(Choice::Cancel) => Event::UserCancel { reason: Some("stop".into()) },
                _ => Event::UserAnswered { request_id, answers: answers.clone() },
            });
        }
        state = after;
    }
    Ok((uses, results, state))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_event_sequence_leaves_a_valid_state_or_a_typed_error(events in prop::collection::vec(any_event(), 0..40)) {
        let mut state = State::Idle;
        for event in events {
            let result = transition(&state, event.clone());
            check_step(&state, &event, &result)?;
            if let Ok((next, _)) = result {
                state = next;
            }
        }
    }

    #[test]
    fn every_tool_use_gets_exactly_one_result_in_order(
        (request, answers) in testing::request_with_answers(),
        choices in prop::collection::vec(choice(), 0..30),
    ) {
        let (uses, results, end) = drive(&request, &answers, &choices)?;
        prop_assert!(matches!(end, State::Completed | State::Failed { .. } | State::Cancelled), "ended in {}", end.name());
        let mut count: HashMap<&str, usize> = HashMap::new();
        for id in &results {
            *count.entry(id.as_str()).or_default() += 1;
        }
        for id in &uses {
            prop_assert_eq!(count.get(id.as_str()).copied(), Some(1), "tool_use {} has {:?} results", id, count.get(id.as_str()));
        }
        prop_assert_eq!(&results, &uses, "results come in the order of the calls");
    }

    #[test]
    fn states_round_trip_through_json(events in prop::collection::vec(any_event(), 0..25)) {
        let mut state = State::Idle;
        for event in events {
            if let Ok((next, _)) = transition(&state, event) {
                state = next;
            }
            let json = serde_json::to_string(&state).unwrap();
            prop_assert_eq!(serde_json::from_str::<State>(&json).unwrap(), state.clone());
        }
    }
}
