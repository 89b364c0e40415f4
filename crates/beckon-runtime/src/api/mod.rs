//! What front ends receive: errors as `{kind, message, field?}` and events as typed, self-
//! contained values (the same for the window, HTTP and MCP).

use beckon_core::conversation::Origin;
use beckon_store::{EventPayload, StoredEvent};

mod error_body;
mod tokens;

pub use beckon_api::{
    CreatedToken, ErrorBody, ErrorKind, LiveEvent, OfPushDevice, PushAction, PushKeys, PushMessage, PushOffer,
    PushSubscription, TokenKind, TokenView, window,
};
pub(crate) use tokens::token_view;

/// A stored event as front ends receive it; `None` for one that is unreadable (logged) or lacks
/// its ids.
pub fn live_event(event: &StoredEvent) -> Option<LiveEvent> {
    let read = || -> Result<LiveEvent, String> {
        let (seq, at_ms) = (event.seq, event.at_ms);
        let session_id = event.session_id.ok_or("no session")?;
        let request_id = || event.request_id.ok_or("no request");
        Ok(match event.details().map_err(|e| e.to_string())? {
            EventPayload::SessionStarted(started) => LiveEvent::SessionStarted {
                seq,
                session_id,
                agent: started.agent,
                origin: started.origin,
                parent: started.parent,
                title: started.title,
                status: started.status,
                at_ms,
            },
            EventPayload::SessionStatus(changed) => {
                LiveEvent::SessionStatus { seq, session_id, status: changed.status, reason: changed.reason, at_ms }
            }
            EventPayload::MessageAppended(appended) => {
                LiveEvent::MessageAppended { seq, session_id, entry: appended.entry(at_ms).map_err(|e| e.to_string())? }
            }
            EventPayload::QuestionPending(question) => LiveEvent::QuestionPending { seq, question },
            EventPayload::QuestionResolved(resolved) => LiveEvent::QuestionResolved {
                seq,
                session_id,
                request_id: request_id()?,
                status: resolved.status,
                outcome: resolved.outcome().map_err(|e| e.to_string())?,
                answered_via: resolved.answered_via,
                at_ms,
                question: resolved.question().map_err(|e| e.to_string())?.map(Box::new),
            },
            EventPayload::SessionResumed(_) => LiveEvent::SessionResumed { seq, session_id, request_id: request_id()? },
            EventPayload::SessionDeleted(_) => LiveEvent::SessionDeleted { seq, session_id },
        })
    };
    read().map_err(|err| tracing::warn!(seq = event.seq, kind = %event.kind, %err, "unreadable event")).ok()
}

/// Who asks, as front ends label it: "research › summariser asks".
pub fn asks_label(origin: &Origin) -> String {
    format!("{origin} asks")
}
