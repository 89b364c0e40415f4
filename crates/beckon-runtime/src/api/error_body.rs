//! Errors as every front end receives them: the runtime's [`Error`] as an [`ErrorBody`] (the
//! body and its closed list of kinds are beckon-api's).

use beckon_api::{ErrorBody, ErrorKind};

use crate::error::Error;

impl From<&Error> for ErrorBody {
    fn from(err: &Error) -> Self {
        let (kind, problems) = match err {
            Error::SessionNotFound(_)
            | Error::QuestionNotFound(_)
            | Error::AgentNotFound { .. }
            | Error::TokenNotFound(_) => (ErrorKind::NotFound, vec![]),
            Error::AlreadyResolved(_) => (ErrorKind::AlreadyResolved, vec![]),
            Error::InvalidAnswer(problems) => (ErrorKind::InvalidAnswer, problems.iter().cloned().collect()),
            Error::InvalidInput(problems) => (ErrorKind::InvalidInput, problems.iter().cloned().collect()),
            Error::WrongState { .. } => (ErrorKind::WrongState, vec![]),
            Error::PersonOnly(_) => (ErrorKind::PersonOnly, vec![]),
            Error::AgentConfig { .. } => (ErrorKind::InvalidInput, vec![]),
            Error::DataDirLocked { .. } | Error::ShuttingDown | Error::HeldElsewhere(_) => {
                (ErrorKind::Unavailable, vec![])
            }
            Error::DataDir { .. } | Error::Store(_) | Error::PushKey(_) => (ErrorKind::Internal, vec![]),
        };
        let mut body = ErrorBody::with_problems(kind, err.to_string(), problems);
        if let Error::AlreadyResolved(winner) = err {
            body.winner = Some((**winner).clone());
        }
        body
    }
}

impl From<Error> for ErrorBody {
    fn from(err: Error) -> Self {
        ErrorBody::from(&err)
    }
}
