//! Sending the outbox. One dispatcher reads due callbacks and starts each as its own task, as
//! long as [`InFlight`] has a slot for it, so a receiver that accepts connections and never
//! answers holds a few slots for at most [`DELIVERY_TIMEOUT`] while everyone else's callbacks
//! go out. The outbox stays the record: a delivery marks its row only when it knows how the
//! attempt ended, so a crash mid-send leaves the row due and it is sent again at the next start.
//!
//! A callback URL is the agent's to choose, and some are secrets (a Slack webhook's path is its
//! credential): redirects are never followed (a 3xx is a failed attempt), and logs and stored
//! errors name only the receiver's scheme, host and port. On a server facing a network, a
//! receiver whose address is not one it sends to (see [`super::destinations`]) is refused
//! before anything is sent, and the callback is given up at once with the reason recorded.

use std::sync::Arc;
use std::time::Duration;

use beckon_store::{DueCursor, OutboxEntry};
use rand::Rng;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::destinations::{CallbackDestinations, Refused, VettingResolver, refusal_in};
use super::in_flight::InFlight;
use super::{CallbackSecret, body, origin, signature};
use crate::clock::Clock;
use crate::db::Db;
use crate::http_error::describe;
use crate::leases::Leases;
use crate::stop::Stop;

/// Deliveries tried before a callback is marked failed.
pub const MAX_ATTEMPTS: i64 = 8;
/// The longest wait between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(3600);
/// How long connecting to a receiver may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long one delivery may take in all, connecting included.
pub(super) const DELIVERY_TIMEOUT: Duration = Duration::from_secs(10);
/// Due callbacks read from the store at a time.
const PAGE: usize = 256;
/// How long the dispatcher sleeps with nothing due (a queued callback wakes it sooner).
const IDLE_WAKE_MS: i64 = 3_600_000;

/// The HTTP client callbacks are sent with: short timeouts, no redirects. Where some
/// addresses are refused, names are resolved by [`VettingResolver`], and no proxy from the
/// environment is used: a proxy would connect wherever the name pointed, past the check.
pub(crate) fn client(destinations: &Arc<CallbackDestinations>) -> reqwest::Result<reqwest::Client> {
    let builder = reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(DELIVERY_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("Beckon/", env!("CARGO_PKG_VERSION")));
    let builder = if destinations.restricts() {
        builder.no_proxy().dns_resolver(Arc::new(VettingResolver { destinations: destinations.clone() }))
    } else {
        builder
    };
    builder.build()
}

/// How an attempt failed.
enum Failure {
    /// The receiver did not take it; it may later.
    Attempt(String),
    /// Nothing was sent: the receiver's address is one this server sends no callbacks to.
    Refused(Refused),
}

/// The wait before the next attempt after `attempts` failed ones: doubling from `base`, with
/// ±50 % jitter so many receivers coming back at once are not hit together.
pub(crate) fn backoff(base: Duration, attempts: i64) -> Duration {
    let exponent = attempts.clamp(0, 20) as u32;
    let wait = base.saturating_mul(2u32.saturating_pow(exponent)).min(MAX_BACKOFF);
    wait.mul_f64(rand::rng().random_range(0.5..1.5))
}

/// What the outbox worker works with, and nothing else.
#[derive(Clone)]
pub(crate) struct Outbox {
    pub(crate) db: Db,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) secret: Arc<CallbackSecret>,
    /// Rung when a commit queued callbacks.
    pub(crate) wake: Arc<tokio::sync::Notify>,
    pub(crate) stop: Stop,
    pub(crate) http: reqwest::Client,
    /// The wait after a first failed attempt; it doubles with each further one.
    pub(crate) base_backoff: Duration,
    /// URL prefixes of Slack-compatible incoming webhooks, sent Slack messages too.
    pub(crate) slack_webhooks: Arc<Vec<String>>,
    /// On a team server, one replica delivers at a time: the one holding [`OUTBOX_WORK`].
    pub(crate) leases: Leases,
    /// The receivers callbacks may go to (the client's resolver checks names; this, addresses
    /// written in URLs).
    pub(crate) destinations: Arc<CallbackDestinations>,
}

