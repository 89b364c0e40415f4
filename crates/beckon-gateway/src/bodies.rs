//! The JSON bodies the HTTP API accepts, read from the raw bytes and checked before anything
//! is looked up or stored. The handlers call these, so what is tested here is what a client
//! meets: a body that is not JSON is a 400 saying why, and one that breaks the rules is a 422
//! listing every problem with its field. The runtime then applies the domain's own rules.

use beckon_core::agent::OnTimeout;
use beckon_core::{Approval, Audience, Problems, QuestionRequest, RequestId};
use beckon_runtime::ExternalAsk;
use beckon_runtime::api::{ErrorKind, TokenKind};
use serde_json::{Value, json};

use crate::body::{self, Fields};
use crate::error::{ApiError, ApiResult};

/// A question id from a path or body; one that cannot be read names no question (404).
pub(crate) fn parse_id(text: &str) -> ApiResult<RequestId> {
    RequestId::parse(text).map_err(|err| ApiError::new(ErrorKind::NotFound, err.to_string()))
}

const ASK_FIELDS: [&str; 11] = [
    "agent",
    "session_key",
    "questions",
    "approval",
    "timeout",
    "on_timeout",
    "default_answer",
    "callback_url",
    "metadata",
    "person_only",
    "audience",
];
const ANSWER_FIELDS: [&str; 2] = ["answers", "answer"];
const SESSION_ANSWER_FIELDS: [&str; 3] = ["question_id", "answer", "answers"];
const REASON_FIELDS: [&str; 1] = ["reason"];
const NOTICE_FIELDS: [&str; 3] = ["agent", "message", "project"];
const TOKEN_FIELDS: [&str; 3] = ["name", "kind", "owner"];

/// `POST /v1/questions`: an external agent's question (`questions`) or a tool call waiting
/// for permission (`approval`), with its agent, grouping key, expiry policy, callback and
/// metadata.
pub fn ask(bytes: &[u8]) -> ApiResult<ExternalAsk> {
    let mut fields = Fields::new(body::object(bytes)?, &ASK_FIELDS);
    let agent = fields.required_string("agent");
    let external_key = fields.string("session_key");
    let request = match (fields.get("questions"), fields.get("approval")) {
        (None, None) => {
            fields.problems.push(
                "questions",
                "is required: 1 to 4 questions, as Claude Code's AskUserQuestion takes them (or an approval instead)",
            );
            None
        }
        (Some(_), Some(_)) => {
            fields.problems.push("approval", "goes instead of questions, not with them");
            None
        }
        (None, Some(approval)) => match Approval::parse(approval, "approval") {
            Ok(approval) => Some(QuestionRequest::for_approval(approval)),
            Err(problems) => {
                for problem in &problems {
                    fields.problems.push(problem.path.clone(), problem.message.clone());
                }
                None
            }
        },
        // The questions array, or a whole AskUserQuestion input (its metadata kept with it).
        (Some(questions), None) => match QuestionRequest::parse(&match questions {
            Value::Object(_) => questions.clone(),
            _ => json!({ "questions": questions }),
        }) {
            Ok(request) => Some(request),
            Err(problems) => {
                for problem in &problems {
                    fields.problems.push(problem.path.clone(), problem.message.clone());
                }
                None
            }
        },
    };
    let timeout = match fields.get("timeout").map(body::duration) {
        None => None,
        Some(Ok(timeout)) => Some(timeout),
        Some(Err(message)) => {
            fields.problems.push("timeout", message);
            None
        }
    };
    let on_timeout = match fields.string("on_timeout").as_deref() {
        None | Some("decline") => OnTimeout::Decline,
        Some("fail") => OnTimeout::Fail,
        Some("default") => OnTimeout::Default,
        Some(_) => {
            fields.problems.push("on_timeout", "must be \"fail\", \"decline\" or \"default\"");
            OnTimeout::Decline
        }
    };
    let default_answer = fields.string("default_answer");
    let callback_url = fields.string("callback_url");
    let audience = fields.string("audience").and_then(|text| match Audience::parse(&text) {
        Ok(audience) => Some(audience),
        Err(problem) => {
            fields.problems.push("audience", problem);
            None
        }
    });
    let metadata = fields.get("metadata").cloned();
    // A hook relaying a question the agent's own interface asked the person marks it: then
    // only the person may answer it, not the agent waiting on it.
    let person_only = match fields.get("person_only") {
        None | Some(Value::Bool(false)) => false,
        Some(Value::Bool(true)) => true,
        Some(_) => {
            fields.problems.push("person_only", "must be true or false");
            false
        }
    };
    fields.finish()?;
    Ok(ExternalAsk {
        agent: agent.unwrap_or_default(),
        external_key,
        request: request.map(|request| if person_only { request.for_the_person() } else { request }),
        timeout,
        on_timeout,
        default_answer,
        callback_url,
        metadata,
        // Only the guard knows which token a request carries; the handler sets it.
        asked_by: None,
        asking_person: None,
        audience,
    })
}

