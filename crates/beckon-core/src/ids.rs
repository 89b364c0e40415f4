//! Beckon's own ids: UUIDs (v7 when Beckon makes them), stored and sent as text.
//!
//! Provider `tool_use_id`s can repeat across sessions and providers; these never do, and every
//! answer names one. The domain never makes ids itself: they arrive on events.
//!
//! Reading one from text (`parse`, `FromStr`) is in `error.rs`, beside the error it gives.

use std::fmt;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(Uuid);

        impl $name {
            /// Wraps a UUID made by the caller (the runtime makes v7 ones).
            pub const fn from_uuid(uuid: Uuid) -> Self {
                Self(uuid)
            }

            /// The UUID inside.
            pub const fn as_uuid(&self) -> &Uuid {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.hyphenated().fmt(f)
            }
        }
    };
}

id_type!(
    /// The id of one `ask_user_question` call (one question request).
    RequestId
);
id_type!(
    /// The id of one agent session.
    SessionId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_the_hyphenated_form() {
        let text = "0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f";
        let id: RequestId = text.parse().unwrap();
        assert_eq!(id.to_string(), text);
        assert_eq!(serde_json::to_string(&id).unwrap(), format!("\"{text}\""));
    }

    #[test]
    fn refuses_text_that_is_not_a_uuid_and_names_the_field() {
        let err = SessionId::parse("../../etc/passwd").unwrap_err();
        assert!(err.to_string().starts_with("session_id: \"../../etc/passwd\" is not a valid id"), "{err}");
        assert!(RequestId::parse("").is_err());
        assert!(RequestId::parse("0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1").is_err());
    }
}
