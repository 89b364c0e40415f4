//! Sending pushes. One worker (on a team server, the replica holding [`PUSH_WORK`]) reads what
//! each device is owed once a burst of questions is over (no event for [`QUIET`]), so a burst
//! is pushed whole, plans the pushes, and sends a few at a time. Each push is recorded as `sending` before it
//! goes and marked once the push service answered: a replica killed in between leaves it due
//! again [`IN_DOUBT`] later, for whichever replica then holds the work, and it is sent again
//! under the same `Topic` (a push service keeps one undelivered push per topic) and the same
//! notification tag (the browser shows one notification per question).
//!
//! A push service that says the subscription is gone (404, 410) has the device forgotten; one
//! that refuses the message (413) has it given up; anything else is tried again with backoff.
//! Endpoints are a browser's to choose, so they are sent to as callbacks are: only where this
//! server sends callbacks (see [`crate::callbacks::CallbackDestinations`]), never following a
//! redirect, and logs name only the push service's origin.

use std::sync::Arc;
use std::time::Duration;

use beckon_store::{PushAttempt, PushDevice, PushDue, StoredEvent};
use futures_util::StreamExt as _;
use tokio::sync::broadcast;

use super::message::{self, Push};
use super::subscription::decode;
use super::vapid::Vapid;
use crate::callbacks::{CallbackDestinations, backoff, origin};
use crate::clock::Clock;
use crate::db::Db;
use crate::http_error::describe;
use crate::leases::Leases;
use crate::public_url::PublicUrl;
use crate::stop::Stop;

/// The lease a team server's replica holds while it sends pushes.
pub(crate) const PUSH_WORK: &str = "push";
/// How long no event may come before what was asked is pushed: an agent asking many things at
/// once asks them closer together than this, and they are pushed together.
const QUIET: Duration = Duration::from_secs(1);
/// The longest a push waits for a burst to end.
const GATHER_AT_MOST: Duration = Duration::from_secs(5);
/// How long a push sent without its end recorded waits before it is sent again: longer than a
/// send may take (the client gives up on one after 10 s).
const IN_DOUBT: Duration = Duration::from_secs(15);
/// Pushes sent at once.
const AT_ONCE: usize = 8;
/// Questions read at a time.
const PAGE: usize = 256;
/// Attempts at one push before it is given up.
const MAX_ATTEMPTS: i64 = 6;
/// The wait after a first failed attempt; it doubles with each further one, as a callback's
/// does (see [`backoff`]).
const FIRST_BACKOFF: Duration = Duration::from_secs(5);
/// How long a push service keeps an undelivered push: a day (questions wait longer, but a day
/// old notification tells nothing the inbox does not).
const TTL_SECONDS: u64 = 24 * 3600;
/// How long the worker sleeps with nothing due (a new question wakes it sooner).
const IDLE: Duration = Duration::from_secs(3600);

/// What the push worker works with, and nothing else.
pub(crate) struct PushWorker {
    pub(crate) db: Db,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) vapid: Arc<Vapid>,
    /// Sends as callbacks are sent: no redirects, only to admitted addresses.
    pub(crate) http: reqwest::Client,
    pub(crate) destinations: Arc<CallbackDestinations>,
    /// The server's address: named in each push's token as whom to contact, when it is https.
    pub(crate) public_url: PublicUrl,
    /// Every event: a question asked wakes the worker.
    pub(crate) events: broadcast::Receiver<Arc<StoredEvent>>,
    pub(crate) leases: Leases,
    pub(crate) stop: Stop,
}

/// How a push ended.
#[derive(Debug, PartialEq, Eq)]
enum Ending {
    /// The push service took it.
    Sent,
    /// The subscription is gone: forget the device.
    Gone(String),
    /// It will never be taken: give it up.
    Refused(String),
    /// Try again later.
    Failed(String),
}

