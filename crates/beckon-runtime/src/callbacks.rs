//! Callbacks to an agent's `callback_url`: built in the same transaction as the change they
//! report (the outbox), delivered after commit by one worker, signed with the install's
//! secret, retried with exponential backoff and jitter, each with a stable idempotency key.
//!
//! Receivers verify `Beckon-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`
//! with the secret shown in Beckon's settings, and drop repeats by `Idempotency-Key`.

use std::sync::{RwLock, Weak};
use std::time::Duration;

use beckon_core::{Outcome, RequestId, SessionId};
use beckon_store::{CallbackFormat, NewCallback, NewQuestion, OutboxEntry};
use hmac::{Hmac, KeyInit, Mac};
use rand::Rng;
use serde_json::{Value, json};
use sha2::Sha256;

use crate::clock::now_ms;
use crate::db::Db;
use crate::error::Result;
use crate::runtime::Runtime;

/// Deliveries tried before a callback is marked failed.
pub const MAX_ATTEMPTS: i64 = 8;
/// The longest wait between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(3600);
/// How long one delivery may take.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(15);

/// The setting holding the install's callback signing secret.
const SECRET_SETTING: &str = "callback_secret";

/// The install's callback signing secret: kept in the store's settings, read by every delivery,
/// replaced by a rotation. Never shown in `Debug` output.
pub(crate) struct CallbackSecret {
    current: RwLock<String>,
    /// One rotation at a time, so the store and memory always end up holding the same secret.
    rotating: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for CallbackSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallbackSecret(<redacted>)")
    }
}

/// A new random secret: 32 bytes, hex.
fn new_secret() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

impl CallbackSecret {
    /// The stored secret, or a new one stored now when the install has none yet.
    pub(crate) async fn load(db: &Db) -> Result<CallbackSecret> {
        let secret = db
            .write(|tx| {
                if let Some(secret) = tx.read().setting(SECRET_SETTING)? {
                    return Ok(secret);
                }
                let secret = new_secret();
                tx.set_setting(SECRET_SETTING, &secret)?;
                Ok(secret)
            })
            .await?;
        Ok(CallbackSecret { current: RwLock::new(secret), rotating: tokio::sync::Mutex::new(()) })
    }

