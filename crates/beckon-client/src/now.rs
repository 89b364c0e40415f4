//! The time by the system's clock, for the commands that read it once (how old a question is,
//! when a wait began). The runtime reads time through its own clock.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, in Unix milliseconds, by the system's clock.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or_default()
}