/// The lease a team server's replica holds while it delivers callbacks.
pub(crate) const OUTBOX_WORK: &str = "outbox";

/// The dispatcher: runs until the runtime stops.
pub(crate) async fn run(outbox: Outbox) {
    let (finished, mut done) = mpsc::unbounded_channel();
    let outbox = Arc::new(outbox);
    let mut in_flight = InFlight::default();
    let mut deliveries = JoinSet::new();
    loop {
        while let Ok(id) = done.try_recv() {
            in_flight.finish(id);
        }
        let now = outbox.clock.now_ms();
        // Another replica delivering: look again within a third of a lease (it may have died).
        let held = outbox.leases.keep(OUTBOX_WORK).await;
        if held && let Err(err) = dispatch(&outbox, &mut in_flight, &mut deliveries, &finished, now).await {
            tracing::warn!(%err, "cannot read the callback outbox");
        }
        // What is due now and not started waits for a slot: a delivery's end wakes us for it.
        // On a team server, the lease is asked for again every third of it, held or not.
        let idle = if outbox.leases.shared() {
            i64::try_from(outbox.leases.lease().as_millis() / 3).unwrap_or(IDLE_WAKE_MS)
        } else {
            IDLE_WAKE_MS
        };
        let next = if held {
            outbox.db.call(move |store| store.read().next_callback_due_after(now)).await.ok().flatten()
        } else {
            None
        };
        let wait = outbox.clock.sleep_until(next.map_or(now + idle, |due| due.min(now + idle)));
        while deliveries.try_join_next().is_some() {}
        tokio::select! {
            () = outbox.wake.notified() => {}
            Some(id) = done.recv() => in_flight.finish(id),
            () = wait => {}
            () = outbox.stop.stopping() => {
                // A delivery whose answer is in records it before the worker ends, so nothing
                // writes to the store once shutdown has waited for the worker.
                while deliveries.join_next().await.is_some() {}
                return;
            }
        }
    }
}

/// Starts every due callback a slot is free for, oldest first, paging past those that wait.
async fn dispatch(
    outbox: &Arc<Outbox>,
    in_flight: &mut InFlight,
    deliveries: &mut JoinSet<()>,
    finished: &mpsc::UnboundedSender<i64>,
    now: i64,
) -> crate::Result<()> {
    let mut after: Option<DueCursor> = None;
    while !in_flight.full() {
        let page = outbox.db.call(move |store| store.read().due_callbacks_after(now, after, PAGE)).await?;
        let Some(last) = page.last() else { break };
        after = Some((last.next_attempt_at_ms, last.id));
        let more = page.len() == PAGE;
        for entry in page {
            if in_flight.admit(&entry) {
                let (outbox, finished) = (outbox.clone(), finished.clone());
                deliveries.spawn(async move {
                    let id = entry.id;
                    deliver(&outbox, entry).await;
                    drop(outbox);
                    // Each delivery says, by outbox id, when it has recorded how it ended.
                    let _ = finished.send(id);
                });
            }
        }
        if !more {
            break;
        }
    }
    Ok(())
}