/// What a push service's answer means for the push.
fn ending(status: reqwest::StatusCode) -> Ending {
    match status.as_u16() {
        200..=299 => Ending::Sent,
        404 | 410 => Ending::Gone(format!("HTTP {status}: the subscription is gone")),
        413 => Ending::Refused(format!("HTTP {status}: the message is too large")),
        300..=399 => Ending::Failed(format!("HTTP {status} (redirects are not followed)")),
        _ => Ending::Failed(format!("HTTP {status}")),
    }
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// The worker: runs until the runtime stops. It reads the store only when there may be
/// something to send: when it takes the work (a replica that held it may have died mid-send),
/// when something falls due, and after an event, once the burst it may start is over.
pub(crate) async fn run(mut worker: PushWorker) {
    let mut next: Option<i64> = None;
    let mut held_before = false;
    loop {
        let now = worker.clock.now_ms();
        let held = worker.leases.keep(PUSH_WORK).await;
        if held && (!held_before || next.is_some_and(|due| due <= now)) {
            next = match pass(&worker, now).await {
                Ok(due) => due,
                Err(err) => {
                    tracing::warn!(%err, "cannot read what is owed to people's devices");
                    Some(now.saturating_add(millis(FIRST_BACKOFF)))
                }
            };
        }
        held_before = held;
        let mut wake = next.unwrap_or(now.saturating_add(millis(IDLE)));
        if worker.leases.shared() {
            // Another replica may hold the work, and die: ask again every third of a lease.
            wake = wake.min(now.saturating_add(millis(worker.leases.lease() / 3)));
        }
        let wait = worker.clock.sleep_until(wake);
        tokio::select! {
            event = worker.events.recv() => {
                if let Err(broadcast::error::RecvError::Closed) = event {
                    return;
                }
                if !gathered(&mut worker).await {
                    return;
                }
                next = Some(worker.clock.now_ms());
            }
            () = wait => {}
            () = worker.stop.stopping() => return,
        }
    }
}

/// Waits out a burst of events: until none came for [`QUIET`], or [`GATHER_AT_MOST`] passed.
/// False when the runtime stops meanwhile.
async fn gathered(worker: &mut PushWorker) -> bool {
    let started = worker.clock.now_ms();
    loop {
        let quiet = worker.clock.sleep_until(worker.clock.now_ms().saturating_add(millis(QUIET)));
        tokio::select! {
            event = worker.events.recv() => {
                if let Err(broadcast::error::RecvError::Closed) = event {
                    return false;
                }
                if worker.clock.now_ms().saturating_sub(started) >= millis(GATHER_AT_MOST) {
                    return true;
                }
            }
            () = quiet => return true,
            () = worker.stop.stopping() => return false,
        }
    }
}

/// Sends what devices are owed at `now_ms`; when more falls due.
async fn pass(worker: &PushWorker, now_ms: i64) -> crate::Result<Option<i64>> {
    let quiet = millis(QUIET);
    let (due, next) =
        worker.db.call(move |store| store.read().push_work(now_ms, now_ms.saturating_sub(quiet), quiet, PAGE)).await?;
    let full = due.iter().map(|owed| owed.questions.len()).sum::<usize>() == PAGE;
    let sends = due.into_iter().flat_map(|owed: PushDue| {
        let attempts = owed.questions.iter().map(|(_, attempts)| *attempts).max().unwrap_or(0);
        let questions: Vec<_> = owed.questions.into_iter().map(|(question, _)| question).collect();
        let device = Arc::new(owed.device);
        message::plan(&questions).into_iter().map(move |push| (device.clone(), push, attempts))
    });
    let mut sending = futures_util::stream::iter(sends)
        .map(|(device, push, attempts)| send(worker, device, push, attempts))
        .buffer_unordered(AT_ONCE);
    loop {
        tokio::select! {
            sent = sending.next() => if sent.is_none() { break },
            // Abandoned unrecorded: each push stays due, and is sent at the next start.
            () = worker.stop.stopping() => return Ok(None),
        }
    }
    // A full page leaves more owed now.
    Ok(if full { Some(now_ms) } else { next })
}

/// One push to one device, recorded before it is sent and after.
async fn send(worker: &PushWorker, device: Arc<PushDevice>, push: Push, attempts: i64) {
    let now = worker.clock.now_ms();
    let (endpoint, ids) = (device.endpoint.clone(), push.request_ids.clone());
    let in_doubt_until = now.saturating_add(millis(IN_DOUBT));
    let begun = worker
        .db
        .write(move |tx| tx.begin_push(&PushAttempt { endpoint: &endpoint, request_ids: &ids }, now, in_doubt_until))
        .await;
    let begun = match begun {
        Ok(begun) if begun.is_empty() => return,
        Ok(begun) => begun,
        Err(err) => {
            tracing::warn!(%err, "cannot record a push before sending it");
            return;
        }
    };
    let ending = deliver(worker, &device, &push).await;
    let service = origin(&device.endpoint);
    let now = worker.clock.now_ms();
    let endpoint = device.endpoint.clone();
    let recorded = match ending {
        Ending::Sent => {
            tracing::debug!(%service, pushes = begun.len(), "pushed");
            worker
                .db
                .write(move |tx| tx.push_sent(&PushAttempt { endpoint: &endpoint, request_ids: &begun }, now))
                .await
        }
        Ending::Gone(error) => {
            tracing::info!(%service, %error, "a browser's subscription is gone; forgetting the device");
            worker.db.write(move |tx| tx.forget_push_device(&endpoint).map(drop)).await
        }
        Ending::Refused(error) => {
            tracing::warn!(%service, %error, "a push was refused; given up");
            let attempt = move |tx: &mut beckon_store::Tx<'_>| {
                tx.push_failed(&PushAttempt { endpoint: &endpoint, request_ids: &begun }, &error, None, now)
            };
            worker.db.write(attempt).await
        }
        Ending::Failed(error) => {
            let tried = attempts + 1;
            let retry_at = (tried < MAX_ATTEMPTS).then(|| now.saturating_add(millis(backoff(FIRST_BACKOFF, attempts))));
            if retry_at.is_some() {
                tracing::info!(%service, %error, attempts = tried, "a push was not taken; will retry");
            } else {
                tracing::warn!(%service, %error, attempts = tried, "a push was not taken; given up");
            }
            let attempt = move |tx: &mut beckon_store::Tx<'_>| {
                tx.push_failed(&PushAttempt { endpoint: &endpoint, request_ids: &begun }, &error, retry_at, now)
            };
            worker.db.write(attempt).await
        }
    };
    if let Err(err) = recorded {
        tracing::warn!(%err, "cannot record how a push ended");
    }
}

