//! Errors as every front end receives them: `{kind, message, field?, problems?, winner?}`,
//! with a kind from one closed list.

use beckon_core::Problem;
use serde::{Deserialize, Serialize};

use crate::questions::ResolvedQuestion;

/// What kind of refusal or failure an error is: stable, machine-readable, sent as its
/// snake_case name. Front ends decide what to do by it (the gateway its HTTP status, the
/// window what to show); the message is for the person.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// No such session, question, agent or route.
    NotFound,
    /// The question was already resolved differently; the winner is attached.
    AlreadyResolved,
    /// The answer does not fit the question.
    InvalidAnswer,
    /// An input broke the rules; every problem is listed.
    InvalidInput,
    /// The session cannot do that now.
    WrongState,
    /// Only the person may do that (a script allowing a tool call).
    PersonOnly,
    /// Beckon, or a part it needs, is not running or cannot be reached now.
    Unavailable,
    /// Beckon failed; its log says more.
    Internal,
    /// The request could not be read.
    BadRequest,
    /// The route does not take the request's method.
    MethodNotAllowed,
    /// The request came from where the gateway does not answer (a web page, another host).
    Forbidden,
    /// The bearer token is missing or wrong.
    Unauthorized,
    /// The request body is larger than the gateway reads.
    TooLarge,
    /// The request body did not arrive in time.
    BodyTimeout,
    /// Every place for this kind of open request is taken; retry shortly.
    TooManyOpen,
    /// Too many writes; retry after the time given.
    RateLimited,
}

impl ErrorKind {
    /// Every kind.
    pub const ALL: [ErrorKind; 16] = [
        ErrorKind::NotFound,
        ErrorKind::AlreadyResolved,
        ErrorKind::InvalidAnswer,
        ErrorKind::InvalidInput,
        ErrorKind::WrongState,
        ErrorKind::PersonOnly,
        ErrorKind::Unavailable,
        ErrorKind::Internal,
        ErrorKind::BadRequest,
        ErrorKind::MethodNotAllowed,
        ErrorKind::Forbidden,
        ErrorKind::Unauthorized,
        ErrorKind::TooLarge,
        ErrorKind::BodyTimeout,
        ErrorKind::TooManyOpen,
        ErrorKind::RateLimited,
    ];

    /// The snake_case name, as sent.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::NotFound => "not_found",
            ErrorKind::AlreadyResolved => "already_resolved",
            ErrorKind::InvalidAnswer => "invalid_answer",
            ErrorKind::InvalidInput => "invalid_input",
            ErrorKind::WrongState => "wrong_state",
            ErrorKind::PersonOnly => "person_only",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Internal => "internal",
            ErrorKind::BadRequest => "bad_request",
            ErrorKind::MethodNotAllowed => "method_not_allowed",
            ErrorKind::Forbidden => "forbidden",
            ErrorKind::Unauthorized => "unauthorized",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::BodyTimeout => "body_timeout",
            ErrorKind::TooManyOpen => "too_many_open",
            ErrorKind::RateLimited => "rate_limited",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error as a front end shows it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// What kind of error it is.
    pub kind: ErrorKind,
    /// What happened and what to do, for a person.
    pub message: String,
    /// The field to highlight (the first problem's path), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub field: Option<String>,
    /// Every problem with its path, for inputs that broke several rules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<Problem>,
    /// For `already_resolved`: the resolution that won.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub winner: Option<ResolvedQuestion>,
}

impl ErrorBody {
    /// An error of `kind` with only a message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> ErrorBody {
        ErrorBody { kind, message: message.into(), field: None, problems: vec![], winner: None }
    }

    /// An error of `kind` with every problem, the first one's path as the field to highlight.
    pub fn with_problems(kind: ErrorKind, message: impl Into<String>, problems: Vec<Problem>) -> ErrorBody {
        ErrorBody {
            kind,
            message: message.into(),
            // The empty path is the request as a whole: there is no one field to highlight.
            field: problems.first().map(|p| p.path.clone()).filter(|path| !path.is_empty()),
            problems,
            winner: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_sent_as_its_name_and_read_back() {
        for kind in ErrorKind::ALL {
            let sent = serde_json::to_value(kind).unwrap();
            assert_eq!(sent, serde_json::Value::String(kind.as_str().to_owned()));
            assert_eq!(serde_json::from_value::<ErrorKind>(sent).unwrap(), kind);
        }
    }
}