/// One attempt at one callback, recorded in the outbox. Abandoned unrecorded if the runtime
/// stops meanwhile: the row stays due and is sent at the next start.
async fn deliver(outbox: &Outbox, entry: OutboxEntry) {
    let body = match serde_json::to_vec(&body(&entry, &outbox.slack_webhooks)) {
        Ok(body) => body,
        Err(err) => {
            let id = entry.id;
            let error = format!("cannot encode: {err}");
            let _ = outbox.db.write(move |tx| tx.mark_attempt_failed(id, &error, None)).await;
            return;
        }
    };
    // An address written in the URL is connected to as it is: checked here (a name is checked
    // by the client's resolver, on the addresses it connects to).
    if let Err(refused) = outbox.destinations.vet_url_address(&entry.target) {
        record(outbox, &entry, Some(Failure::Refused(refused))).await;
        return;
    }
    let sent_at = outbox.clock.now_ms() / 1000;
    let request = outbox
        .http
        .post(&entry.target)
        .header("content-type", "application/json")
        .header("beckon-signature", signature(&outbox.secret.current(), sent_at, &body))
        .header("beckon-event", entry.kind.name())
        .header("idempotency-key", &entry.idempotency_key)
        .body(body)
        .send();
    let response = tokio::select! {
        response = request => response,
        () = outbox.stop.stopping() => return,
    };
    let failure = match response {
        Ok(response) if response.status().is_success() => None,
        Ok(response) if response.status().is_redirection() => {
            Some(Failure::Attempt(format!("HTTP {} (redirects are not followed)", response.status())))
        }
        Ok(response) => Some(Failure::Attempt(format!("HTTP {}", response.status()))),
        Err(err) => Some(match refusal_in(&err) {
            Some(refused) => Failure::Refused(refused),
            None => Failure::Attempt(describe(err)),
        }),
    };
    record(outbox, &entry, failure).await;
}

/// Records how an attempt at `entry` ended: delivered (no failure), due again later, or given
/// up (the last attempt, or a refused receiver, which no retry would change).
async fn record(outbox: &Outbox, entry: &OutboxEntry, failure: Option<Failure>) {
    let id = entry.id;
    let attempts = entry.attempts + 1;
    let receiver = origin(&entry.target);
    let result = match failure {
        None => {
            tracing::debug!(key = %entry.idempotency_key, %receiver, "callback delivered");
            {
                let now = outbox.clock.now_ms();
                outbox.db.write(move |tx| tx.mark_delivered(id, now)).await
            }
        }
        Some(Failure::Refused(refused)) => {
            let error = format!("refused: {refused}");
            tracing::warn!(key = %entry.idempotency_key, %receiver, %error, attempts, "callback not sent; given up");
            outbox.db.write(move |tx| tx.mark_attempt_failed(id, &error, None)).await
        }
        Some(Failure::Attempt(error)) => {
            let retry_at = (attempts < MAX_ATTEMPTS)
                .then(|| outbox.clock.now_ms() + backoff(outbox.base_backoff, attempts - 1).as_millis() as i64);
            if retry_at.is_some() {
                tracing::info!(key = %entry.idempotency_key, %receiver, %error, attempts, "callback not delivered; will retry");
            } else {
                tracing::warn!(key = %entry.idempotency_key, %receiver, %error, attempts, "callback not delivered; given up");
            }
            outbox.db.write(move |tx| tx.mark_attempt_failed(id, &error, retry_at)).await
        }
    };
    if let Err(err) = result {
        tracing::warn!(%err, "cannot record a callback delivery");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let base = Duration::from_secs(1);
        for attempts in 0..6 {
            let nominal = base * 2u32.pow(attempts as u32);
            let wait = backoff(base, attempts);
            assert!(wait >= nominal.mul_f64(0.5) && wait <= nominal.mul_f64(1.5), "{attempts}: {wait:?}");
        }
        assert!(backoff(base, 40) <= MAX_BACKOFF.mul_f64(1.5));
    }

    #[tokio::test]
    async fn a_failed_request_is_described_without_its_url() {
        // A port just freed: nothing listens there, so the connection is refused.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let url = format!("http://127.0.0.1:{port}/services/T0/B0/SECRET?token=hidden");
        let err = client(&Arc::default()).unwrap().post(&url).send().await.unwrap_err();
        let said = describe(err);
        assert!(!said.contains("SECRET") && !said.contains("hidden") && !said.contains("/services"), "{said}");
        assert!(said.contains("error sending request"), "{said}");
    }
}
