//! One committed event of the log. Its kinds ([`EventKind`]) are beckon-api's (the wire
//! contract).

use beckon_core::{RequestId, SessionId};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use beckon_api::EventKind;

/// One committed event.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredEvent {
    /// Its position in the log; every event has the next one.
    pub seq: i64,
    /// What it is about.
    pub kind: EventKind,
    /// The session concerned, if any.
    pub session_id: Option<SessionId>,
    /// The question concerned, if any.
    pub request_id: Option<RequestId>,
    /// Details, by kind, as JSON text (front ends pass it on unparsed).
    pub payload: Box<RawValue>,
    /// When it happened (Unix ms).
    pub at_ms: i64,
}

impl PartialEq for StoredEvent {
    fn eq(&self, other: &Self) -> bool {
        self.seq == other.seq
            && self.kind == other.kind
            && self.session_id == other.session_id
            && self.request_id == other.request_id
            && self.payload.get() == other.payload.get()
            && self.at_ms == other.at_ms
    }
}
