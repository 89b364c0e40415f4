//! `GET /v1/events?after=<seq>`: every event after a seq, then live ones, as Server-Sent
//! Events (`id` is the seq, so `Last-Event-ID` resumes where a client left off).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Extension;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use serde::Deserialize;

use crate::addressed::Audiences;
use crate::error::ApiResult;
use crate::principal::Principal;
use crate::state::Shared;

/// `?after=<seq>`.
#[derive(Debug, Deserialize)]
pub struct AfterQuery {
    after: Option<i64>,
}

/// The event stream; a signed-in person's carries only events about sessions addressed to them,
/// their groups or everyone.
pub async fn stream(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    headers: HeaderMap,
    Query(query): Query<AfterQuery>,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let resume = headers.get("last-event-id").and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<i64>().ok());
    let after = resume.or(query.after).unwrap_or(0);
    // Held by the stream, so the place is given back when the client goes away.
    let place = shared.event_streams.take()?;
    let subscription = shared.beckon.subscribe(after).await?;
    let member = match principal {
        Principal::Member(member) if !member.admin => Some(member),
        _ => None,
    };
    let seen = (subscription, place, Audiences::default(), shared);
    let events = futures_util::stream::unfold(seen, move |(mut subscription, place, mut audiences, shared)| {
        let member = member.clone();
        async move {
            let event = loop {
                let event = subscription.next().await.ok()?;
                let Some(member) = &member else { break event };
                // A lookup that fails ends the stream: the client reconnects from the last seq.
                if audiences.sees(&shared, member, event.session_id()).await.ok()? {
                    break event;
                }
            };
            let data = serde_json::to_string(&event).unwrap_or_default();
            let sse = Event::default().id(event.seq().to_string()).event(event.kind().as_str()).data(data);
            Some((Ok(sse), (subscription, place, audiences, shared)))
        }
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}
