//! One entry of a session's timeline.

use beckon_core::conversation::Message;
use serde::{Deserialize, Serialize};

/// One timeline entry as stored.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelineEntry {
    /// Its place in the session's timeline, from 1.
    pub position: i64,
    /// The entry.
    pub message: Message,
    /// When it was added (Unix ms).
    pub at_ms: i64,
}
