//! The HTTP API's request bodies: the same bytes go to every body reader of
//! `beckon_gateway::bodies` (`ask`, `answers`, `session_answer`, `reason`, `trigger_payload`).
//!
//! Invariants: no body panics a reader; an accepted question body carries a valid request; a
//! refused body is a 400 (not readable), 404 (a `question_id` that is no id) or 422 (breaks
//! the rules) with a message, and a 422 lists its problems, each with a message.

#![no_main]

use beckon_gateway::ApiError;
use beckon_gateway::bodies;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(ask) = bodies::ask(bytes).map_err(check_refusal) {
        // The agent's name and the timeout's range are the runtime's to check; the questions
        // are read here.
        assert!(ask.request.is_some(), "a question body accepted without its questions");
    }
    let _ = bodies::answers(bytes).map_err(check_refusal);
    let _ = bodies::session_answer(bytes).map_err(check_refusal);
    let _ = bodies::reason(bytes).map_err(check_refusal);
    let _ = bodies::trigger_payload(bytes).map_err(check_refusal);
});

fn check_refusal(err: ApiError) {
    let status = err.status().as_u16();
    let body = err.body();
    assert!(matches!(status, 400 | 404 | 422), "status {status}: {}", body.message);
    assert!(!body.message.trim().is_empty(), "status {status} without a message");
    if status == 422 {
        assert!(!body.problems.is_empty(), "a 422 without problems: {}", body.message);
        assert!(body.problems.iter().all(|p| !p.message.is_empty()), "a problem without a message");
    }
}
