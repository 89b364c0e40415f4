//! How to reach a bot: its token (a secret) and where the Bot API is.

use std::fmt;
use std::time::Duration;

/// Where the Bot API is.
pub const DEFAULT_API_BASE: &str = "https://api.telegram.org";

/// How to reach a bot.
#[derive(Clone)]
pub struct TelegramConfig {
    /// The bot's token from @BotFather (a secret: it is never logged).
    pub token: String,
    /// Where the Bot API is: [`DEFAULT_API_BASE`], or a test server. Requests go to
    /// `{api_base}/bot{token}/{method}`.
    pub api_base: String,
    /// How long one `getUpdates` call waits for an update (whole seconds are sent).
    pub poll_timeout: Duration,
    /// The wait after a first failed `getUpdates`; it doubles with each further failure, up to
    /// 30 seconds, with ±50 % jitter.
    pub retry_base: Duration,
}

impl TelegramConfig {
    /// The real Bot API, polling 25 seconds at a time and retrying from one second.
    pub fn new(token: impl Into<String>) -> Self {
        TelegramConfig {
            token: token.into(),
            api_base: DEFAULT_API_BASE.to_owned(),
            poll_timeout: Duration::from_secs(25),
            retry_base: Duration::from_secs(1),
        }
    }
}

impl fmt::Debug for TelegramConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TelegramConfig")
            .field("token", &"<redacted>")
            .field("api_base", &self.api_base)
            .field("poll_timeout", &self.poll_timeout)
            .field("retry_base", &self.retry_base)
            .finish()
    }
}
