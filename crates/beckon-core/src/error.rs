//! The crate's one error type, and reading ids from text, which gives it.

use std::str::FromStr;

use uuid::Uuid;

use crate::agent::AgentFileError;
use crate::conversation::TransitionError;
use crate::ids::{RequestId, SessionId};
use crate::link::LinkError;
use crate::problem::Problems;

/// Anything the domain can refuse.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A question request or an answer broke the rules; every problem is listed.
    #[error("{0}")]
    Invalid(#[from] Problems),
    /// The conversation cannot take that event in its current state.
    #[error(transparent)]
    Transition(#[from] TransitionError),
    /// An agent definition file could not be read.
    #[error(transparent)]
    AgentFile(#[from] AgentFileError),
    /// A `beckon://` link leads nowhere Beckon knows.
    #[error(transparent)]
    Link(#[from] LinkError),
    /// A text that should be an id is not one.
    #[error("{field}: {value:?} is not a valid id (expected a UUID such as 0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f)")]
    InvalidId {
        /// What the id was for (`request_id`, `session_id`).
        field: &'static str,
        /// The text given, truncated.
        value: String,
    },
}

/// Results in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Reading an id from text. Written here rather than in `ids.rs`: the errors [`Error`] wraps
/// carry ids, so the ids must not need this file.
macro_rules! id_from_text {
    ($name:ident, $field:literal) => {
        impl $name {
            /// Parses the textual form, naming the field in the error.
            pub fn parse(text: &str) -> Result<Self, Error> {
                Uuid::try_parse(text)
                    .map(Self::from_uuid)
                    .map_err(|_| Error::InvalidId { field: $field, value: text.chars().take(64).collect() })
            }
        }

        impl FromStr for $name {
            type Err = Error;

            fn from_str(text: &str) -> Result<Self, Error> {
                Self::parse(text)
            }
        }
    };
}

id_from_text!(RequestId, "request_id");
id_from_text!(SessionId, "session_id");