/// Encrypts `push` for `device` and sends it to its push service.
async fn deliver(worker: &PushWorker, device: &PushDevice, push: &Push) -> Ending {
    let Ok(endpoint) = reqwest::Url::parse(&device.endpoint) else {
        return Ending::Gone("the endpoint is not a URL".into());
    };
    let keys = decode(&device.p256dh)
        .and_then(|point| web_push_native::p256::PublicKey::from_sec1_bytes(&point).ok())
        .zip(decode(&device.auth).filter(|auth| auth.len() == 16));
    let Some((public, auth)) = keys else {
        return Ending::Gone("the browser's keys cannot be read".into());
    };
    let auth = web_push_native::Auth::clone_from_slice(&auth);
    let body = match web_push_native::encrypt(push.body(), &public, &auth) {
        Ok(body) => body,
        Err(err) => return Ending::Refused(format!("cannot encrypt: {err}")),
    };
    if let Err(refused) = worker.destinations.vet_url_address(endpoint.as_str()) {
        return Ending::Refused(format!("refused: {refused}"));
    }
    let contact = worker.public_url.get().filter(|url| url.starts_with("https://"));
    let now_s = worker.clock.now_ms() / 1000;
    let authorization = match worker.vapid.authorization(&endpoint, contact.as_deref(), now_s) {
        Ok(authorization) => authorization,
        Err(err) => return Ending::Failed(err),
    };
    let request = worker
        .http
        .post(endpoint)
        .header("content-type", "application/octet-stream")
        .header("content-encoding", "aes128gcm")
        .header("ttl", TTL_SECONDS)
        .header("urgency", "high")
        .header("topic", &push.topic)
        .header("authorization", authorization)
        .body(body)
        .send();
    match request.await {
        Ok(response) => ending(response.status()),
        Err(err) => match crate::callbacks::refusal_in(&err) {
            Some(refused) => Ending::Refused(format!("refused: {refused}")),
            None => Ending::Failed(describe(err)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_push_services_answer_decides_what_becomes_of_the_push() {
        let of = |code: u16| ending(reqwest::StatusCode::from_u16(code).unwrap());
        assert_eq!(of(201), Ending::Sent);
        assert!(matches!(of(410), Ending::Gone(_)) && matches!(of(404), Ending::Gone(_)));
        assert!(matches!(of(413), Ending::Refused(_)));
        for code in [301, 400, 403, 429, 500, 503] {
            assert!(matches!(of(code), Ending::Failed(_)), "{code}");
        }
    }
}
