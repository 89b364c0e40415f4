//! `GET /v1/events?after=<seq>`: every event after a seq, then live ones, as Server-Sent
//! Events (`id` is the seq, so `Last-Event-ID` resumes where a client left off).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use serde::Deserialize;

use crate::error::ApiResult;
use crate::state::Shared;

/// `?after=<seq>`.
#[derive(Debug, Deserialize)]
pub struct AfterQuery {
    after: Option<i64>,
}

/// The event stream.
pub async fn stream(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Query(query): Query<AfterQuery>,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let resume = headers.get("last-event-id").and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<i64>().ok());
    let after = resume.or(query.after).unwrap_or(0);
    // Held by the stream, so the place is given back when the client goes away.
    let place = shared.event_streams.take()?;
    let subscription = shared.beckon.subscribe(after).await?;
    let events = futures_util::stream::unfold((subscription, place), |(mut subscription, place)| async move {
        let event = subscription.next().await.ok()?;
        let data = serde_json::to_string(&event).unwrap_or_default();
        let sse = Event::default().id(event.seq().to_string()).event(event.kind().as_str()).data(data);
        Some((Ok(sse), (subscription, place)))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}
