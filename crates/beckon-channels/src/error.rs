//! The channels' one error type.

/// What went wrong talking to a channel's service or keeping its state.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The service could not be reached, or its answer could not be read (worth retrying).
    #[error("{channel} cannot be reached: {detail}")]
    Unreachable {
        /// "Slack" or "Telegram".
        channel: &'static str,
        /// What failed, with no token in it.
        detail: String,
    },
    /// The service asks us to wait before the next call (HTTP 429, Telegram's `retry_after`).
    #[error("{channel} asks to wait {retry_after_ms} ms")]
    RateLimited {
        /// "Slack" or "Telegram".
        channel: &'static str,
        /// How long to wait.
        retry_after_ms: u64,
    },
    /// The service refused the call (a bad token, a missing scope, an unknown chat): retrying
    /// the same call will not help.
    #[error("{channel} refused {method}: {detail}")]
    Refused {
        /// "Slack" or "Telegram".
        channel: &'static str,
        /// The API method.
        method: &'static str,
        /// The service's own error text.
        detail: String,
    },
    /// The person confirmed or refused a chat's request to be paired that is no longer waiting
    /// (settled, replaced by a newer one, or lapsed).
    #[error("that chat is no longer waiting to be paired: ask for a new code to pair it")]
    NoPairingRequest,
    /// Beckon's own store or service failed.
    #[error(transparent)]
    Runtime(#[from] beckon_runtime::Error),
}

impl Error {
    /// Whether trying the same call again later may succeed.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::Unreachable { .. } | Self::RateLimited { .. })
    }
}

/// The channels' result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
