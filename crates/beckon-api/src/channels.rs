//! A signed-in person's own accounts on a team server's channels, and the codes that pair them.

use serde::{Deserialize, Serialize};

/// A code a signed-in person sends their channel's bot to pair their own account with.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelPairingCode {
    /// "slack" or "telegram".
    pub channel: String,
    /// The code.
    pub code: String,
    /// When it stops being good (Unix ms).
    pub expires_at_ms: i64,
}

impl std::fmt::Debug for ChannelPairingCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A code pairs whoever sends it first: never in a log.
        f.debug_struct("ChannelPairingCode")
            .field("channel", &self.channel)
            .field("expires_at_ms", &self.expires_at_ms)
            .finish_non_exhaustive()
    }
}

/// A channel a signed-in person may pair their own account on, and the account they paired.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairedChannel {
    /// "slack" or "telegram".
    pub channel: String,
    /// Their account there (a Slack member id), once paired.
    pub account: Option<String>,
    /// When they paired it (Unix ms).
    pub paired_at_ms: Option<i64>,
}