/// `POST /v1/questions/{id}/answer`: `answers` (one per question: an object or a label /
/// text) or, for a one-question request, `answer` (a label or text). Returns the answers as
/// the JSON the runtime checks against the question.
pub fn answers(bytes: &[u8]) -> ApiResult<Value> {
    given_answers(Fields::new(body::object(bytes)?, &ANSWER_FIELDS))
}

/// Which question of a session an answer is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionQuestion {
    /// The one it waits on, else the last it asked (`"latest"`, the default).
    Latest,
    /// A question named by id, which must belong to the session.
    Id(RequestId),
}

/// The body of `POST /v1/sessions/{id}/answer`.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionAnswer {
    /// The question answered.
    pub question: SessionQuestion,
    /// The answers, as the JSON the runtime checks against the question.
    pub answers: Value,
}

/// `POST /v1/sessions/{id}/answer`: `question_id` (an id, or `"latest"`, the default) and
/// `answer` or `answers` as for a question. An id that is not one is a 404, as in a path.
pub fn session_answer(bytes: &[u8]) -> ApiResult<SessionAnswer> {
    let mut fields = Fields::new(body::object(bytes)?, &SESSION_ANSWER_FIELDS);
    let question = fields.string("question_id");
    let answers = given_answers(fields)?;
    let question = match question.as_deref() {
        None | Some("latest") => SessionQuestion::Latest,
        Some(id) => SessionQuestion::Id(parse_id(id)?),
    };
    Ok(SessionAnswer { question, answers })
}

/// `POST /v1/questions/{id}/decline` and `POST /v1/sessions/{id}/cancel`: an optional
/// `reason`.
pub fn reason(bytes: &[u8]) -> ApiResult<Option<String>> {
    let mut fields = Fields::new(body::object(bytes)?, &REASON_FIELDS);
    let reason = fields.string("reason");
    fields.finish()?;
    Ok(reason)
}

/// The body of `PUT /v1/notices/{key}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeBody {
    /// Who waits.
    pub agent: String,
    /// What it waits for.
    pub message: String,
    /// The folder it works in.
    pub project: Option<String>,
}

/// `PUT /v1/notices/{key}`: `agent` and `message`, and optionally `project`.
pub fn notice(bytes: &[u8]) -> ApiResult<NoticeBody> {
    let mut fields = Fields::new(body::object(bytes)?, &NOTICE_FIELDS);
    let agent = fields.required_string("agent");
    let message = fields.required_string("message");
    let project = fields.string("project");
    fields.finish()?;
    Ok(NoticeBody { agent: agent.unwrap_or_default(), message: message.unwrap_or_default(), project })
}

/// `POST /v1/tokens`: `name`, and `kind` (`"ask_only"`, the only kind there is).
pub fn token(bytes: &[u8]) -> ApiResult<(String, TokenKind, Option<Audience>)> {
    let mut fields = Fields::new(body::object(bytes)?, &TOKEN_FIELDS);
    let name = fields.required_string("name");
    let owner = match fields.string("owner") {
        Some(text) => match Audience::parse(&text) {
            Ok(owner) => Some(owner),
            Err(problem) => {
                fields.problems.push("owner", problem);
                None
            }
        },
        None => None,
    };
    let kind = match fields.required_string("kind").as_deref() {
        Some(text) => match TokenKind::parse(text) {
            Some(kind) => Some(kind),
            None => {
                fields.problems.push("kind", "must be \"ask_only\"");
                None
            }
        },
        None => None,
    };
    fields.finish()?;
    Ok((name.unwrap_or_default(), kind.unwrap_or(TokenKind::AskOnly), owner))
}

/// `POST /v1/agents/{name}/trigger`: the webhook payload, any JSON (an empty body is `{}`).
pub fn trigger_payload(bytes: &[u8]) -> ApiResult<Value> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    serde_json::from_slice(bytes).map_err(|err| ApiError::bad_request(format!("the payload is not valid JSON: {err}")))
}

