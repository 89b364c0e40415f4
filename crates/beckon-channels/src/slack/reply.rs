//! How Slack tells a person what became of their press.

use std::fmt;

/// How Slack tells a person what became of their press: an ephemeral message only they see.
pub enum Reply {
    /// A button on the message: the press's `response_url`.
    ResponseUrl(String),
    /// A submitted form (which has no response URL): `chat.postEphemeral` to `user` in
    /// `channel`.
    Ephemeral {
        /// Where the question's message is.
        channel: String,
        /// Who submitted.
        user: String,
    },
}

impl fmt::Debug for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // A response URL lets anyone holding it post to the channel for a while.
            Self::ResponseUrl(_) => f.write_str("ResponseUrl([redacted])"),
            Self::Ephemeral { channel, user } => {
                f.debug_struct("Ephemeral").field("channel", channel).field("user", user).finish()
            }
        }
    }
}
