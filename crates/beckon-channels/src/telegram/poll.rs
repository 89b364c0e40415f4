//! The long-poll loop: `getUpdates` until stopped, each update handled once, the offset kept.
//!
//! Telegram keeps an update until a later `getUpdates` asks from past it (its `offset`). The
//! offset is stored after each batch is handed over, so a new run starts where the last one
//! stopped; only a batch cut short by a kill comes again, and a press repeated that way is
//! harmless (the first answer wins; the same answer again changes nothing). Within a run,
//! updates below the offset and those among the last few hundred handled are dropped, so a
//! batch Telegram sends again yields each press once.
//!
//! A failed call — 409 (another poller, or a webhook set for the bot), 429 (Telegram's
//! `retry_after` is waited out), a server error, the network — is retried with exponential
//! backoff and ±50 % jitter, capped at 30 seconds and reset by a success. The waits are on the
//! state's clock (the runtime's), like every other wait for a moment in Beckon. `stop` ends the
//! loop at once, whatever it is waiting on.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::api::{ApiError, Update};
use super::bot::Telegram;
use super::reply::Reply;
use crate::channel::Heard;
use crate::state::ChannelState;

/// State key: the next update id to ask for.
pub(super) const OFFSET_KEY: &str = "telegram.offset";
/// How many handled update ids are remembered beside the offset.
const RECENT_KEPT: usize = 256;
/// The longest wait between two failed calls.
const RETRY_MAX: Duration = Duration::from_secs(30);
/// The longest wait Telegram's `retry_after` is taken at.
const RATE_LIMIT_MAX: Duration = Duration::from_secs(300);

/// Update ids handled lately, oldest first.
#[derive(Debug, Default)]
struct Recent(VecDeque<i64>);

impl Recent {
    /// Notes `id`; false when it was noted already.
    fn first_time(&mut self, id: i64) -> bool {
        if self.0.contains(&id) {
            return false;
        }
        if self.0.len() == RECENT_KEPT {
            self.0.pop_front();
        }
        self.0.push_back(id);
        true
    }
}

/// Polls for updates until `stop`, handing each press and person's pairing code to `heard` once.
pub(super) async fn listen<S: ChannelState>(
    telegram: Arc<Telegram<S>>,
    heard: mpsc::Sender<Heard<Reply>>,
    stop: CancellationToken,
) {
    let Some(mut offset) = stored_offset(&telegram, &stop).await else { return };
    let mut recent = Recent::default();
    let mut failures = 0;
    loop {
        let batch = tokio::select! {
            () = stop.cancelled() => return,
            batch = telegram.api.get_updates(offset, telegram.poll_timeout) => batch,
        };
        let updates = match batch {
            Ok(updates) => {
                failures = 0;
                updates
            }
            Err(err) => {
                let wait = retry_wait(&err, telegram.retry_base, failures);
                failures += 1;
                match err.code() {
                    Some(409) => tracing::warn!(
                        failures,
                        %err,
                        "another getUpdates poller or a webhook holds the bot; retrying"
                    ),
                    _ => tracing::warn!(failures, %err, wait_ms = wait.as_millis(), "cannot get updates; retrying"),
                }
                if !pause(&*telegram.state, wait, &stop).await {
                    return;
                }
                continue;
            }
        };
        let mut next = offset;
        for raw in updates {
            let Some(id) = raw.get("update_id").and_then(Value::as_i64) else {
                tracing::warn!("an update without an id; skipped");
                continue;
            };
            next = next.max(id.saturating_add(1));
            if id < offset || !recent.first_time(id) {
                tracing::debug!(update_id = id, "an update handled already; skipped");
                continue;
            }
            let update: Update = match serde_json::from_value(raw) {
                Ok(update) => update,
                Err(err) => {
                    tracing::warn!(update_id = id, %err, "an update of an unexpected shape; skipped");
                    continue;
                }
            };
            let asked = tokio::select! {
                () = stop.cancelled() => return,
                asked = telegram.read_update(update) => asked,
            };
            if let Some(asked) = asked {
                tokio::select! {
                    () = stop.cancelled() => return,
                    sent = heard.send(asked) => if sent.is_err() { return },
                }
            }
        }
        if next != offset {
            offset = next;
            if let Err(err) = telegram.state.set(OFFSET_KEY, &offset.to_string()).await {
                tracing::warn!(%err, "cannot store the update offset; a restart may see some updates again");
            }
        }
    }
}

/// The offset the last run stored (0: from the oldest update Telegram keeps); `None` on stop.
async fn stored_offset<S: ChannelState>(telegram: &Telegram<S>, stop: &CancellationToken) -> Option<i64> {
    let mut failures = 0;
    loop {
        match telegram.state.get(OFFSET_KEY).await {
            Ok(stored) => return Some(stored.and_then(|offset| offset.parse().ok()).unwrap_or(0)),
            Err(err) => {
                let wait = backoff(telegram.retry_base, failures);
                failures += 1;
                tracing::warn!(%err, "cannot read the update offset; retrying");
                if !pause(&*telegram.state, wait, stop).await {
                    return None;
                }
            }
        }
    }
}

/// Waits `wait` on the state's clock (the runtime's: a test moves it instead of sleeping);
/// false when `stop` came first.
async fn pause<S: ChannelState>(state: &S, wait: Duration, stop: &CancellationToken) -> bool {
    let at_ms = state.now_ms().saturating_add(i64::try_from(wait.as_millis()).unwrap_or(i64::MAX));
    tokio::select! {
        () = stop.cancelled() => false,
        () = state.sleep_until(at_ms) => true,
    }
}

/// The wait after a failed call: what Telegram asked for, or the backoff.
fn retry_wait(err: &ApiError, base: Duration, failures: u32) -> Duration {
    match err {
        ApiError::Refusal { retry_after: Some(seconds), .. } => Duration::from_secs(*seconds).min(RATE_LIMIT_MAX),
        _ => backoff(base, failures),
    }
}

/// `base` doubled once per earlier failure, capped, with ±50 % jitter.
fn backoff(base: Duration, failures: u32) -> Duration {
    let wait = base.saturating_mul(2u32.saturating_pow(failures.min(16))).min(RETRY_MAX);
    wait.mul_f64(rand::rng().random_range(0.5..1.5)).min(RETRY_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_jitter_and_stops_at_the_cap() {
        let base = Duration::from_secs(1);
        for failures in 0..4 {
            let wait = backoff(base, failures);
            let middle = base * 2u32.pow(failures);
            assert!(wait >= middle / 2 && wait <= middle * 3 / 2, "{wait:?} after {failures}");
        }
        assert!(backoff(base, 40) <= RETRY_MAX);
    }

    #[test]
    fn telegrams_retry_after_is_waited_out() {
        let err = ApiError::Refusal {
            method: "getUpdates",
            code: 429,
            description: "Too Many Requests".into(),
            retry_after: Some(7),
        };
        assert_eq!(retry_wait(&err, Duration::from_secs(1), 0), Duration::from_secs(7));
    }

    #[test]
    fn an_update_id_counts_once() {
        let mut recent = Recent::default();
        assert!(recent.first_time(1));
        assert!(!recent.first_time(1));
        for id in 2..=(RECENT_KEPT as i64 + 1) {
            assert!(recent.first_time(id));
        }
        assert!(recent.first_time(1), "the oldest is forgotten past the bound");
    }
}
