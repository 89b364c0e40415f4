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
use crate::cookies::Cookie;
use crate::error::ApiResult;
use crate::places::Caller;
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
    let place = shared.event_streams.take(Caller::of(&principal))?;
    let subscription = shared.beckon.events().subscribe(after).await?;
    let member = match &principal {
        Principal::Member(member) if !member.admin => Some(member.clone()),
        _ => None,
    };
    // A signed-in person's stream lasts as long as their sign-in: signed out (or expired), the
    // stream ends at its next event, and the client, reconnecting, is told to sign in again.
    let session = match principal {
        Principal::Member(_) => {
            shared.cookies.read(&headers, Cookie::Session).or_else(|| crate::guard::bearer(&headers).map(str::to_owned))
        }
        _ => None,
    };
    let seen = (subscription, place, Audiences::default(), shared, Checked::default());
    let events =
        futures_util::stream::unfold(seen, move |(mut subscription, place, mut audiences, shared, mut checked)| {
            let (member, session) = (member.clone(), session.clone());
            async move {
                let event = loop {
                    let event = subscription.next().await.ok()?;
                    if let Some(session) = &session
                        && !checked.still_signed_in(&shared, session).await
                    {
                        return None;
                    }
                    let Some(member) = &member else { break event };
                    // A lookup that fails ends the stream: the client reconnects from the last seq.
                    if audiences.sees(&shared, member, event.session_id()).await.ok()? {
                        break event;
                    }
                };
                let data = serde_json::to_string(&event).unwrap_or_default();
                let sse = Event::default().id(event.seq().to_string()).event(event.kind().as_str()).data(data);
                Some((Ok(sse), (subscription, place, audiences, shared, checked)))
            }
        });
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// How often a stream asks again whether its person is still signed in.
const SIGN_IN_CHECK: Duration = Duration::from_secs(1);

/// When a stream last found its person signed in.
#[derive(Debug, Default)]
struct Checked {
    at: Option<std::time::Instant>,
}

impl Checked {
    /// Whether the session `secret` names is still open (asked at most every [`SIGN_IN_CHECK`];
    /// a failed lookup counts as signed in, and is asked again next time).
    async fn still_signed_in(&mut self, shared: &Shared, secret: &str) -> bool {
        if self.at.is_some_and(|at| at.elapsed() < SIGN_IN_CHECK) {
            return true;
        }
        match shared.beckon.people().session(secret).await {
            Ok(Some(_)) => {
                self.at = Some(std::time::Instant::now());
                true
            }
            Ok(None) => false,
            Err(_) => true,
        }
    }
}
