//! Time and ids: the only places the runtime makes them (the domain is given both).

use std::time::{SystemTime, UNIX_EPOCH};

use beckon_core::{RequestId, SessionId};
use uuid::Uuid;

/// Now, in Unix milliseconds.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or_default()
}

/// A new session id (UUID v7: time-ordered, unique).
pub fn new_session_id() -> SessionId {
    SessionId::from_uuid(Uuid::now_v7())
}

/// A new question id (UUID v7).
pub fn new_request_id() -> RequestId {
    RequestId::from_uuid(Uuid::now_v7())
}