/// `answers` or `answer`, exactly one of them, with every other problem of `fields` first.
fn given_answers(mut fields: Fields) -> ApiResult<Value> {
    let answers = fields.get("answers").cloned();
    let answer = fields.string("answer");
    fields.finish()?;
    match (answers, answer) {
        (Some(answers), None) => Ok(answers),
        (None, Some(answer)) => Ok(json!([answer])),
        (Some(_), Some(_)) => Err(ApiError::invalid(Problems::one("answer", "give answers or answer, not both"))),
        (None, None) => {
            Err(ApiError::invalid(Problems::one("answers", "is required: one answer per question, in order")))
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;

    use super::*;

    fn problem_paths(err: &ApiError) -> Vec<&str> {
        err.body().problems.iter().map(|p| p.path.as_str()).collect()
    }

    #[test]
    fn a_full_question_reads_every_field() {
        let ask = ask(br#"{"agent": "ci-bot", "session_key": "run-7",
            "questions": [{"question": "Deploy?", "options": [{"label": "Yes"}, {"label": "No"}]}],
            "timeout": "2h", "on_timeout": "default", "default_answer": "No",
            "callback_url": "https://example.com/hook", "metadata": {"run": 7}}"#)
        .unwrap();
        assert_eq!(ask.agent, "ci-bot");
        assert_eq!(ask.external_key.as_deref(), Some("run-7"));
        assert_eq!(ask.request.unwrap().items().len(), 1);
        assert_eq!(ask.timeout, Some(std::time::Duration::from_secs(7200)));
        assert_eq!(ask.on_timeout, OnTimeout::Default);
        assert_eq!(ask.metadata, Some(json!({"run": 7})));
    }

    #[test]
    fn a_question_body_reports_every_problem() {
        let err = ask(br#"{"questions": [{"question": "Q?", "options": [{"label": "A"}]}], "colour": "red",
            "on_timeout": "retry", "timeout": -5}"#)
        .unwrap_err();
        assert_eq!(err.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(problem_paths(&err), ["colour", "agent", "questions[0].options", "timeout", "on_timeout"]);
        let missing = ask(b"").unwrap_err();
        assert_eq!(problem_paths(&missing), ["agent", "questions"]);
    }

    #[test]
    fn bodies_that_are_not_json_objects_are_400() {
        for bytes in [&b"{not json"[..], b"[1, 2]", b"\"text\"", b"\xff"] {
            assert_eq!(ask(bytes).unwrap_err().status(), StatusCode::BAD_REQUEST);
            assert_eq!(reason(bytes).unwrap_err().status(), StatusCode::BAD_REQUEST);
        }
    }

    #[test]
    fn answers_come_as_a_list_or_one_text() {
        assert_eq!(answers(br#"{"answer": "Yes"}"#).unwrap(), json!(["Yes"]));
        assert_eq!(answers(br#"{"answers": [{"selected": ["A"]}]}"#).unwrap(), json!([{"selected": ["A"]}]));
        let both = answers(br#"{"answer": "Yes", "answers": ["No"]}"#).unwrap_err();
        assert_eq!(problem_paths(&both), ["answer"]);
        let neither = answers(b"{}").unwrap_err();
        assert_eq!(problem_paths(&neither), ["answers"]);
        let typed = answers(br#"{"answer": 3, "extra": 1}"#).unwrap_err();
        assert_eq!(problem_paths(&typed), ["extra", "answer"]);
    }

    #[test]
    fn a_session_answer_names_its_question_or_takes_the_latest() {
        let latest = session_answer(br#"{"answer": "No"}"#).unwrap();
        assert_eq!(latest.question, SessionQuestion::Latest);
        assert_eq!(session_answer(br#"{"question_id": "latest", "answer": "No"}"#).unwrap(), latest);
        let id = "0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f";
        let named = session_answer(format!(r#"{{"question_id": "{id}", "answers": ["No"]}}"#).as_bytes()).unwrap();
        assert_eq!(named.question, SessionQuestion::Id(id.parse().unwrap()));
        let unknown = session_answer(br#"{"question_id": "first", "answer": "No"}"#).unwrap_err();
        assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    }

    #[test]
    fn reasons_are_optional_text() {
        assert_eq!(reason(b"").unwrap(), None);
        assert_eq!(reason(br#"{"reason": "not now"}"#).unwrap().as_deref(), Some("not now"));
        assert_eq!(problem_paths(&reason(br#"{"reason": 1}"#).unwrap_err()), ["reason"]);
    }

    #[test]
    fn a_token_body_names_it_and_says_its_kind() {
        assert_eq!(
            token(br#"{"name": "devbox", "kind": "ask_only"}"#).unwrap(),
            ("devbox".into(), TokenKind::AskOnly, None)
        );
        assert_eq!(
            token(br#"{"name": "ada-laptop", "kind": "ask_only", "owner": "person:ada"}"#).unwrap().2,
            Some(Audience::Person("ada".into()))
        );
        let err = token(br#"{"name": "x", "kind": "ask_only", "owner": "ada"}"#).unwrap_err();
        assert_eq!(problem_paths(&err), ["owner"]);
        let err = token(br#"{"name": "devbox", "kind": "full"}"#).unwrap_err();
        assert_eq!(problem_paths(&err), ["kind"]);
        let err = token(br#"{"kind": "ask_only", "secret": "mine"}"#).unwrap_err();
        assert_eq!(problem_paths(&err), ["secret", "name"], "a secret is made, never given");
    }

    #[test]
    fn a_body_cannot_say_which_token_asked() {
        let err =
            ask(br#"{"agent": "a", "questions": [{"question": "Q?", "options": [{"label": "A"}, {"label": "B"}]}],
            "asked_by": "devbox"}"#)
            .unwrap_err();
        assert_eq!(problem_paths(&err), ["asked_by"]);
    }

    #[test]
    fn a_trigger_payload_is_any_json() {
        assert_eq!(trigger_payload(b" \n").unwrap(), json!({}));
        assert_eq!(trigger_payload(b"[1]").unwrap(), json!([1]));
        assert_eq!(trigger_payload(b"{").unwrap_err().status(), StatusCode::BAD_REQUEST);
    }
}