    /// The secret deliveries are signed with now.
    pub(crate) fn current(&self) -> String {
        self.current.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Replaces the secret with a new random one: stored first, so a crash right after keeps
    /// the secret the caller was given, then used for every later delivery.
    pub(crate) async fn rotate(&self, db: &Db) -> Result<String> {
        let _one_at_a_time = self.rotating.lock().await;
        let secret = new_secret();
        let stored = secret.clone();
        db.write(move |tx| tx.set_setting(SECRET_SETTING, &stored)).await?;
        *self.current.write().unwrap_or_else(std::sync::PoisonError::into_inner) = secret.clone();
        tracing::info!("callback secret rotated");
        Ok(secret)
    }
}

/// The callback secret kept in the data folder `data_dir`, read from its database without
/// starting a runtime (read-only, beside a running app, which stores a rotated secret before it
/// uses it). `None` when the folder's database has none yet.
pub fn stored_secret(data_dir: &std::path::Path) -> Result<Option<String>> {
    let store = beckon_store::Store::open_read_only(crate::RuntimeConfig::new(data_dir).database_path())?;
    Ok(store.read().setting(SECRET_SETTING)?)
}

/// The `Beckon-Signature` header value for `body` sent at `unix_seconds`.
pub fn signature(secret: &str, unix_seconds: i64, body: &[u8]) -> String {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes()).unwrap_or_else(|_| {
        // HMAC takes keys of any length; this branch cannot run.
        <Hmac<Sha256> as KeyInit>::new_from_slice(b"beckon").unwrap_or_else(|_| unreachable!())
    });
    mac.update(unix_seconds.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("t={unix_seconds},v1={}", hex::encode(mac.finalize().into_bytes()))
}

/// The format of a callback URL: Slack incoming webhooks get Slack's block format.
fn format_of(url: &str) -> CallbackFormat {
    if url.starts_with("https://hooks.slack.com/") { CallbackFormat::Slack } else { CallbackFormat::Json }
}

/// Where a person answers a question: the gateway's answer endpoint, when it runs.
fn answer_url(base: Option<&str>, id: RequestId) -> Option<String> {
    base.map(|base| format!("{}/v1/questions/{id}/answer", base.trim_end_matches('/')))
}

/// The `question_pending` callback for a question being asked, if it has a callback URL.
pub(crate) fn for_pending(public_url: Option<&str>, url: Option<&str>, question: &NewQuestion) -> Vec<NewCallback> {
    let Some(url) = url else { return Vec::new() };
    let payload = json!({
        "event": "question_pending",
        "request_id": question.id,
        "session_id": question.session_id,
        "agent": question.agent,
        "origin": question.origin.to_string(),
        "questions": question.request,
        "created_at": question.at_ms,
        "expires_at": question.expires_at_ms,
        "answer_url": answer_url(public_url, question.id),
        "deep_link": format!("beckon://question/{}", question.id),
    });
    vec![NewCallback {
        idempotency_key: format!("{}:pending", question.id),
        target: url.to_owned(),
        format: format_of(url),
        kind: "question_pending".into(),
        payload,
    }]
}

/// The callback for a question's resolution (`question_answered`, `question_declined`,
/// `question_expired`, `question_cancelled`), if it has a callback URL.
pub(crate) fn for_resolved(
    url: Option<&str>,
    id: RequestId,
    session: SessionId,
    agent: &str,
    outcome: &Outcome,
) -> Vec<NewCallback> {
    let Some(url) = url else { return Vec::new() };
    let kind = format!("question_{}", outcome.kind());
    let payload = json!({
        "event": kind,
        "request_id": id,
        "session_id": session,
        "agent": agent,
        "outcome": outcome,
    });
    vec![NewCallback {
        idempotency_key: format!("{id}:resolved"),
        target: url.to_owned(),
        format: format_of(url),
        kind,
        payload,
    }]
}

/// The body sent for `entry`.
fn body(entry: &OutboxEntry) -> Value {
    match entry.format {
        CallbackFormat::Json => entry.payload.clone(),
        CallbackFormat::Slack => slack(entry),
    }
}

/// A Slack incoming-webhook message: the question, who asks, and a link to answer.
fn slack(entry: &OutboxEntry) -> Value {
    let payload = &entry.payload;
    let agent = payload["origin"].as_str().or(payload["agent"].as_str()).unwrap_or("An agent");
    if entry.kind == "question_pending" {
        let questions: Vec<String> = payload["questions"]["questions"]
            .as_array()
            .map(|items| items.iter().filter_map(|q| q["question"].as_str()).map(|q| format!("• {q}")).collect())
            .unwrap_or_default();
        let link = payload["deep_link"].as_str().unwrap_or_default();
        json!({
            "text": format!("{agent} asks: {}", questions.join(" ")),
            "blocks": [
                {"type": "section", "text": {"type": "mrkdwn", "text": format!("*{agent} asks*\n{}", questions.join("\n"))}},
                {"type": "actions", "elements": [
                    {"type": "button", "text": {"type": "plain_text", "text": "Answer in Beckon"}, "url": link}
                ]}
            ]
        })
    } else {
        let status = entry.kind.trim_start_matches("question_");
        json!({"text": format!("{agent}'s question was {status}."), "blocks": [
            {"type": "context", "elements": [{"type": "mrkdwn", "text": format!("{agent}'s question was *{status}*.")}]}
        ]})
    }
}

/// The wait before the next attempt after `attempts` failed ones: doubling from `base`, with
/// ±50 % jitter so many receivers coming back at once are not hit together.
fn backoff(base: Duration, attempts: i64) -> Duration {
    let exponent = attempts.clamp(0, 20) as u32;
    let wait = base.saturating_mul(2u32.saturating_pow(exponent)).min(MAX_BACKOFF);
    wait.mul_f64(rand::rng().random_range(0.5..1.5))
}

/// The delivery worker: runs until the runtime is gone.
pub(crate) async fn run(rt: Weak<Runtime>, base_backoff: Duration) {
    loop {
        let Some(runtime) = rt.upgrade() else { return };
        let now = now_ms();
        let due = runtime.db.call(move |store| store.read().due_callbacks(now, 32)).await;
        match due {
            Ok(entries) if !entries.is_empty() => {
                for entry in entries {
                    deliver(&runtime, entry, base_backoff).await;
                }
                continue;
            }
            Ok(_) => {}
            Err(err) => tracing::warn!(%err, "cannot read the callback outbox"),
        }
        let next = runtime.db.call(|store| store.read().next_callback_due()).await.ok().flatten();
        let wake = runtime.outbox.clone();
        let stopping = runtime.stopping();
        drop(runtime);
        let wait =
            next.map(|at| Duration::from_millis((at - now_ms()).max(0) as u64)).unwrap_or(Duration::from_secs(3600));
        tokio::select! {
            () = wake.notified() => {}
            () = tokio::time::sleep(wait) => {}
            () = stopping => return,
        }
    }
}

async fn deliver(rt: &Runtime, entry: OutboxEntry, base_backoff: Duration) {
    let body = match serde_json::to_vec(&body(&entry)) {
        Ok(body) => body,
        Err(err) => {
            let id = entry.id;
            let error = format!("cannot encode: {err}");
            let _ = rt.db.write(move |tx| tx.mark_attempt_failed(id, &error, None)).await;
            return;
        }
    };
    let sent_at = now_ms() / 1000;
    let response = rt
        .http
        .post(&entry.target)
        .timeout(DELIVERY_TIMEOUT)
        .header("content-type", "application/json")
        .header("user-agent", concat!("Beckon/", env!("CARGO_PKG_VERSION")))
        .header("beckon-signature", signature(&rt.callback_secret.current(), sent_at, &body))
        .header("beckon-event", &entry.kind)
        .header("idempotency-key", &entry.idempotency_key)
        .body(body)
        .send()
        .await;
    let failure = match response {
        Ok(response) if response.status().is_success() => None,
        Ok(response) => Some(format!("HTTP {}", response.status())),
        Err(err) => Some(format!("{err}")),
    };
    let id = entry.id;
    let attempts = entry.attempts + 1;
    let result = match failure {
        None => {
            tracing::debug!(key = %entry.idempotency_key, "callback delivered");
            rt.db.write(move |tx| tx.mark_delivered(id, now_ms())).await
        }
        Some(error) => {
            let retry_at =
                (attempts < MAX_ATTEMPTS).then(|| now_ms() + backoff(base_backoff, attempts - 1).as_millis() as i64);
            tracing::info!(key = %entry.idempotency_key, %error, attempts, retry = retry_at.is_some(), "callback not delivered");
            rt.db.write(move |tx| tx.mark_attempt_failed(id, &error, retry_at)).await
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
    fn signatures_are_hmac_sha256_of_time_dot_body() {
        // Known answer: HMAC-SHA256("secret", "1700000000.{}").
        let sig = signature("secret", 1_700_000_000, b"{}");
        assert_eq!(sig, "t=1700000000,v1=b8569b78799ff9e3cbff0fc2d63a33a2b57f3282abd07c37ae5e8e7d79a5f163");
        assert_ne!(sig, signature("secret", 1_700_000_000, b"{ }"));
        assert_ne!(sig, signature("other", 1_700_000_000, b"{}"));
        assert_eq!(sig, signature("secret", 1_700_000_000, b"{}"));
    }

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

    #[test]
    fn slack_targets_get_blocks() {
        assert_eq!(format_of("https://hooks.slack.com/services/T/B/X"), CallbackFormat::Slack);
        assert_eq!(format_of("https://example.com/hook"), CallbackFormat::Json);
    }
}
